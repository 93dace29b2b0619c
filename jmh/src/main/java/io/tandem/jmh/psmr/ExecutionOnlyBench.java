package io.tandem.jmh.psmr;

import io.tandem.engine.ClientRequest.Session;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import io.tandem.execution.ExecutionListener;
import io.tandem.execution.ExecutionMode;
import io.tandem.execution.Executor;
import io.tandem.execution.ExecutorFactory;
import io.tandem.execution.ParallelExecutor;
import io.tandem.execution.ParallelOptions;
import io.tandem.execution.SequentialExecutor;
import io.tandem.kv.KeyPartitioning;
import io.tandem.kv.KvCodec;
import io.tandem.kv.KvCommand;
import io.tandem.kv.KvLimits;
import io.tandem.kv.KvStateMachine;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Mode E of opt-psmr.md §8.2: the execution engine alone. One replica's executor drains a log
 * that is filled before the clock starts (no clients, no network, no ordering engine); failed
 * optimistic commands are appended to the log's tail as conservative copies, as the ordering
 * engine would order them. Throughput is executed commands per second of the drain, copies
 * counted once with their command. After a warm-up run of each technique, each round runs every
 * technique once; a point is the median over rounds, and its ratio to sequential SMR the median of
 * the per-round ratios.
 *
 * <p>Workload: a KV B+-tree with 30 entries per leaf (order 31), built by random insertion of
 * {@code keys} 8-byte keys from a key space of twice that; reads (a compare-and-set that changes
 * nothing, ordered like any command) and, for the dependent share, inserts and deletes 50/50 on
 * uniform keys.
 *
 * <pre>
 * java -Xms2g -Xmx2g -XX:+UseParallelGC -cp CP io.tandem.jmh.psmr.ExecutionOnlyBench [keys] [commands] [rounds] [dep%,...]
 * </pre>
 */
public final class ExecutionOnlyBench {
    private static final KvCodec CODEC = new KvCodec(KvLimits.DEFAULTS);
    private static final NodeId ORIGIN = NodeId.of("n1");

    private record Config(String name, ExecutionMode mode, int threads) {}

    private record Run(double kcps, double failRate, long executed, long fails, long synchronous, String perThread) {}

    public static void main(String[] args) throws IOException {
        int keys = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int commands = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        int reps = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        int[] deps = args.length > 3 ? Arrays.stream(args[3].split(",")).mapToInt(Integer::parseInt).toArray() : new int[] {0, 1, 5, 10, 25, 50, 75, 100};
        long keySpace = 2L * keys;
        KeyPartitioning partitioning = KeyPartitioning.longKeys(keySpace - 1);

        // The tree, built once by random insertion and restored (shape and all) before every run.
        KvStateMachine seed = new KvStateMachine(KvLimits.DEFAULTS, 31, partitioning);
        seed.runsInParallel(1); // keep the shape in the snapshot
        SplittableRandom r = new SplittableRandom(42);
        long index = 0;
        while (seed.state().size() < keys) seed.apply(++index, CODEC.encode(new KvCommand.Put(key(r.nextLong(keySpace)), value(index))));
        ByteArrayOutputStream image = new ByteArrayOutputStream();
        seed.snapshot(image);
        byte[] tree = image.toByteArray();
        System.err.printf(Locale.ROOT, "tree: %d keys, height %d, %d MB image%n", seed.state().size(), seed.state().height(), tree.length >> 20);

        List<Config> configs = List.of(new Config("smr", ExecutionMode.SEQUENTIAL, 1),
                new Config("psmr", ExecutionMode.PSMR, 1), new Config("psmr", ExecutionMode.PSMR, 2),
                new Config("opt-psmr", ExecutionMode.OPT_PSMR, 1), new Config("opt-psmr", ExecutionMode.OPT_PSMR, 2));
        System.out.println("technique,K,dep_pct,mode,commands,executed_kcps_median,kcps_min,kcps_max,ratio_to_smr_median,fail_rate,fails,sync_cmds,per_thread,tree_keys,init,rounds");
        for (int dep : deps) {
            List<byte[]> log = workload(new SplittableRandom(1000 + dep), commands, dep / 100.0, keySpace);
            for (Config c : configs) run(c, log, tree, partitioning); // warm-up (JIT, heap)
            // Rounds run every technique once, back to back, so a ratio compares runs that saw the same
            // background load (the machine is shared): the ratio's median is steadier than the rates'.
            List<List<Run>> byConfig = new ArrayList<>();
            List<List<Double>> ratios = new ArrayList<>();
            for (int i = 0; i < configs.size(); i++) {
                byConfig.add(new ArrayList<>());
                ratios.add(new ArrayList<>());
            }
            for (int round = 0; round < reps; round++) {
                Run base = null;
                for (int i = 0; i < configs.size(); i++) {
                    Run run = run(configs.get(i), log, tree, partitioning);
                    if (i == 0) base = run;
                    byConfig.get(i).add(run);
                    ratios.get(i).add(run.kcps / base.kcps);
                }
            }
            for (int i = 0; i < configs.size(); i++) {
                Config c = configs.get(i);
                List<Run> runs = byConfig.get(i);
                runs.sort((a, b) -> Double.compare(a.kcps, b.kcps));
                Run median = runs.get(runs.size() / 2);
                List<Double> rs = ratios.get(i);
                rs.sort(Double::compare);
                System.out.printf(Locale.ROOT, "%s,%d,%d,E,%d,%.1f,%.1f,%.1f,%.2f,%.4f,%d,%d,%s,%d,random-insertion,%d%n",
                        c.name, c.threads, dep, commands, median.kcps, runs.getFirst().kcps, runs.getLast().kcps, rs.get(rs.size() / 2), median.failRate, median.fails,
                        median.synchronous, median.perThread, keys, reps);
                System.out.flush();
            }
        }
    }

