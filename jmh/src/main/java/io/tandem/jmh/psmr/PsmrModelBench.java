package io.tandem.jmh.psmr;

import io.tandem.engine.ClientRequest.Session;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import io.tandem.execution.ExecutionListener;
import io.tandem.execution.ExecutionMode;
import io.tandem.execution.Executor;
import io.tandem.execution.ExecutorFactory;
import io.tandem.execution.Multicast;
import io.tandem.execution.ParallelExecutor;
import io.tandem.execution.ParallelOptions;
import io.tandem.execution.ParallelStateMachine;
import io.tandem.execution.SequentialExecutor;
import io.tandem.kv.KeyPartitioning;
import io.tandem.kv.KvCodec;
import io.tandem.kv.KvCommand;
import io.tandem.kv.KvLimits;
import io.tandem.kv.KvStateMachine;
import io.tandem.sim.cost.CostTable;
import io.tandem.sim.cost.PsmrModel;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Mode S of opt-psmr.md §8.2 (issue 20 "Show"): sequential SMR, P-SMR and optimistic P-SMR on the KV
 * B+-tree, modelled for 1 to 16 worker threads and 0 to 100 % dependent commands by
 * {@link PsmrModel} (one virtual clock per worker and one for the log reader).
 *
 * <ol>
 *   <li><b>Costs</b>, calibrated on this machine from the execution-only workload of
 *       {@link ExecutionOnlyBench} by thread CPU time (robust to other processes' load), each the median
 *       of 3 measurements: the sequential executor per read and per insert/delete; the parallel
 *       executor per read and per insert/delete (run with one worker, stepped on this thread, less the
 *       routing); the reader's routing per entry (tag decode and {@code route}); the safety check
 *       ({@code safe} per insert/delete on its home worker of 2); the barrier per extra
 *       participant = two thread hand-offs ({@code wakeup.ns} of the simulator's cost table: process
 *       CPU of a park/unpark ping-pong).</li>
 *   <li><b>Fails</b>, exact per K: the real optimistic executor (stepped, deterministic) runs each log for
 *       each K; the failed attempts are those it re-sends (their copies go to the log's tail).</li>
 *   <li><b>Replay</b>: every entry with its destinations, check and cost through {@link PsmrModel#replay}.</li>
 * </ol>
 *
 * <pre>
 * java -Xms3g -Xmx3g -XX:+UseParallelGC -cp CP io.tandem.jmh.psmr.PsmrModelBench [keys] [commands] [threads,...] [dep%,...] [out.csv] [barrier-ns]
 * </pre>
 *
 * <p>{@code barrier-ns} replaces the barrier cost per extra participant. The default (two hand-offs'
 * CPU) leaves out the wait for the other thread to be scheduled, which is most of a real lock-step's
 * wall time: calibrate it from a Mode E run instead, as {@code 1 / P-SMR(K=2, 100 %) - 1 / SMR(100 %)}
 * (every command there is a barrier of two workers plus one execution).
 */
public final class PsmrModelBench {
    private static final KvCodec CODEC = new KvCodec(KvLimits.DEFAULTS);
    private static final NodeId ORIGIN = NodeId.of("n1");

    /** Calibrated costs, ns. */
    record Costs(long seqRead, long seqWrite, long parRead, long parWrite, long route, long check, long barrier) {}

    public static void main(String[] args) throws IOException {
        int keys = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int commands = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        int[] ks = args.length > 2 ? Arrays.stream(args[2].split(",")).mapToInt(Integer::parseInt).toArray() : new int[] {1, 2, 4, 8, 16};
        int[] deps = args.length > 3 ? Arrays.stream(args[3].split(",")).mapToInt(Integer::parseInt).toArray() : new int[] {0, 1, 5, 10, 25, 50, 75, 100};
        Path csv = args.length > 4 ? Path.of(args[4]) : null;
        long barrierOverride = args.length > 5 ? Long.parseLong(args[5]) : -1;
        if (args.length > 5 && barrierOverride < 0) throw new IllegalArgumentException("barrier-ns must be >= 0, was " + barrierOverride);
        long keySpace = 2L * keys;
        KeyPartitioning partitioning = KeyPartitioning.longKeys(keySpace - 1);
        KvStateMachine seed = new KvStateMachine(KvLimits.DEFAULTS, 31, partitioning);
        seed.runsInParallel(1);
        SplittableRandom r = new SplittableRandom(42);
        long index = 0;
        while (seed.state().size() < keys) seed.apply(++index, CODEC.encode(new KvCommand.Put(key(r.nextLong(keySpace)), value(index))));
        ByteArrayOutputStream image = new ByteArrayOutputStream();
        seed.snapshot(image);
        byte[] tree = image.toByteArray();
        System.err.printf(Locale.ROOT, "tree: %d keys, height %d; load %s%n", seed.state().size(), seed.state().height(), loadavg());

        Costs calibrated = calibrate(tree, partitioning, commands, keySpace);
        Costs costs = barrierOverride < 0 ? calibrated : new Costs(calibrated.seqRead, calibrated.seqWrite, calibrated.parRead, calibrated.parWrite,
                calibrated.route, calibrated.check, barrierOverride);
        System.err.println("costs (ns): " + costs + "; load " + loadavg());

        List<String> rows = new ArrayList<>();
        rows.add("technique,K,dep_pct,mode,commands,model_kcps,ratio_to_smr,ratio_opt_to_psmr,fail_rate,fails,sync_cmds,barrier_ns");
        for (int dep : deps) {
            List<byte[]> log = ExecutionOnlyBench.workload(new SplittableRandom(1000 + dep), commands, dep / 100.0, keySpace);
            KvStateMachine router = new KvStateMachine(KvLimits.DEFAULTS, 31, partitioning);
            // A read can never conflict through the state: one worker both ways with any K > 1 (with K = 1 everything is).
            boolean[] isRead = new boolean[log.size()];
            for (int i = 0; i < isRead.length; i++) isRead[i] = router.route(log.get(i), 2).certain();
            List<Long> seqCosts = new ArrayList<>(log.size());
            for (boolean read : isRead) seqCosts.add(read ? costs.seqRead : costs.seqWrite);
            double smr = PsmrModel.sequential(seqCosts).throughput(commands) / 1e3;
            rows.add(String.format(Locale.ROOT, "smr,1,%d,S,%d,%.1f,1.00,,0,0,0,0", dep, commands, smr));
            for (int k : ks) {
                List<PsmrModel.Entry> psmr = new ArrayList<>(log.size());
                for (int i = 0; i < log.size(); i++) {
                    ParallelStateMachine.Route route = router.route(log.get(i), k);
                    psmr.add(new PsmrModel.Entry(route.conservative(), 0, isRead[i] ? costs.parRead : costs.parWrite, false));
                }
                PsmrModel.Result p = PsmrModel.replay(k, costs.route, costs.barrier, psmr);
                Set<Long> failed = failedAttempts(tree, partitioning, log, k);
                List<PsmrModel.Entry> opt = new ArrayList<>(log.size() + failed.size());
                List<PsmrModel.Entry> copies = new ArrayList<>();
                long checked = 0;
                for (int i = 0; i < log.size(); i++) {
                    ParallelStateMachine.Route route = router.route(log.get(i), k);
                    if (route.certain()) { // never checked: a read, or anything with one worker
                        opt.add(new PsmrModel.Entry(route.optimistic(), 0, isRead[i] ? costs.parRead : costs.parWrite, false));
                        continue;
                    }
                    checked++;
                    boolean fails = failed.contains((long) i + 1);
                    opt.add(new PsmrModel.Entry(route.optimistic(), costs.check, costs.parWrite, fails));
                    if (fails) copies.add(new PsmrModel.Entry(route.conservative(), 0, costs.parWrite, false));
                }
                opt.addAll(copies);
                PsmrModel.Result o = PsmrModel.replay(k, costs.route, costs.barrier, opt);
                double pk = p.throughput(commands) / 1e3;
                double ok = o.throughput(commands) / 1e3;
                double failRate = checked == 0 ? 0 : failed.size() / (double) checked;
                rows.add(String.format(Locale.ROOT, "psmr,%d,%d,S,%d,%.1f,%.2f,,0,0,%d,%d", k, dep, commands, pk, pk / smr, p.synchronous(), costs.barrier));
                rows.add(String.format(Locale.ROOT, "opt-psmr,%d,%d,S,%d,%.1f,%.2f,%.2f,%.4f,%d,%d,%d", k, dep, commands, ok, ok / smr, ok / pk, failRate, failed.size(),
                        o.synchronous(), costs.barrier));
                // Sensitivity to the barrier (opt-psmr.md §8.2 step 3): four times the calibrated cost.
                PsmrModel.Result p4 = PsmrModel.replay(k, costs.route, 4 * costs.barrier, psmr);
                PsmrModel.Result o4 = PsmrModel.replay(k, costs.route, 4 * costs.barrier, opt);
                rows.add(String.format(Locale.ROOT, "psmr-barrier-x4,%d,%d,S,%d,%.1f,%.2f,,0,0,%d,%d", k, dep, commands, p4.throughput(commands) / 1e3,
                        p4.throughput(commands) / 1e3 / smr, p4.synchronous(), 4 * costs.barrier));
                rows.add(String.format(Locale.ROOT, "opt-psmr-barrier-x4,%d,%d,S,%d,%.1f,%.2f,%.2f,%.4f,%d,%d,%d", k, dep, commands, o4.throughput(commands) / 1e3,
                        o4.throughput(commands) / 1e3 / smr, o4.throughput(commands) / p4.throughput(commands), failRate, failed.size(), o4.synchronous(), 4 * costs.barrier));
                System.err.printf(Locale.ROOT, "dep %d%% K=%d: smr %.0f, psmr %.0f, opt %.0f kcps (opt/psmr %.2f), fail %.2f%%%n", dep, k, smr, pk, ok, ok / pk, 100 * failRate);
            }
        }
        PrintStream out = System.out;
        out.println("# costs (ns): " + costs + "; load at the end " + loadavg());
        for (String row : rows) out.println(row);
        if (csv != null) {
            List<String> file = new ArrayList<>();
            file.add("# " + costs + "; load at the end " + loadavg());
            file.addAll(rows);
            Files.write(csv, file);
        }
    }

    /** Median of 3 of each cost, by thread CPU time on this thread. */
    static Costs calibrate(byte[] tree, KeyPartitioning partitioning, int commands, long keySpace) throws IOException {
        List<byte[]> reads = ExecutionOnlyBench.workload(new SplittableRandom(1000), commands, 0, keySpace);
        List<byte[]> writes = ExecutionOnlyBench.workload(new SplittableRandom(1100), commands, 1, keySpace);
        long[][] m = new long[6][3];
        for (int round = -1; round < 3; round++) { // round -1 warms the JIT up
            long seqRead = cpuPerCommand(tree, partitioning, reads, null, 1);
            long seqWrite = cpuPerCommand(tree, partitioning, writes, null, 1);
            long route = routeCost(partitioning, writes, reads);
            long parRead = cpuPerCommand(tree, partitioning, reads, ExecutionMode.PSMR, 1) - route;
            long parWrite = cpuPerCommand(tree, partitioning, writes, ExecutionMode.PSMR, 1) - route;
            long check = checkCost(tree, partitioning, writes);
            if (round < 0) continue;
            long[] v = {seqRead, seqWrite, parRead, parWrite, route, check};
            for (int i = 0; i < v.length; i++) m[i][round] = v[i];
        }
        long[] med = new long[6];
        for (int i = 0; i < 6; i++) {
            Arrays.sort(m[i]);
            med[i] = Math.max(0, m[i][1]);
        }
        long barrier = 2 * CostTable.calibrated().wakeupCost();
        return new Costs(med[0], med[1], med[2], med[3], med[4], med[5], barrier);
    }

    /** Thread CPU per command of draining {@code log} (sequential executor if {@code mode} is null, else stepped with {@code k} workers). */
    private static long cpuPerCommand(byte[] tree, KeyPartitioning partitioning, List<byte[]> log, ExecutionMode mode, int k) throws IOException {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        KvStateMachine m = machine(tree, partitioning);
        List<byte[]> resent = new ArrayList<>();
        Executor x = mode == null ? new SequentialExecutor(m, listener(resent), ExecutorFactory.Limits.DEFAULTS)
                : new ParallelExecutor(m, listener(resent), ExecutorFactory.Limits.DEFAULTS, ParallelOptions.of(mode, k).stepped(1));
        List<Committed> entries = entries(log);
        long t0 = threads.getCurrentThreadCpuTime();
        drain(x, entries, resent);
        long t1 = threads.getCurrentThreadCpuTime();
        if (x instanceof ParallelExecutor p) p.close();
        return (t1 - t0) / log.size();
    }

    /**
     * The safety check per insert/delete, thread CPU: {@code safe} of every command on its home worker of 2, on the
     * tree as it is (the check changes nothing; with one worker no command is checked, OC-G and CC-G being equal).
     */
    private static long checkCost(byte[] tree, KeyPartitioning partitioning, List<byte[]> writes) throws IOException {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        KvStateMachine m = machine(tree, partitioning);
        m.runsInParallel(2);
        int[] home = new int[writes.size()];
        for (int i = 0; i < home.length; i++) home[i] = Long.numberOfTrailingZeros(m.route(writes.get(i), 2).optimistic());
        long passed = 0;
        long t0 = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < home.length; i++) if (m.safe(writes.get(i), home[i], 2)) passed++;
        long t1 = threads.getCurrentThreadCpuTime();
        if (passed == -1) System.out.print("");
        return (t1 - t0) / home.length;
    }

    /** The reader's routing per entry: tag decode and the state machine's route, thread CPU. */
    private static long routeCost(KeyPartitioning partitioning, List<byte[]> writes, List<byte[]> reads) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        KvStateMachine m = new KvStateMachine(KvLimits.DEFAULTS, 31, partitioning);
        long sink = 0;
        long t0 = threads.getCurrentThreadCpuTime();
        for (int rep = 0; rep < 5; rep++) {
            for (int i = 0; i < writes.size(); i++) {
                byte[] c = (i & 1) == 0 ? writes.get(i) : reads.get(i);
                if (Multicast.decode(c) == null) sink += m.route(c, 8).conservative();
            }
        }
        long t1 = threads.getCurrentThreadCpuTime();
        if (sink == 42) System.out.print("");
        return (t1 - t0) / (5L * writes.size());
    }

    /** The indexes of the optimistic attempts that failed their check with {@code k} workers (the real executor, stepped). */
    static Set<Long> failedAttempts(byte[] tree, KeyPartitioning partitioning, List<byte[]> log, int k) throws IOException {
        KvStateMachine m = machine(tree, partitioning);
        List<byte[]> resent = new ArrayList<>();
        ParallelExecutor x = new ParallelExecutor(m, listener(resent), ExecutorFactory.Limits.DEFAULTS, ParallelOptions.of(ExecutionMode.OPT_PSMR, k).stepped(k));
        Set<Long> failed = new HashSet<>();
        List<Committed> entries = entries(log);
        for (Committed e : entries) x.apply(e);
        x.flush();
        for (byte[] copy : resent) failed.add(Multicast.decode(copy).tag().retryOf());
        x.close();
        return failed;
    }

    private static void drain(Executor x, List<Committed> log, List<byte[]> resent) {
        for (Committed e : log) x.apply(e);
        x.flush();
        long next = log.size() + 1;
        while (!resent.isEmpty()) {
            List<byte[]> copies = new ArrayList<>(resent);
            resent.clear();
            for (byte[] b : copies) x.apply(new Committed(next, ORIGIN, next++, Session.NONE, b));
            x.flush();
        }
    }

    private static KvStateMachine machine(byte[] tree, KeyPartitioning partitioning) throws IOException {
        KvStateMachine m = new KvStateMachine(KvLimits.DEFAULTS, 31, partitioning);
        m.restore(new ByteArrayInputStream(tree));
        return m;
    }

    private static List<Committed> entries(List<byte[]> log) {
        List<Committed> out = new ArrayList<>(log.size());
        for (byte[] b : log) out.add(new Committed(out.size() + 1, ORIGIN, out.size() + 1, Session.NONE, b));
        return out;
    }

    private static ExecutionListener listener(List<byte[]> resent) {
        return new ExecutionListener() {
            @Override
            public void executed(Committed entry, Outcome outcome) {}

            @Override
            public void readAnswered(long requestId, byte[] result, RuntimeException error) {}

            @Override
            public void resubmit(byte[] taggedCommand) {
                resent.add(taggedCommand);
            }
        };
    }

    private static byte[] key(long k) {
        return ByteBuffer.allocate(8).putLong(k).array();
    }

    private static byte[] value(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    private static String loadavg() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