    /** Reads (a compare-and-set that changes nothing) and, for the dependent share, puts and deletes 50/50; {@link PsmrModelBench} models the same log. */
    static List<byte[]> workload(SplittableRandom r, int n, double dependent, long keySpace) {
        List<byte[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] k = key(r.nextLong(keySpace));
            KvCommand c;
            if (r.nextDouble() >= dependent) c = new KvCommand.CompareAndSet(k, null, null);
            else if (r.nextBoolean()) c = new KvCommand.Put(k, value(i));
            else c = new KvCommand.Delete(k);
            out.add(CODEC.encode(c));
        }
        return out;
    }

    private static Run run(Config c, List<byte[]> commands, byte[] tree, KeyPartitioning partitioning) throws IOException {
        KvStateMachine m = new KvStateMachine(KvLimits.DEFAULTS, 31, partitioning);
        m.restore(new ByteArrayInputStream(tree));
        List<byte[]> resent = new ArrayList<>();
        long[] executed = {0};
        ExecutionListener listener = new ExecutionListener() {
            @Override
            public void executed(Committed entry, Outcome outcome) {
                executed[0]++;
            }

            @Override
            public void readAnswered(long requestId, byte[] result, RuntimeException error) {}

            @Override
            public void resubmit(byte[] taggedCommand) {
                resent.add(taggedCommand);
            }
        };
        Executor x = c.mode == ExecutionMode.SEQUENTIAL
                ? new SequentialExecutor(m, listener, ExecutorFactory.Limits.DEFAULTS)
                : new ParallelExecutor(m, listener, ExecutorFactory.Limits.DEFAULTS, ParallelOptions.of(c.mode, c.threads));
        List<Committed> log = new ArrayList<>(commands.size());
        for (byte[] b : commands) log.add(new Committed(log.size() + 1, ORIGIN, log.size() + 1, Session.NONE, b));
        System.gc();
        long start = System.nanoTime();
        for (Committed e : log) x.apply(e);
        x.flush();
        long next = log.size() + 1;
        while (!resent.isEmpty()) { // the conservative copies, ordered after everything else
            List<byte[]> copies = new ArrayList<>(resent);
            resent.clear();
            for (byte[] b : copies) x.apply(new Committed(next, ORIGIN, next++, Session.NONE, b));
            x.flush();
        }
        long nanos = System.nanoTime() - start;
        long commandsRun = commands.size();
        Run result;
        if (x instanceof ParallelExecutor p) {
            StringBuilder per = new StringBuilder();
            for (int i = 0; i < c.threads; i++) per.append(i == 0 ? "" : "/").append(p.stats().executed(i));
            result = new Run(commandsRun / (nanos / 1e6), p.stats().failRate(), commandsRun, p.stats().failed(), p.stats().synchronous(), per.toString());
            p.close();
        } else {
            result = new Run(commandsRun / (nanos / 1e6), 0, commandsRun, 0, 0, Long.toString(commandsRun));
        }
        return result;
    }

    private static byte[] key(long k) {
        return ByteBuffer.allocate(8).putLong(k).array();
    }

    private static byte[] value(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }
}
