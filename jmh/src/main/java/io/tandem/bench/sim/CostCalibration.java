package io.tandem.bench.sim;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.codec.CodecIds;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.ProtocolMessage;
import io.tandem.kv.KvCodec;
import io.tandem.kv.KvCommand;
import io.tandem.kv.KvStateMachine;
import io.tandem.protocols.Protocols;
import io.tandem.sim.SimBench;
import io.tandem.sim.cost.CostTable;
import io.tandem.sim.cost.Distribution;
import io.tandem.transport.Endpoint;
import io.tandem.transport.TransportListener;
import io.tandem.transport.TransportSetup;
import io.tandem.transport.tcp.TcpTransport;
import io.tandem.transport.tcp.TcpTransportConfig;
import java.io.IOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Calibrates the simulator's cost table on this machine (issue 18, DESIGN §8.5) and writes it with
 * the date, the machine and its load. Every number is measured from the real code; nothing is set
 * by hand. What is measured, and how:
 *
 * <ul>
 *   <li><b>engine handlers</b>: the real Raft, MultiPaxos and unreplicated engines run in the
 *       simulator under 16 closed-loop clients, every handler timed (wall clock, median per event
 *       and message type, after a first run that warms the JIT), with the message's encoded size for a per-byte slope;</li>
 *   <li><b>codec</b>: Kryo encode and decode of a registered message of 64 and 1024 payload bytes,
 *       thread CPU time per operation;</li>
 *   <li><b>transport</b>: two real TCP transports on loopback in this JVM: one-way messages with a
 *       window, CPU time of the process minus the sending thread per message (the I/O threads'
 *       work, both sides), and a ping-pong for the round-trip distribution;</li>
 *   <li><b>state machine</b>: the shipped sequential executor over the KV state machine, thread CPU
 *       time per 64-byte put on 10,000 keys (what {@code ExecutionStageBenchmark} measures, without
 *       the thread hand-off whose wall time on a shared machine is the load);</li>
 *   <li><b>disk</b>: JMH {@code NodeStorageAppendBenchmark} in sample-time mode: one 128-byte record
 *       appended and fsynced through the real storage (the flush distribution), and batches of 64
 *       records of 1 KiB (the write bandwidth from the difference);</li>
 *   <li><b>load</b>: {@code /proc/loadavg} before and after, and the CPU pressure if the kernel reports it.</li>
 * </ul>
 *
 * Usage: {@code jmh/run-simcalibrate.sh [--out FILE] [--quick]}.
 */
public final class CostCalibration {
    private CostCalibration() {}

    /** A message for the codec and transport measurements. */
    public record Probe(long requestId, boolean echo, byte[] payload) implements ProtocolMessage {}

    public static void main(String[] args) throws Exception {
        Path out = null;
        Path diskOnlyBase = null;
        Path latenciesBase = null;
        Path applyOnlyBase = null;
        Path handoffBase = null;
        Path handlersBase = null;
        List<String[]> handlerRuns = new ArrayList<>();
        Path burstBase = null;
        Path syncCpuDir = null;
        String stateMachine = "btree";
        Path timersBase = null;
        String timersDeployment = null;
        int timersNodes = 0;
        int timersClients = 1024;
        double timersReadShare = 0;
        int timersRecordRounds = 1;
        List<String> timerNames = new ArrayList<>();
        Map<String, String> engineOptions = new java.util.LinkedHashMap<>();
        int repeat = 3;
        boolean quick = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> out = Path.of(args[++i]);
                case "--quick" -> quick = true;
                case "--disk-only" -> diskOnlyBase = Path.of(args[++i]);
                case "--latencies" -> latenciesBase = Path.of(args[++i]);
                case "--repeat" -> repeat = Integer.parseInt(args[++i]);
                case "--apply-only" -> applyOnlyBase = Path.of(args[++i]);
                case "--handoff" -> handoffBase = Path.of(args[++i]);
                case "--handlers" -> handlersBase = Path.of(args[++i]);
                case "--run" -> {
                    String[] nn = args[++i].split(":", 2);
                    if (nn.length != 2) throw new IllegalArgumentException("--run wants NAME:NODES, got " + args[i]);
                    handlerRuns.add(nn);
                }
                case "--transport-burst" -> burstBase = Path.of(args[++i]);
                case "--sync-cpu" -> syncCpuDir = Path.of(args[++i]);
                case "--state-machine" -> stateMachine = args[++i];
                case "--timers" -> timersBase = Path.of(args[++i]);
                case "--deployment" -> timersDeployment = args[++i];
                case "--nodes" -> timersNodes = Integer.parseInt(args[++i]);
                case "--clients" -> timersClients = Integer.parseInt(args[++i]);
                case "--timer" -> timerNames.add(args[++i]);
                case "--read-share" -> timersReadShare = Double.parseDouble(args[++i]);
                case "--record-rounds" -> timersRecordRounds = Integer.parseInt(args[++i]);
                case "--engine-option" -> {
                    String[] kv = args[++i].split("=", 2);
                    if (kv.length != 2) throw new IllegalArgumentException("--engine-option wants KEY=VALUE, got " + args[i]);
                    engineOptions.put(kv[0], kv[1]);
                }
                case "--help", "-h" -> {
                    System.out.println("usage: CostCalibration [--out FILE] [--quick] [--disk-only BASE_TABLE] [--latencies BASE_TABLE [--repeat N]]"
                            + " [--apply-only BASE_TABLE --state-machine btree|hashmap [--repeat N]] [--handoff BASE_TABLE [--repeat N]]"
                            + " [--transport-burst BASE_TABLE [--repeat N]] [--handlers BASE_TABLE --run NAME:NODES [--run NAME:NODES...]]"
                            + " [--timers BASE_TABLE --deployment FILE --nodes N [--clients C] [--read-share S] [--record-rounds R] --timer NAME|'*'... [--engine-option KEY=VALUE...]]");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        String date = DateTimeFormatter.ISO_INSTANT.format(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        if (out == null) out = Path.of("jmh/results/sim-costs-" + DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC).format(Instant.now()) + ".properties");
        if (diskOnlyBase != null) {
            diskOnly(diskOnlyBase, out, quick, date);
            return;
        }
        if (applyOnlyBase != null) {
            if (repeat < 1) throw new IllegalArgumentException("--repeat must be >= 1");
            applyOnly(applyOnlyBase, out, stateMachine, quick, repeat, date);
            return;
        }
        if (latenciesBase != null) {
            if (repeat < 1) throw new IllegalArgumentException("--repeat must be >= 1");
            latencies(latenciesBase, out, quick, repeat, date);
            return;
        }
        if (syncCpuDir != null) {
            syncCpu(syncCpuDir, quick);
            return;
        }
        if (burstBase != null) {
            if (repeat < 1) throw new IllegalArgumentException("--repeat must be >= 1");
            burstOnly(burstBase, out, quick, repeat, date);
            return;
        }
        if (timersBase != null) {
            if (timersDeployment == null || timersNodes < 1 || timerNames.isEmpty()) throw new IllegalArgumentException("--timers needs --deployment FILE, --nodes N and at least one --timer NAME");
            timersOnly(timersBase, out, timersDeployment, timersNodes, timersClients, timersReadShare, timersRecordRounds, timerNames, engineOptions, quick, date);
            return;
        }
        if (handlersBase != null) {
            if (handlerRuns.isEmpty()) throw new IllegalArgumentException("--handlers needs at least one --run NAME:NODES");
            handlersOnly(handlersBase, out, handlerRuns, quick, date);
            return;
        }
        if (handoffBase != null) {
            if (repeat < 1) throw new IllegalArgumentException("--repeat must be >= 1");
            handoffOnly(handoffBase, out, quick, repeat, date);
            return;
        }
        TreeMap<String, String> t = new TreeMap<>();
        t.put("meta.date", date);
        t.put("meta.host", InetAddress.getLocalHost().getHostName());
        t.put("meta.cpu", cpuModel());
        t.put("meta.cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        t.put("meta.java", System.getProperty("java.vm.name") + " " + Runtime.version());
        t.put("meta.load.before", loadavg());
        t.put("meta.cpu-pressure.before", pressure());
        t.put("meta.command", "jmh/run-simcalibrate.sh" + (quick ? " --quick" : ""));

        Map<String, String> handlers = handlers(quick);
        t.putAll(handlers);
        log("handlers: " + handlers.size() + " entries");

        long[] codec = codec(quick);
        t.put("codec.encode.ns", Long.toString(codec[0]));
        t.put("codec.encode.perByte", fmt(codec[1] / 1000.0));
        t.put("codec.decode.ns", Long.toString(codec[2]));
        t.put("codec.decode.perByte", fmt(codec[3] / 1000.0));
        t.put("meta.source.codec", "Kryo encode/decode of a registered record with 64 and 1024 payload bytes, thread CPU time per op (per-byte from the difference)");
        log("codec: " + Arrays.toString(codec));

        Transport tr = transport(quick, codec);
        t.put("transport.send.ns", Long.toString(tr.sendNs));
        t.put("transport.receive.ns", Long.toString(tr.receiveNs));
        t.put("transport.perByte", fmt(tr.perByte));
        t.put("net.oneway", tr.oneway.format());
        t.put("meta.source.transport", "two TcpTransports on 127.0.0.1 in one JVM, 1 I/O thread each: CPU time of the process minus the sending thread per one-way message "
                + "(both I/O threads, codec included; half charged to each side, codec subtracted), 64 and 1024 B; round trips of a ping-pong ("
                + tr.roundTrips + " samples, median " + tr.rttMedianNs + " ns) less the CPU charged on the way, halved, give net.oneway");
        log("transport: send " + tr.sendNs + " receive " + tr.receiveNs + " oneway " + tr.oneway.format());
        stalls(tr.onewaySamples, tr.pingPongNanos, t);
        t.put("net.windowBytes", Long.toString(windowBytes()));
        TcpTransportConfig outbox = TcpTransportConfig.defaults();
        t.put("net.outbox.highMessages", Integer.toString(outbox.outboundHighWaterMessages()));
        t.put("net.outbox.lowMessages", Integer.toString(outbox.outboundLowWaterMessages()));
        t.put("net.outbox.highBytes", Long.toString(outbox.outboundHighWaterBytes()));
        t.put("net.outbox.lowBytes", Long.toString(outbox.outboundLowWaterBytes()));
        t.put("meta.source.window", "net.windowBytes: a loopback TCP connection carried 64 MiB with its reader reading, then its reader stopped and its writer wrote "
                + "without blocking until the kernel took nothing more for 200 ms (tcp_wmem " + sysctl("tcp_wmem") + ", tcp_rmem " + sysctl("tcp_rmem") + "); net.outbox.*: TcpTransportConfig.defaults()");

        long wakeup = wakeup(quick);
        t.put("wakeup.ns", Long.toString(wakeup));
        t.put("meta.source.wakeup", "two platform threads handing a token back and forth with LockSupport.park/unpark: process CPU time per hand-off");
        log("wakeup: " + wakeup);
        handoff(t, quick, 1, date);

        // The KV server's own work around a client request and its reply: the same transport and codec work, for a request of the put's size.
        long commandBytes = commandBytes();
        t.put("workload.commandBytes", Long.toString(commandBytes));
        long request = tr.receiveNs + codec[2] + Math.round(codec[3] / 1000.0 * commandBytes);
        long reply = tr.sendNs + codec[0];
        t.put("client.request.ns", Long.toString(request));
        t.put("client.reply.ns", Long.toString(reply));
        t.put("client.op.ns", Long.toString(tr.sendNs + tr.receiveNs + codec[0] + codec[2] + Math.round(codec[1] / 1000.0 * commandBytes)));
        t.put("meta.source.client", "derived from the transport and codec numbers for a message of workload.commandBytes (the KV put's encoded size): request = receive + decode, reply = send + encode, client.op = both sides");

        double[] jmh = jmh(quick);
        t.put("apply.ns", Long.toString(Math.round(jmh[0])));
        t.put("meta.source.apply", "SequentialExecutor over KvStateMachine, 64 B puts on 10,000 keys, 16 sessions, thread CPU time per put (not JMH: wall time on this shared machine measures the load)");
        t.put("disk.fsync", Distribution.parse(percentiles(jmh)).format());
        t.put("disk.bytesPerSecond", jmh[jmh.length - 1] > 0 ? Long.toString(Math.round(jmh[jmh.length - 1])) : "0");
        t.put("meta.source.disk", "JMH NodeStorageAppendBenchmark (real NodeStorage, FSYNC, in " + System.getProperty("tandem.bench.dir", System.getProperty("java.io.tmpdir"))
                + "): sample time of one 128-byte record appended and synced = disk.fsync; 64 x 1 KiB batches vs 1 x 1 KiB = disk.bytesPerSecond");
        t.put("meta.load.after", loadavg());
        t.put("meta.cpu-pressure.after", pressure());
        CostTable table = CostTable.of(t); // validates
        Files.createDirectories(out.toAbsolutePath().getParent());
        try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            table.write(w, "Tandem simulator cost table, calibrated " + date + " on " + t.get("meta.host") + " (" + t.get("meta.cpu") + ", " + t.get("meta.cores")
                    + " cores), load before " + t.get("meta.load.before") + ", after " + t.get("meta.load.after") + ".\nWritten by io.tandem.bench.sim.CostCalibration; do not edit by hand.");
        }
        System.out.println("wrote " + out);
    }

    /**
     * {@code --disk-only BASE}: the base table with only {@code disk.fsync} and {@code disk.bytesPerSecond}
     * re-measured (in {@code tandem.bench.dir}), e.g. to model the storage another benchmark used.
     */
    private static void diskOnly(Path base, Path out, boolean quick, String date) throws Exception {
        TreeMap<String, String> t = new TreeMap<>(CostTable.read(base).values());
        String before = loadavg();
        double[] jmh = jmh(quick);
        t.put("disk.fsync", Distribution.parse(percentiles(jmh)).format());
        t.put("disk.bytesPerSecond", jmh[jmh.length - 1] > 0 ? Long.toString(Math.round(jmh[jmh.length - 1])) : "0");
        String dir = System.getProperty("tandem.bench.dir", System.getProperty("java.io.tmpdir"));
        t.put("meta.disk.date", date);
        t.put("meta.disk.load", "before " + before + ", after " + loadavg());
        t.put("meta.source.disk", "JMH NodeStorageAppendBenchmark (real NodeStorage, FSYNC, in " + dir
                + "): sample time of one 128-byte record appended and synced = disk.fsync; 64 x 1 KiB batches vs 1 x 1 KiB = disk.bytesPerSecond; re-measured "
                + date + " over base table " + base.getFileName());
        CostTable table = CostTable.of(t);
        try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            table.write(w, "Tandem simulator cost table: " + base.getFileName() + " with the disk re-measured in " + dir + " " + date + " (load "
                    + t.get("meta.disk.load") + ").\nWritten by io.tandem.bench.sim.CostCalibration --disk-only; do not edit by hand.");
        }
        System.out.println("wrote " + out + ": disk.fsync=" + t.get("disk.fsync"));
    }

    /**
     * {@code --apply-only BASE --state-machine KIND [--repeat N]}: the base table with {@code apply.ns} for another KV
     * state machine ({@code hashmap}: {@link io.tandem.kv.HashKvStateMachine}, the Compartmentalization paper's hash map;
     * issue 21). Both machines are measured here, alternately ({@code N} pairs, kv first, then N pairs in the other
     * order), with the same commands as {@code apply.ns} ({@link #apply}); the table charges the base table's
     * {@code apply.ns} times the median ratio KIND / btree of this run, so it stays on the base table's machine
     * (every other cost in it was measured there) while the ratio is measured, not assumed. The absolute medians of
     * this machine go into the {@code meta.apply.*} lines.
     */
    private static void applyOnly(Path base, Path out, String kind, boolean quick, int repeat, String date) throws Exception {
        java.util.function.Supplier<io.tandem.statemachine.StateMachine> other = switch (kind) {
            case "hashmap" -> io.tandem.kv.HashKvStateMachine::new;
            case "btree" -> KvStateMachine::new;
            default -> throw new IllegalArgumentException("--state-machine must be btree or hashmap, was " + kind);
        };
        CostTable baseTable = CostTable.read(base);
        TreeMap<String, String> t = new TreeMap<>(baseTable.values());
        String before = loadavg();
        List<Double> btree = new ArrayList<>(), measured = new ArrayList<>(), ratios = new ArrayList<>();
        for (int i = 0; i < 2 * repeat; i++) {
            double a, b;
            if (i < repeat) {
                a = apply(quick, KvStateMachine::new);
                b = apply(quick, other);
            } else { // the other order too, so a JIT or machine drift during the run does not favour one
                b = apply(quick, other);
                a = apply(quick, KvStateMachine::new);
            }
            btree.add(a);
            measured.add(b);
            ratios.add(b / a);
            log(String.format(Locale.ROOT, "apply pair %d: btree %.0f ns, %s %.0f ns", i + 1, a, kind, b));
        }
        double ratio = medianOf(ratios);
        double baseApply = Double.parseDouble(t.get("apply.ns"));
        long charged = Math.round(baseApply * ratio);
        t.put("apply.ns", Long.toString(charged));
        t.put("meta.apply.date", date);
        t.put("meta.apply.host", InetAddress.getLocalHost().getHostName() + " (" + cpuModel() + ", " + Runtime.getRuntime().availableProcessors() + " cores)");
        t.put("meta.apply.load", "before " + before + ", after " + loadavg());
        t.put("meta.apply.measured", String.format(Locale.ROOT, "%s median %.0f ns, btree median %.0f ns, ratio median %.3f over %d pairs; btree %s; %s %s",
                kind, medianOf(measured), medianOf(btree), ratio, ratios.size(), btree.stream().map(v -> Long.toString(Math.round(v))).toList(),
                kind, measured.stream().map(v -> Long.toString(Math.round(v))).toList()));
        t.put("meta.source.apply", "CostCalibration --apply-only --state-machine " + kind + ": base apply.ns " + Math.round(baseApply) + " (" + base.getFileName()
                + ") x the measured ratio " + String.format(Locale.ROOT, "%.3f", ratio) + " = " + charged + " ns; thread CPU time per 64-byte put through SequentialExecutor and its session table, "
                + date);
        CostTable table = CostTable.of(t);
        try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            table.write(w, "Tandem simulator cost table: " + base.getFileName() + " with apply.ns for the " + kind + " KV state machine, measured " + date + " on "
                    + t.get("meta.apply.host") + " (load " + t.get("meta.apply.load") + ").\nWritten by io.tandem.bench.sim.CostCalibration --apply-only; do not edit by hand.");
        }
        System.out.println("wrote " + out + ": apply.ns=" + charged + " (" + t.get("meta.apply.measured") + ")");
    }

    private static double medianOf(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /**
     * {@code --latencies BASE [--repeat N]}: the base table with only the two wall-clock latencies re-measured,
     * {@code disk.fsync} (and {@code disk.bytesPerSecond}) and {@code net.oneway}, each {@code N} times (JMH forks for the
     * disk, fresh transport pairs for the loopback), so the spread between repetitions is on record
     * ({@code meta.latencies.run.K}). The table's distributions pool the samples of all repetitions. The CPU costs stay
     * the base table's: they are CPU time, which the machine's load barely moves, while the latencies are wall clock and
     * carry whatever else runs (issue 18: the first tables' fsync tail was measured at load 29-36). The one-way
     * latency subtracts the base table's own CPU charges for the hop, which the model adds back.
     */
    private static void latencies(Path base, Path out, boolean quick, int repeat, String date) throws Exception {
        CostTable baseTable = CostTable.read(base);
        TreeMap<String, String> t = new TreeMap<>(baseTable.values());
        String before = loadavg();
        String pressureBefore = pressure();
        String cgroup = cgroup();
        int wi = quick ? 1 : 2;
        int mi = quick ? 2 : 4;
        Options fsync = new OptionsBuilder().include("io.tandem.jmh.storage.NodeStorageAppendBenchmark.appendBatchAndAwaitDurableLatency$")
                .param("recordBytes", "128").param("batchSize", "1").param("flush", "FSYNC")
                .mode(org.openjdk.jmh.annotations.Mode.SampleTime).timeUnit(TimeUnit.NANOSECONDS)
                .forks(repeat).warmupIterations(wi).measurementIterations(mi).warmupTime(TimeValue.seconds(1)).measurementTime(TimeValue.seconds(quick ? 1 : 2)).build();
        RunResult fr = single(new Runner(fsync).run());
        int k = 0;
        for (var fork : fr.getBenchmarkResults()) {
            var st = fork.getPrimaryResult().getStatistics();
            t.put("meta.latencies.run." + (++k) + ".disk.fsync", percentilesOf(st) + " (" + st.getN() + " samples)");
        }
        var pooled = fr.getPrimaryResult().getStatistics();
        t.put("disk.fsync", Distribution.parse(percentilesOf(pooled)).format());
        Options bw = new OptionsBuilder().include("io.tandem.jmh.storage.NodeStorageAppendBenchmark.appendBatchAndAwaitDurable$")
                .param("recordBytes", "1024").param("batchSize", "1", "64").param("flush", "FSYNC")
                .mode(org.openjdk.jmh.annotations.Mode.AverageTime).timeUnit(TimeUnit.NANOSECONDS)
                .forks(1).warmupIterations(wi).measurementIterations(mi).warmupTime(TimeValue.seconds(1)).measurementTime(TimeValue.seconds(1)).build();
        Map<String, Double> byBatch = new HashMap<>();
        for (RunResult r : new Runner(bw).run()) byBatch.put(r.getParams().getParam("batchSize"), r.getPrimaryResult().getScore());
        double extra = byBatch.getOrDefault("64", 0.0) - byBatch.getOrDefault("1", 0.0);
        if (extra > 0) t.put("disk.bytesPerSecond", Long.toString(Math.round(63 * 1024 * 1e9 / extra)));
        log("disk: " + t.get("disk.fsync"));

        // The CPU the model charges on a 64-byte one-way hop: subtracted from half a round trip.
        long cpuOneWay = baseTable.sendCost(64) + baseTable.receiveCost(64) + baseTable.encodeCost(null, 64) + baseTable.decodeCost(null, 64);
        int rounds = quick ? 5_000 : 20_000;
        long[] all = new long[rounds * repeat];
        long pingPongNanos = 0;
        for (int r = 0; r < repeat; r++) {
            long[] rtt = pingPong(rounds);
            for (long x : rtt) pingPongNanos += x;
            long[] oneway = new long[rounds];
            for (int i = 0; i < rounds; i++) oneway[i] = Math.max(1_000, rtt[i] / 2 - cpuOneWay);
            System.arraycopy(oneway, 0, all, r * rounds, rounds);
            t.put("meta.latencies.run." + (r + 1) + ".net.oneway", Distribution.ofSamples(oneway).format() + " (" + rounds + " round trips)");
        }
        t.put("net.oneway", Distribution.ofSamples(all).format());
        log("net: " + t.get("net.oneway"));
        stalls(all, pingPongNanos, t);
        log("net stalls: " + t.get("net.stall.perSecond") + " per second per endpoint, " + t.get("net.stall") + "; base " + t.get("net.base"));
        long[] windows = new long[3];
        for (int i = 0; i < windows.length; i++) windows[i] = windowBytes();
        Arrays.sort(windows);
        t.put("net.windowBytes", Long.toString(windows[1]));
        t.put("meta.source.window", "a loopback TCP connection (java.nio, default socket options, as Netty's) carried 64 MiB with its reader reading, "
                + "then its reader stopped and its writer wrote without blocking until the kernel took nothing more for 200 ms: the bytes it took = net.windowBytes "
                + "(median of 3: " + Arrays.toString(windows) + "; tcp_wmem " + sysctl("tcp_wmem") + ", tcp_rmem " + sysctl("tcp_rmem") + "); measured " + date);
        TcpTransportConfig tc = TcpTransportConfig.defaults();
        t.put("net.outbox.highMessages", Integer.toString(tc.outboundHighWaterMessages()));
        t.put("net.outbox.lowMessages", Integer.toString(tc.outboundLowWaterMessages()));
        t.put("net.outbox.highBytes", Long.toString(tc.outboundHighWaterBytes()));
        t.put("net.outbox.lowBytes", Long.toString(tc.outboundLowWaterBytes()));
        t.put("meta.source.outbox", "net.outbox.*: the per-peer outbound queue bounds of TcpTransportConfig.defaults() (configuration, not measured)");

        String dir = System.getProperty("tandem.bench.dir", System.getProperty("java.io.tmpdir"));
        t.put("meta.latencies.date", date);
        t.put("meta.latencies.load", "before " + before + ", after " + loadavg());
        t.put("meta.latencies.cpu-pressure", "before " + pressureBefore + "; after " + pressure());
        t.put("meta.latencies.cgroup", cgroup);
        t.put("meta.latencies.base", base.getFileName().toString());
        t.put("meta.source.disk", "JMH NodeStorageAppendBenchmark (real NodeStorage, FSYNC, in " + dir + "): sample time of one 128-byte record appended and synced, "
                + repeat + " forks pooled = disk.fsync (per fork: meta.latencies.run.K.disk.fsync); 64 x 1 KiB batches vs 1 x 1 KiB = disk.bytesPerSecond; measured " + date);
        t.put("meta.source.net", "ping-pong of 64-byte messages between two TcpTransports on 127.0.0.1 in one JVM (1 I/O thread each), " + repeat + " fresh pairs of "
                + rounds + " round trips after 2,000 of warm-up, pooled: half of each round trip less the base table's CPU for the hop (" + cpuOneWay
                + " ns: send, receive, encode, decode of 64 B) = net.oneway (per pair: meta.latencies.run.K.net.oneway); measured " + date);
        CostTable table = CostTable.of(t);
        Files.createDirectories(out.toAbsolutePath().getParent());
        try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            table.write(w, "Tandem simulator cost table: " + base.getFileName() + " with the disk and loopback latencies re-measured " + date + " (" + repeat
                    + " repetitions, load " + t.get("meta.latencies.load") + ", cgroup " + cgroup + ").\nWritten by io.tandem.bench.sim.CostCalibration --latencies; do not edit by hand.");
        }
        System.out.println("wrote " + out + ": disk.fsync=" + t.get("disk.fsync") + " net.oneway=" + t.get("net.oneway"));
    }

    /**
     * Splits the loopback one-way samples into a per-message latency and stalls (issue 18, docs/perfsim.md): the samples
     * up to the 99th percentile are the per-message latency ({@code net.base}); each sample above it is one stall of a
     * thread on the way, an event in time: in a ping-pong one message is in flight at a time, so every stall of either
     * endpoint in the measured time delays exactly one round trip by its whole length, which shows as half of it in
     * the one-way sample. So a stall lasts twice the sample's excess over the median ({@code net.stall}), and each of the
     * two endpoints stalls (samples above p99) / (measured seconds) / 2 times per second ({@code net.stall.perSecond}).
     */
    private static void stalls(long[] oneway, long measuredNanos, Map<String, String> t) {
        long[] sorted = oneway.clone();
        Arrays.sort(sorted);
        long cutoff = sorted[(int) Math.round(0.99 * (sorted.length - 1))];
        long median = sorted[sorted.length / 2];
        int base = 0;
        while (base < sorted.length && sorted[base] <= cutoff) base++;
        long[] durations = new long[sorted.length - base];
        for (int i = base; i < sorted.length; i++) durations[i - base] = 2 * (sorted[i] - median);
        t.put("net.base", Distribution.ofSamples(Arrays.copyOf(sorted, base)).format());
        if (durations.length == 0) {
            t.put("net.stall.perSecond", "0");
            t.put("net.stall", "0");
        } else {
            t.put("net.stall", Distribution.ofSamples(durations).format());
            t.put("net.stall.perSecond", fmt(durations.length / (measuredNanos / 1e9) / 2));
        }
        t.put("meta.source.stalls", "net.base = the loopback one-way samples up to their p99 (" + cutoff + " ns); net.stall = 2 x (sample - median " + median
                + " ns) of the " + durations.length + " samples above it; net.stall.perSecond = that count / " + fmt(measuredNanos / 1e9)
                + " s of ping-pong / 2 endpoints (one message in flight: each stall of either endpoint delays one round trip)");
    }

    /** Bytes a loopback TCP connection holds when its reader stops (socket send buffer + receive buffer, after autotuning). */
    private static long windowBytes() throws Exception {
        try (java.nio.channels.ServerSocketChannel server = java.nio.channels.ServerSocketChannel.open()) {
            server.bind(new java.net.InetSocketAddress("127.0.0.1", 0));
            try (java.nio.channels.SocketChannel writer = java.nio.channels.SocketChannel.open(server.getLocalAddress());
                 java.nio.channels.SocketChannel reader = server.accept()) {
                writer.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
                long warm = 64L << 20;
                Thread r = Thread.ofPlatform().start(() -> {
                    java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(64 << 10);
                    long got = 0;
                    try {
                        while (got < warm) {
                            buf.clear();
                            int n = reader.read(buf);
                            if (n < 0) return;
                            got += n;
                        }
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                java.nio.ByteBuffer chunk = java.nio.ByteBuffer.allocate(16 << 10);
                for (long sent = 0; sent < warm; ) {
                    chunk.clear().limit((int) Math.min(chunk.capacity(), warm - sent));
                    sent += writer.write(chunk);
                }
                r.join();
                writer.configureBlocking(false);
                long taken = 0;
                long idleSince = System.nanoTime();
                while (System.nanoTime() - idleSince < TimeUnit.MILLISECONDS.toNanos(200)) {
                    chunk.clear();
                    int n = writer.write(chunk);
                    if (n > 0) {
                        taken += n;
                        idleSince = System.nanoTime();
                    } else {
                        Thread.sleep(1);
                    }
                }
                return taken;
            }
        }
    }

    private static String sysctl(String name) {
        try {
            // A stream, not Files.readString: procfs reports a size of 0 and readString returned only the first byte here.
            try (java.io.InputStream in = Files.newInputStream(Path.of("/proc/sys/net/ipv4/" + name))) {
                return new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim().replaceAll("\\s+", " ");
            }
        } catch (IOException e) {
            return "?";
        }
    }

    private static String percentilesOf(org.openjdk.jmh.util.Statistics st) {
        double[] v = new double[PERCENTILES.length + 1];
        for (int i = 0; i < PERCENTILES.length; i++) v[i + 1] = PERCENTILES[i] == 0 ? st.getMin() : PERCENTILES[i] == 100 ? st.getMax() : st.getPercentile(PERCENTILES[i]);
        return percentiles(v);
    }

    private static String cgroup() {
        try {
            return Files.readAllLines(Path.of("/proc/self/cgroup")).stream().filter(l -> l.contains(":cpu,") || l.contains(":cpu:") || l.startsWith("0::"))
                    .findFirst().orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    // ---- engine handlers, timed in the simulator ----

    /** The engines (name, nodes) whose handlers the full calibration times. */
    private static final String[][] HANDLER_RUNS = {{"raft", "3"}, {"raft", "5"}, {"multipaxos", "3"}, {"unreplicated", "1"}};

    private static Map<String, String> handlers(boolean quick) {
        Map<String, List<long[]>> samples = new TreeMap<>();
        for (Map<String, List<long[]>> perRun : handlerSamples(HANDLER_RUNS, quick)) {
            perRun.forEach((k, v) -> samples.computeIfAbsent(k, x -> new ArrayList<>()).addAll(v));
        }
        return handlerCosts(samples);
    }

    /**
     * Every handler of each run timed in the simulator (wall clock), keyed {@code loop.message.<Type>} or
     * {@code loop.<kind>}, one map per run: two rounds over all runs, the second recorded (the first warms the JIT).
     */
    private static List<Map<String, List<long[]>>> handlerSamples(String[][] runs, boolean quick) {
        List<Map<String, List<long[]>>> all = new ArrayList<>();
        for (String[] ignored : runs) all.add(new TreeMap<>());
        for (int round = 0; round < 2; round++) {
            boolean record = round == 1; // the first round warms the JIT up
            for (int i = 0; i < runs.length; i++) {
                Protocol p = Protocols.byName(runs[i][0]);
                Map<String, List<long[]>> samples = all.get(i);
                SimBench.Config c = SimBench.Config.of(Integer.parseInt(runs[i][1]), 16).withTimeline(SimBench.Config.of(1, 1).warmupNanos(), 0, quick ? 500_000_000L : 2_000_000_000L);
                SimBench.run(p, c, CostTable.uncalibrated().with("loop.default.ns", "2000").with("apply.ns", "2000"), (kind, type, bytes, wall) -> {
                    if (!record) return;
                    String key = "message".equals(kind) ? "loop.message." + type : "loop." + kind;
                    samples.computeIfAbsent(key, k -> new ArrayList<>()).add(new long[] {bytes, wall});
                });
            }
        }
        return all;
    }

    private static Map<String, String> handlerCosts(Map<String, List<long[]>> samples) {
        Map<String, String> out = new TreeMap<>();
        List<Long> messageMedians = new ArrayList<>();
        List<Long> otherMedians = new ArrayList<>();
        for (Map.Entry<String, List<long[]>> e : samples.entrySet()) {
            List<long[]> s = e.getValue();
            if (s.size() < 50) continue; // too few to say anything; the default applies
            long[] ns = s.stream().mapToLong(x -> x[1]).sorted().toArray();
            long median = ns[ns.length / 2];
            out.put(e.getKey() + ".ns", Long.toString(median));
            if (e.getKey().startsWith("loop.message.")) {
                messageMedians.add(median);
                double slope = slope(s);
                if (slope > 0) {
                    // Keep the fixed part such that the median-size message still costs the median.
                    long[] bytes = s.stream().mapToLong(x -> x[0]).sorted().toArray();
                    long fixed = Math.max(0, median - Math.round(slope * bytes[bytes.length / 2]));
                    out.put(e.getKey() + ".ns", Long.toString(fixed));
                    out.put(e.getKey() + ".perByte", fmt(slope));
                }
            } else {
                otherMedians.add(median);
            }
            out.put("meta.samples." + e.getKey().substring(5), Integer.toString(s.size()));
        }
        if (messageMedians.isEmpty()) return out;
        out.put("loop.message.default.ns", Long.toString(median(messageMedians)));
        out.put("loop.default.ns", Long.toString(median(otherMedians)));
        out.put("meta.source.loop", "wall time of each real engine handler (raft 3 and 5 nodes, multipaxos, unreplicated) run in the simulator under 16 closed-loop clients; "
                + "median per event kind and message type of a second run (the first warms the JIT); per-byte slope from the upper and lower halves by size; "
                + "message defaults = median of the types' medians");
        return out;
    }

    /** Slope of time over bytes between the lower and upper halves by size (medians of each), or 0. */
    private static double slope(List<long[]> s) {
        long[][] sorted = s.stream().sorted((a, b) -> Long.compare(a[0], b[0])).toArray(long[][]::new);
        int half = sorted.length / 2;
        long[][] lo = Arrays.copyOfRange(sorted, 0, half);
        long[][] hi = Arrays.copyOfRange(sorted, half, sorted.length);
        double bLo = medianOf(lo, 0);
        double bHi = medianOf(hi, 0);
        if (bHi - bLo < 64) return 0; // sizes barely vary: no slope to see
        double slope = (medianOf(hi, 1) - medianOf(lo, 1)) / (bHi - bLo);
        return Math.max(0, slope);
    }

    private static double medianOf(long[][] rows, int column) {
        long[] v = Arrays.stream(rows).mapToLong(r -> r[column]).sorted().toArray();
        return v[v.length / 2];
    }

    private static long median(List<Long> values) {
        if (values.isEmpty()) return 0;
        List<Long> s = values.stream().sorted().toList();
        return s.get(s.size() / 2);
    }

    // ---- codec ----

    private static KryoCodec probeCodec() {
        KryoCodec.Builder b = KryoCodec.builder();
        b.register(Probe.class, CodecIds.TEST_FIRST);
        return b.build();
    }

    /** {encode ns at 0 B, encode ns per KiB, decode ns at 0 B, decode ns per KiB}, from 64 and 1024 payload bytes. */
    private static long[] codec(boolean quick) {
        KryoCodec codec = probeCodec();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int n = quick ? 50_000 : 300_000;
        double[] enc = new double[2];
        double[] dec = new double[2];
        int[] sizes = {64, 1024};
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < sizes.length; i++) {
                Probe m = new Probe(1, false, new byte[sizes[i]]);
                byte[] wire = codec.encode(m);
                long sink = 0;
                long t0 = threads.getCurrentThreadCpuTime();
                for (int k = 0; k < n; k++) sink += codec.encode(m).length;
                long t1 = threads.getCurrentThreadCpuTime();
                for (int k = 0; k < n; k++) sink += ((Probe) codec.decode(wire)).payload().length;
                long t2 = threads.getCurrentThreadCpuTime();
                if (sink == 42) System.out.print("");
                enc[i] = (t1 - t0) / (double) n;
                dec[i] = (t2 - t1) / (double) n;
            }
        }
        double encPerByte = Math.max(0, (enc[1] - enc[0]) / (sizes[1] - sizes[0]));
        double decPerByte = Math.max(0, (dec[1] - dec[0]) / (sizes[1] - sizes[0]));
        return new long[] {Math.round(Math.max(0, enc[0] - encPerByte * sizes[0])), Math.round(encPerByte * 1000),
                Math.round(Math.max(0, dec[0] - decPerByte * sizes[0])), Math.round(decPerByte * 1000)};
    }

    // ---- thread hand-off ----

    /**
     * {@code --handoff BASE [--repeat N]}: the base table with {@code handoff.latency} measured ({@link #handoff}); every
     * other number stays the base table's. Wall clock: run it through {@code /work/tools/bench}.
     */
    /**
     * Per-timer loop costs ({@code loop.timer.<name>.ns}, session 15): {@code loop.timer.ns} is one number for every
     * timer, the median of whatever timers the classic runs fired, so a 0-delay end-of-drain timer (a proxy leader's
     * announcement of the runs chosen in its drain) would be charged as much as the costliest periodic one. Here the
     * real engines of a deployment run in the simulator on the base table (as {@code HotPathProbe handlers}), every
     * timer handler is timed (wall clock, by {@link io.tandem.engine.TimerKey#costName()}), and the median of each named
     * timer of the last of four runs (the first three warm the JIT up; two with {@code --quick}), counted once 2,000 {@code Chosen} were handled (before a
     * leader is known the start-up path would dominate), is written onto the base table. Only the names asked for are
     * written; every other key of the base table stays. The name {@code *} (session 16) asks for every timer that fired at
     * least 50 times in the recorded run, so a deployment's timers are measured without listing them first; {@code
     * readShare} runs the workload with that share of linearizable reads (a read deployment's timers fire differently);
     * {@code recordRounds} (default 1) records that many runs (seeds) after the warm-up, so a timer that fires a few
     * hundred times a second gets enough samples.
     */
    private static void timersOnly(Path base, Path out, String deployment, int nodes, int clients, double readShare, int recordRounds, List<String> names, Map<String, String> options,
                                   boolean quick, String date) throws Exception {
        TreeMap<String, String> t = new TreeMap<>(CostTable.read(base).values());
        CostTable table = CostTable.of(t);
        String before = loadavg();
        Protocol p = Protocols.byName("multipaxos").withEngineOptions(options);
        p = p.withDeployment(io.tandem.roles.Deployment.read(Path.of(deployment), p.roles().orElseThrow()));
        Map<String, List<Long>> samples = new TreeMap<>();
        if (recordRounds < 1) throw new IllegalArgumentException("--record-rounds must be >= 1");
        int rounds = (quick ? 1 : 3) + recordRounds;
        for (int round = 0; round < rounds; round++) {
            boolean record = round >= rounds - recordRounds; // the rounds before warm the JIT up (a handler of a few microseconds, timed by wall clock)
            SimBench.Config c = new SimBench.Config(nodes, clients, 10_000, io.tandem.sim.SimTime.millis(10), 0, io.tandem.sim.SimTime.millis(quick ? 5 : record ? 40 : 20), 1 + round,
                    io.tandem.sim.cost.CostModel.Resources.dedicated(1), List.of()).withReadShare(readShare);
            long[] chosen = {0};
            long t0 = System.nanoTime();
            SimBench.Result r = SimBench.run(p, c, table, (kind, type, bytes, wall) -> {
                if ("Chosen".equals(type)) chosen[0]++;
                if (!record || chosen[0] < 2_000 || !"timer".equals(kind) || type == null) return;
                samples.computeIfAbsent(type, k -> new ArrayList<>()).add(wall);
            });
            log(String.format(Locale.ROOT, "timers round %d: %.0f ops/s (model), wall %.1f s", round, r.throughput(), (System.nanoTime() - t0) / 1e9));
        }
        StringBuilder found = new StringBuilder();
        List<String> written = new ArrayList<>();
        for (Map.Entry<String, List<Long>> e : samples.entrySet()) {
            long[] ns = e.getValue().stream().mapToLong(Long::longValue).sorted().toArray();
            found.append(String.format(Locale.ROOT, "%s%s: %d samples, p10 %d, median %d, p90 %d ns", found.isEmpty() ? "" : "; ", e.getKey(), ns.length,
                    ns[ns.length / 10], ns[ns.length / 2], ns[ns.length * 9 / 10]));
            boolean all = names.contains("*");
            if (!names.contains(e.getKey()) && !(all && ns.length >= 50)) continue;
            if (ns.length < 50) throw new IllegalStateException("timer " + e.getKey() + " fired only " + ns.length + " times once commands flowed; run longer");
            t.put("loop.timer." + e.getKey() + ".ns", Long.toString(ns[ns.length / 2]));
            t.put("meta.samples.timer." + e.getKey(), Integer.toString(ns.length));
            written.add(e.getKey());
        }
        for (String n : names) {
            if (n.equals("*")) continue;
            if (!t.containsKey("loop.timer." + n + ".ns")) throw new IllegalStateException("timer " + n + " never fired once commands flowed (fired: " + found + ")");
        }
        t.put("meta.timers.load", "before " + before + ", after " + loadavg());
        t.put("meta.timers.base", base.getFileName().toString());
        t.put("meta.source.timers", "loop.timer.<name>.ns: median wall time of that timer's handler, real engines of " + Path.of(deployment).getFileName() + " (" + nodes
                + " members, " + clients + " clients, read share " + readShare + ", engine options " + options + ") in the simulator on the base table, last " + recordRounds + " of " + rounds + " runs (the others warm the JIT up), from the 2,000th Chosen on; "
                + "measured " + date + "; all timers seen: " + found);
        Files.createDirectories(out.toAbsolutePath().getParent());
        try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            CostTable.of(t).write(w, "Tandem simulator cost table: " + base.getFileName() + " with loop.timer." + written + ".ns measured " + date + " (load "
                    + t.get("meta.timers.load") + ").\nWritten by io.tandem.bench.sim.CostCalibration --timers; do not edit by hand.");
        }
        System.out.println("wrote " + out + ": " + found);
    }

    /**
     * {@code --handlers BASE --run NAME:NODES [--run ...]} (session 16): the message handlers of the first run's engine
     * measured exactly as the full calibration measures Raft's, MultiPaxos' and the unreplicated engine's ({@link
     * #handlerSamples}: the real engine in the simulator under 16 closed-loop clients, wall time per handler, median per
     * message type of the second of two rounds, per-byte slope by size), for an engine the full calibration does not
     * run (Copilot). Written onto the base table: each of the first run's message types with at least 50 samples whose
     * key the base table does not hold yet. A type whose name the base table already holds (another engine's record of
     * the same simple name) is not overwritten; its median is listed in {@code meta.handlers.skipped}. The further runs
     * are controls: the medians of their types that the base table holds are listed next to the base table's value in
     * {@code meta.handlers.control}, so that the conditions of this run can be compared with the base calibration's.
     * Every other key of the base table stays. Wall clock: run it through {@code /work/tools/bench}.
     */
    private static void handlersOnly(Path base, Path out, List<String[]> runs, boolean quick, String date) throws Exception {
        TreeMap<String, String> t = new TreeMap<>(CostTable.read(base).values());
        String before = loadavg();
        String[][] r = runs.toArray(String[][]::new);
        List<Map<String, List<long[]>>> samples = handlerSamples(r, quick);
        Map<String, String> target = handlerCosts(samples.get(0));
        StringBuilder written = new StringBuilder();
        StringBuilder skipped = new StringBuilder();
        java.util.Set<String> writtenTypes = new java.util.HashSet<>();
        for (Map.Entry<String, String> e : target.entrySet()) {
            String key = e.getKey();
            if (!key.startsWith("loop.message.") || key.startsWith("loop.message.default.")) continue;
            String type = key.substring("loop.message.".length(), key.lastIndexOf('.'));
            if (t.containsKey("loop.message." + type + ".ns") && !writtenTypes.contains(type)) {
                if (key.endsWith(".ns")) skipped.append(' ').append(type).append('=').append(e.getValue()).append(" (base ").append(t.get(key)).append(')');
                continue;
            }
            t.put(key, e.getValue());
            writtenTypes.add(type);
            if (key.endsWith(".ns")) {
                t.put("meta.samples.message." + type, target.get("meta.samples.message." + type));
                written.append(' ').append(type).append('=').append(e.getValue());
            }
        }
        StringBuilder control = new StringBuilder();
        for (int i = 1; i < r.length; i++) {
            Map<String, String> c = handlerCosts(samples.get(i));
            control.append(control.isEmpty() ? "" : "; ").append(r[i][0]).append(' ').append(r[i][1]).append(':');
            for (Map.Entry<String, String> e : c.entrySet()) {
                String key = e.getKey();
                if (key.startsWith("loop.message.") && key.endsWith(".ns") && !key.startsWith("loop.message.default.") && t.containsKey(key)) {
                    control.append(' ').append(key.substring("loop.message.".length(), key.length() - 3)).append('=').append(e.getValue()).append(" (base ").append(t.get(key)).append(')');
                }
            }
        }
        StringBuilder runNames = new StringBuilder();
        for (String[] run : r) runNames.append(runNames.isEmpty() ? "" : ", ").append(run[0]).append(' ').append(run[1]).append(" nodes");
        t.put("meta.handlers.load", "before " + before + ", after " + loadavg());
        t.put("meta.handlers.cpu-pressure", pressure());
        t.put("meta.handlers.base", base.getFileName().toString());
        t.put("meta.handlers.date", date);
        t.put("meta.handlers.host", InetAddress.getLocalHost().getHostName() + " (" + cpuModel() + ", " + Runtime.getRuntime().availableProcessors() + " cores, "
                + System.getProperty("java.vm.name") + " " + Runtime.version() + ")");
        t.put("meta.handlers.written", written.toString().trim());
        t.put("meta.handlers.skipped", skipped.toString().trim());
        t.put("meta.handlers.control", control.toString());
        t.put("meta.source.handlers", "loop.message.<Type> of " + r[0][0] + " (" + r[0][1] + " nodes): measured as meta.source.loop says (runs: " + runNames
                + "; 16 closed-loop clients; median per message type of the second of two rounds; per-byte slope from the halves by size), written "
                + "only for types the base table did not hold; measured " + date);
        Files.createDirectories(out.toAbsolutePath().getParent());
        try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            CostTable.of(t).write(w, "Tandem simulator cost table: " + base.getFileName() + " with " + r[0][0] + "'s message handlers measured " + date + " (load "
                    + t.get("meta.handlers.load") + ").\nWritten by io.tandem.bench.sim.CostCalibration --handlers; do not edit by hand.");
        }
        System.out.println("wrote " + out + ": written" + written + "; skipped" + skipped + "; control " + control);
    }

    private static void handoffOnly(Path base, Path out, boolean quick, int repeat, String date) throws Exception {
        TreeMap<String, String> t = new TreeMap<>(CostTable.read(base).values());
        String before = loadavg();
        handoff(t, quick, repeat, date);
        t.put("meta.handoff.load", "before " + before + ", after " + loadavg());
        t.put("meta.handoff.cpu-pressure", pressure());
        t.put("meta.handoff.cgroup", cgroup());
        t.put("meta.handoff.base", base.getFileName().toString());
        CostTable table = CostTable.of(t);
        Files.createDirectories(out.toAbsolutePath().getParent());
        try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            table.write(w, "Tandem simulator cost table: " + base.getFileName() + " with handoff.latency measured " + date + " (" + repeat + " repetitions, load "
                    + t.get("meta.handoff.load") + ").\nWritten by io.tandem.bench.sim.CostCalibration --handoff; do not edit by hand.");
        }
        System.out.println("wrote " + out + ": handoff.latency=" + t.get("handoff.latency"));
    }

    /**
     * The hand-off latency (issue 18, session 13): two platform threads hand a token back and forth with
     * {@link LockSupport#park}/{@link LockSupport#unpark}, each parking as soon as it has handed it on, as the runtime's
     * loop and execution threads do when their queues are empty; each sample is the wall time of one round trip, halved:
     * from one thread's unpark to the other running and handing it back. With one request in flight the real node's
     * threads hand every request on like this (I/O thread to loop, loop to execution thread), each to a thread parked on
     * a core that went idle; the per-turn CPU ({@code wakeup.*}) is charged apart, this is the time the hand-off takes.
     * {@code repeat} fresh pairs of threads, pooled; per pair its distribution is kept in {@code meta.handoff.run.K}.
     */
    private static void handoff(Map<String, String> t, boolean quick, int repeat, String date) throws InterruptedException {
        int n = quick ? 5_000 : 20_000;
        long[] all = new long[n * repeat];
        for (int r = 0; r < repeat; r++) {
            long[] rtt = handoffPingPong(n);
            long[] half = new long[n];
            for (int i = 0; i < n; i++) half[i] = rtt[i] / 2;
            System.arraycopy(half, 0, all, r * n, n);
            t.put("meta.handoff.run." + (r + 1), Distribution.ofSamples(half).format() + " (" + n + " round trips)");
        }
        Distribution d = Distribution.ofSamples(all);
        t.put("handoff.latency", d.format());
        t.put("meta.source.handoff", "two platform threads handing a token back and forth with LockSupport.park/unpark, each parking at once: half of each round trip's "
                + "wall time (" + repeat + " pair(s) of " + n + " round trips after 2,000 of warm-up, pooled) = handoff.latency; charged to a job handed to a parked "
                + "loop or execution thread while a core is idle; measured " + date);
        log("handoff: " + d.format());
    }

    private static long[] handoffPingPong(int n) throws InterruptedException {
        java.util.concurrent.atomic.AtomicInteger turn = new java.util.concurrent.atomic.AtomicInteger();
        Thread main = Thread.currentThread();
        int warm = 2_000;
        Thread other = Thread.ofPlatform().daemon().start(() -> {
            for (int i = 0; i < n + warm; i++) {
                while (turn.get() != 1) LockSupport.park();
                turn.set(0);
                LockSupport.unpark(main);
            }
        });
        long[] rtt = new long[n];
        for (int i = 0; i < n + warm; i++) {
            long t0 = System.nanoTime();
            turn.set(1);
            LockSupport.unpark(other);
            while (turn.get() != 0) LockSupport.park();
            if (i >= warm) rtt[i - warm] = System.nanoTime() - t0;
        }
        other.join(10_000);
        return rtt;
    }

    private static long wakeup(boolean quick) throws InterruptedException {
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        int n = quick ? 20_000 : 100_000;
        java.util.concurrent.atomic.AtomicInteger turn = new java.util.concurrent.atomic.AtomicInteger();
        Thread main = Thread.currentThread();
        Thread[] other = new Thread[1];
        other[0] = Thread.ofPlatform().daemon().start(() -> {
            for (int i = 0; i < 2 * n + 2_000; i++) {
                while (turn.get() != 1) LockSupport.park();
                turn.set(0);
                LockSupport.unpark(main);
            }
        });
        long result = 0;
        for (int round = 0; round < 2; round++) {
            int rounds = round == 0 ? 2_000 : 2 * n;
            long p0 = os.getProcessCpuTime();
            for (int i = 0; i < rounds; i++) {
                turn.set(1);
                LockSupport.unpark(other[0]);
                while (turn.get() != 0) LockSupport.park();
            }
            result = (os.getProcessCpuTime() - p0) / (2L * rounds);
        }
        other[0].join(10_000);
        return result;
    }

    // ---- transport ----

    private record Transport(long sendNs, long receiveNs, double perByte, Distribution oneway, int roundTrips, long rttMedianNs, long[] onewaySamples, long pingPongNanos) {}

    /** Two real TcpTransports on loopback, one I/O thread each: n1 sends, n2 counts or echoes. */
    private static final class LoopbackPair implements AutoCloseable {
        final NodeId a = NodeId.of("n1");
        final NodeId b = NodeId.of("n2");
        final TcpTransport sender;
        final TcpTransport receiver;
        final AtomicLong delivered = new AtomicLong();
        final AtomicLong echoed = new AtomicLong();
        /** The receiver wakes the measuring thread only once this many messages have arrived (0: at every message, as before). */
        volatile long wakeAt;

        LoopbackPair() throws Exception {
            Map<NodeId, Endpoint> members = Map.of(a, new Endpoint("127.0.0.1", freePort()), b, new Endpoint("127.0.0.1", freePort()));
            TcpTransportConfig config = TcpTransportConfig.defaults().withIoThreads(1);
            sender = new TcpTransport(new TransportSetup("calibrate", a, members, probeCodec(), new SimpleMeterRegistry()), config);
            receiver = new TcpTransport(new TransportSetup("calibrate", b, members, probeCodec(), new SimpleMeterRegistry()), config);
            Thread main = Thread.currentThread();
            receiver.start(new TransportListener() {
                @Override
                public void onMessage(NodeId from, ProtocolMessage message) {
                    Probe m = (Probe) message;
                    if (m.echo()) receiver.send(from, m);
                    else if (delivered.incrementAndGet() < wakeAt) return;
                    LockSupport.unpark(main);
                }
            });
            sender.start((from, message) -> {
                echoed.set(message.requestId());
                LockSupport.unpark(main);
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(sender.isConnected(b) && receiver.isConnected(a))) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("transports did not connect");
                Thread.sleep(10);
            }
        }

        /** Round trips of one 64-byte message at a time, after 2,000 of warm-up (nanoseconds, in order). */
        long[] roundTrips(int rounds) {
            long[] rtt = new long[rounds];
            byte[] payload = new byte[64];
            for (int k = 1; k <= rounds + 2_000; k++) {
                long t0 = System.nanoTime();
                if (!sender.send(b, new Probe(k, true, payload))) throw new IllegalStateException("send dropped");
                while (echoed.get() != k) LockSupport.parkNanos(20_000);
                if (k > 2_000) rtt[k - 2_001] = System.nanoTime() - t0;
            }
            return rtt;
        }

        @Override
        public void close() {
            sender.close();
            receiver.close();
        }
    }

    /** Round trips over a fresh loopback pair (see {@link LoopbackPair#roundTrips}). */
    private static long[] pingPong(int rounds) throws Exception {
        try (LoopbackPair pair = new LoopbackPair()) {
            return pair.roundTrips(rounds);
        }
    }

    private static Transport transport(boolean quick, long[] codec) throws Exception {
        try (LoopbackPair pair = new LoopbackPair()) {
            TcpTransport sender = pair.sender;
            NodeId b = pair.b;
            AtomicLong delivered = pair.delivered;
            com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            int n = quick ? 50_000 : 200_000;
            double[] perMessage = new double[2];
            int[] sizes = {64, 1024};
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 2; i++) {
                    byte[] payload = new byte[sizes[i]];
                    long base = delivered.get();
                    long p0 = os.getProcessCpuTime();
                    long s0 = threads.getCurrentThreadCpuTime();
                    for (int k = 1; k <= n; k++) {
                        while (k - (delivered.get() - base) > 256) LockSupport.parkNanos(50_000);
                        if (!sender.send(b, new Probe(k, false, payload))) throw new IllegalStateException("send dropped");
                    }
                    while (delivered.get() - base < n) LockSupport.parkNanos(50_000);
                    long s1 = threads.getCurrentThreadCpuTime();
                    long p1 = os.getProcessCpuTime();
                    perMessage[i] = ((p1 - p0) - (s1 - s0)) / (double) n;
                }
            }
            double perByte = Math.max(0, (perMessage[1] - perMessage[0]) / (sizes[1] - sizes[0]));
            double fixed64 = perMessage[0];
            // Both I/O threads' work per message, codec included: half to each side, less the codec on that side.
            double codecPerByteEnc = codec[1] / 1000.0;
            double codecPerByteDec = codec[3] / 1000.0;
            long send = Math.max(0, Math.round(fixed64 / 2 - codec[0] - codecPerByteEnc * 64 - perByte / 2 * 64));
            long receive = Math.max(0, Math.round(fixed64 / 2 - codec[2] - codecPerByteDec * 64 - perByte / 2 * 64));
            double transportPerByte = Math.max(0, perByte / 2 - (codecPerByteEnc + codecPerByteDec) / 2);

            int rounds = quick ? 5_000 : 20_000;
            long[] rtt = pair.roundTrips(rounds);
            long cpuOneWay = send + receive + codec[0] + codec[2] + Math.round((codecPerByteEnc + codecPerByteDec + 2 * transportPerByte) * 64);
            long[] oneway = new long[rounds];
            for (int i = 0; i < rounds; i++) oneway[i] = Math.max(1_000, rtt[i] / 2 - cpuOneWay);
            long[] sortedRtt = rtt.clone();
            Arrays.sort(sortedRtt);
            long total = 0;
            for (long x : rtt) total += x;
            return new Transport(send, receive, transportPerByte, Distribution.ofSamples(oneway), rounds, sortedRtt[rounds / 2], oneway, total);
        }
    }

    // ---- the storage thread's CPU against the sync's wall time (session 14) ----

    /**
     * {@code --sync-cpu DIR}: the real {@link io.tandem.storage.NodeStorage} with fsync in DIR; batches of B 128-byte records
     * (B = 1, 8, 40) appended and awaited until durable, one at a time, for a few seconds each: the storage thread's CPU time
     * per sync (by its thread name) against the sync's wall time (append to durable, as the waiter sees it). If its CPU per
     * sync is a fixed amount, it is work beside the sync (the cost model charges it before the sync); if it follows the
     * sync's wall time, the thread is on a core <em>during</em> the sync. Prints, writes nothing: a diagnosis.
     */
    private static void syncCpu(Path dir, boolean quick) throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Files.createDirectories(dir);
        Path data = Files.createTempDirectory(dir, "sync-cpu");
        AtomicLong durable = new AtomicLong();
        AtomicLong syncs = new AtomicLong();
        Thread main = Thread.currentThread();
        try (io.tandem.storage.NodeStorage storage = io.tandem.storage.NodeStorage.open(data, "calibrate", NodeId.of("n1"),
                io.tandem.storage.FlushPolicy.FSYNC, e -> {
                    if (e instanceof io.tandem.storage.StorageEvent.LogSynced synced) {
                        syncs.incrementAndGet();
                        durable.set(synced.durableIndex());
                        LockSupport.unpark(main);
                    }
                }, (snapshot, bytes) -> java.util.concurrent.CompletableFuture.failedFuture(new IllegalStateException("no installs")))) {
            byte[] payload = new byte[128];
            new SplittableRandom(1).nextBytes(payload);
            long last = storage.log().lastIndex();
            List<double[]> regimes = new ArrayList<>(); // {parked 1/0, records per sync, CPU ns per sync}
            List<double[]> walls50 = new ArrayList<>(); // {records per sync, wall p50 ns}
            for (int round = 0; round < 2; round++) {
                for (int batch : new int[] {1, 8, 40}) {
                    long seconds = round == 0 ? 1 : (quick ? 2 : 4);
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
                    long cpu0 = diskThreadCpu(threads);
                    long sw0 = diskThreadVoluntarySwitches();
                    long w0 = System.nanoTime();
                    List<Long> walls = new ArrayList<>();
                    while (System.nanoTime() < end) {
                        long t0 = System.nanoTime();
                        for (int i = 0; i < batch; i++) storage.log().append(new io.tandem.storage.LogEntry(++last, 1, payload));
                        while (durable.get() < last) LockSupport.parkNanos(1_000_000);
                        walls.add(System.nanoTime() - t0);
                    }
                    long cpu = diskThreadCpu(threads) - cpu0;
                    long switches = diskThreadVoluntarySwitches() - sw0;
                    long wall = System.nanoTime() - w0;
                    if (round == 0) continue;
                    long[] w = walls.stream().mapToLong(Long::longValue).sorted().toArray();
                    System.out.printf(Locale.ROOT, "sync-cpu: batch %d x 128 B: %d syncs, wall per sync p50 %.1f us, mean %.1f us; storage thread CPU per sync %.1f us "
                            + "(%.0f %% of the mean wall), CPU per record %.2f us; load %s%n", batch, w.length, w[w.length / 2] / 1e3, wall / 1e3 / w.length,
                            cpu / 1e3 / w.length, 100.0 * cpu / wall, cpu / 1e3 / w.length / batch, loadavg());
                    System.out.printf(Locale.ROOT, "sync-cpu: batch %d x 128 B: storage thread voluntary context switches per sync %.2f%n", batch,
                            switches / (double) w.length);
                    regimes.add(new double[] {1, batch, cpu / (double) w.length});
                    walls50.add(new double[] {batch, w[w.length / 2]});
                    storage.log().compactPrefix(last);
                }
            }
            // Streaming, as a busy leader's loop appends: records keep coming while the storage thread syncs (at most 256 not
            // yet durable), so it never parks between syncs; its CPU per sync and per record in that regime.
            syncs.set(0);
            long seconds = quick ? 2 : 4;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            long cpu0 = diskThreadCpu(threads);
            long sw0 = diskThreadVoluntarySwitches();
            long w0 = System.nanoTime();
            long first = last;
            while (System.nanoTime() < end) {
                storage.log().append(new io.tandem.storage.LogEntry(++last, 1, payload));
                while (last - durable.get() > 256) LockSupport.parkNanos(50_000);
            }
            while (durable.get() < last) LockSupport.parkNanos(1_000_000);
            long cpu = diskThreadCpu(threads) - cpu0;
            long switches = diskThreadVoluntarySwitches() - sw0;
            long wall = System.nanoTime() - w0;
            long n = syncs.get();
            long records = last - first;
            System.out.printf(Locale.ROOT, "sync-cpu: streaming 128 B records: %d records, %d syncs (%.1f records per sync), %.1f us per sync; storage thread CPU per sync %.1f us, "
                    + "per record %.2f us (%.0f %% of the wall); load %s%n", records, n, records / (double) Math.max(1, n), wall / 1e3 / Math.max(1, n),
                    cpu / 1e3 / Math.max(1, n), cpu / 1e3 / records, 100.0 * cpu / wall, loadavg());
            System.out.printf(Locale.ROOT, "sync-cpu: streaming: storage thread voluntary context switches per sync %.2f (a real run's per 1,000 puts, "
                    + "divided by this, gives its syncs per 1,000 puts)%n", switches / (double) Math.max(1, n));
            regimes.add(new double[] {0, records / (double) Math.max(1, n), cpu / (double) Math.max(1, n)});
            long[] wfe = syncCpuFit(regimes);
            System.out.printf(Locale.ROOT, "sync-cpu: table keys (least squares of CPU per sync = W x parked + F + E x records over the %d regimes, W, F, E >= 0): "
                    + "wakeup.DISK.ns=%d disk.flush.cpu.ns=%d disk.entry.cpu.ns=%d%n", regimes.size(), wfe[0], wfe[1], wfe[2]);
            double bandwidth = io.tandem.sim.cost.CostTable.calibrated().diskBytesPerSecond();
            System.out.printf(Locale.ROOT, "sync-cpu: table key (least-squares slope of the sync's wall p50 over the batches' records, %.0f ns per record, "
                    + "less %d B per record at the default table's %.0f B/s): disk.record.ns=%d%n", wallSlope(walls50), 128 + RECORD_HEADER_BYTES, bandwidth,
                    recordNanos(walls50, 128 + RECORD_HEADER_BYTES, bandwidth));
        } finally {
            try (var files = Files.walk(data)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    /**
     * The storage thread's CPU per sync as W (the wake-up of a parked thread: paid only when it parked) + F (per sync) + E
     * (per record), fitted by least squares to {@code regimes} ({parked 1/0, records per sync, CPU ns per sync}); a term that
     * would come out negative is held at 0: of the fits with every term >= 0 (each subset of terms held at 0), the one with
     * the least squared error. Returns {W, F, E} in ns.
     */
    /** A log record's header in the real storage (the same as the simulator's {@code SimDisk.RECORD_HEADER_BYTES}). */
    static final int RECORD_HEADER_BYTES = 24;

    /** The least-squares slope of {records, wall ns} points: wall ns per record. */
    static double wallSlope(List<double[]> points) {
        double mx = 0, my = 0;
        for (double[] p : points) {
            mx += p[0];
            my += p[1];
        }
        mx /= points.size();
        my /= points.size();
        double sxx = 0, sxy = 0;
        for (double[] p : points) {
            sxx += (p[0] - mx) * (p[0] - mx);
            sxy += (p[0] - mx) * (p[1] - my);
        }
        return sxx == 0 ? 0 : sxy / sxx;
    }

    /**
     * {@code disk.record.ns}: the wall time per record of a sync beyond a lone one's, less what the bandwidth term already
     * charges for a record of {@code recordBytes}; never below 0.
     */
    static long recordNanos(List<double[]> points, int recordBytes, double bytesPerSecond) {
        double transfer = bytesPerSecond > 0 ? recordBytes * 1e9 / bytesPerSecond : 0;
        return Math.max(0, Math.round(wallSlope(points) - transfer));
    }

    static long[] syncCpuFit(List<double[]> regimes) {
        double[] best = new double[3];
        double bestError = Double.POSITIVE_INFINITY;
        for (int fixed = 0; fixed < 8; fixed++) { // bit i set: term i held at 0 (W, F, E)
            double[] x = leastSquares(regimes, fixed);
            if (x == null || x[0] < 0 || x[1] < 0 || x[2] < 0) continue;
            double error = 0;
            for (double[] r : regimes) error += Math.pow(x[0] * r[0] + x[1] + x[2] * r[1] - r[2], 2);
            if (error < bestError - 1e-6) {
                bestError = error;
                best = x;
            }
        }
        return new long[] {Math.round(best[0]), Math.round(best[1]), Math.round(best[2])};
    }

    private static double[] leastSquares(List<double[]> regimes, int fixed) {
        int[] free = java.util.stream.IntStream.range(0, 3).filter(i -> (fixed & (1 << i)) == 0).toArray();
        int n = free.length;
        if (n == 0) return new double[3];
        double[][] m = new double[n][n + 1];
        for (double[] r : regimes) {
            double[] row = {r[0], 1, r[1]};
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) m[i][j] += row[free[i]] * row[free[j]];
                m[i][n] += row[free[i]] * r[2];
            }
        }
        for (int i = 0; i < n; i++) { // Gauss-Jordan; a singular system (too few regimes) gives no fit
            if (Math.abs(m[i][i]) < 1e-9) return null;
            for (int j = 0; j < n; j++) {
                if (j == i) continue;
                double f = m[j][i] / m[i][i];
                for (int k = i; k <= n; k++) m[j][k] -= f * m[i][k];
            }
        }
        double[] x = new double[3];
        for (int i = 0; i < n; i++) x[free[i]] = m[i][n] / m[i][i];
        return x;
    }

    /**
     * The storage threads' voluntary context switches so far ({@code /proc/self/task/TID/status}, threads whose name starts
     * with {@code tandem-disk-}; 0 where /proc is not there): a blocking fsync and a park each count one, so with the CPU per
     * sync it lets a real run's per-thread profile (voluntary switches per 1,000 puts) be read as syncs per 1,000 puts.
     */
    static long diskThreadVoluntarySwitches() {
        long total = 0;
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (!Files.readString(task.resolve("comm")).startsWith("tandem-disk-")) continue;
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) total += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                    }
                } catch (java.io.IOException | RuntimeException gone) {
                    // the thread ended while we read it
                }
            }
        } catch (java.io.IOException noProc) {
            return 0;
        }
        return total;
    }

    private static long diskThreadCpu(ThreadMXBean threads) {
        long cpu = 0;
        for (long id : threads.getAllThreadIds()) {
            java.lang.management.ThreadInfo info = threads.getThreadInfo(id);
            if (info != null && info.getThreadName().startsWith("tandem-disk-")) cpu += Math.max(0, threads.getThreadCpuTime(id));
        }
        return cpu;
    }

    // ---- transport: per-message cost against messages per syscall (session 14) ----

    /** Burst sizes of {@link #burst}: messages sent back to back to one peer before the sender waits for all of them. */
    static final int[] BURSTS = {1, 2, 4, 8, 16, 64, 256};

    /**
     * {@code --transport-burst BASE [--repeat N]}: the base table with the transport's per-turn and per-message costs
     * measured apart ({@link #burst}); every other number stays the base table's. Thread CPU time, but the machine's
     * load changes how many frames one read finds: run it through {@code /work/tools/bench}.
     */
    private static void burstOnly(Path base, Path out, boolean quick, int repeat, String date) throws Exception {
        TreeMap<String, String> t = new TreeMap<>(CostTable.read(base).values());
        String before = loadavg();
        long[] codec = codec(quick);
        burst(t, quick, repeat, codec, date);
        t.put("meta.burst.load", "before " + before + ", after " + loadavg());
        t.put("meta.burst.cpu-pressure", pressure());
        t.put("meta.burst.base", base.getFileName().toString());
        CostTable table = CostTable.of(t);
        Files.createDirectories(out.toAbsolutePath().getParent());
        try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            table.write(w, "Tandem simulator cost table: " + base.getFileName() + " with the transport's per-turn costs measured " + date + " (" + repeat
                    + " repetitions, load " + t.get("meta.burst.load") + ").\nWritten by io.tandem.bench.sim.CostCalibration --transport-burst; do not edit by hand.");
        }
        System.out.println("wrote " + out + ": transport.flush.ns=" + t.get("transport.flush.ns") + " transport.read.ns=" + t.get("transport.read.ns")
                + " transport.send.ns=" + t.get("transport.send.ns") + " transport.receive.ns=" + t.get("transport.receive.ns"));
    }

    /**
     * How the real transport's CPU per message falls as more messages share a syscall: two real TcpTransports on
     * loopback (one I/O thread each), the sender's thread sends bursts of K 64-byte messages to the peer back to back
     * (one drain of the peer's queue, one flush, when they all queue before the sender's I/O thread runs) and waits until
     * the receiver's I/O thread has delivered all K (it reads them with as few reads as the socket lets it). Each side's
     * I/O thread's CPU time per message, s(K) and r(K), for K in {@link #BURSTS}, after a warm-up sweep; then a least-squares
     * fit of c(K) = perMessage + perTurn / K on each side: {@code transport.flush.ns} (the sender's per-flush work: the
     * drain task, the write syscall and the loopback's delivery, which the kernel runs in the writer's context) and
     * {@code transport.read.ns} (the receiver's per-read work: the selector wake-up and the read), and the per-message
     * rest as {@code transport.send.ns} and {@code transport.receive.ns} (less the decode, which the model charges apart; the
     * encode runs on the sending thread, not on the I/O thread). {@code meta.burst.K} keeps each K's s and r.
     */
    private static void burst(Map<String, String> t, boolean quick, int repeat, long[] codec, String date) throws Exception {
        int perK = quick ? 8_000 : 24_000;
        double[][] send = new double[repeat][BURSTS.length];
        double[][] receive = new double[repeat][BURSTS.length];
        for (int r = 0; r < repeat; r++) {
            try (LoopbackPair pair = new LoopbackPair()) {
                for (int sweep = 0; sweep < 2; sweep++) { // the first sweep warms the JIT up
                    for (int i = 0; i < BURSTS.length; i++) {
                        double[] sr = burstRun(pair, BURSTS[i], sweep == 0 ? perK / 4 : perK);
                        send[r][i] = sr[0];
                        receive[r][i] = sr[1];
                    }
                }
            }
        }
        double[] s = new double[BURSTS.length];
        double[] rc = new double[BURSTS.length];
        for (int i = 0; i < BURSTS.length; i++) {
            double[] a = new double[repeat];
            double[] b = new double[repeat];
            for (int r = 0; r < repeat; r++) {
                a[r] = send[r][i];
                b[r] = receive[r][i];
            }
            s[i] = median(a);
            rc[i] = median(b);
            t.put("meta.burst." + BURSTS[i], String.format(java.util.Locale.ROOT, "send %.0f ns/message, receive %.0f ns/message (median of %d)", s[i], rc[i], repeat));
        }
        double[] sendFit = fitPerTurn(s);
        double[] receiveFit = fitPerTurn(rc);
        long decode = Math.round(codec[2] + codec[3] / 1000.0 * 64);
        // The model charges a thread's wake-up apart (wakeup.IO.ns, else wakeup.ns, to a job that finds the I/O stage idle), and
        // every burst here woke both I/O threads: the per-turn part beyond it is the syscall's, paid per flush or read.
        long wake = CostTable.of(t).wakeupCost(io.tandem.sim.cost.Stage.IO);
        t.put("meta.burst.perTurn", String.format(java.util.Locale.ROOT, "send %.0f ns, receive %.0f ns (fit); less the wake-up the model charges apart (%d ns)",
                sendFit[1], receiveFit[1], wake));
        t.put("transport.flush.ns", Long.toString(Math.max(0, Math.round(sendFit[1]) - wake)));
        t.put("transport.read.ns", Long.toString(Math.max(0, Math.round(receiveFit[1]) - wake)));
        t.put("transport.send.ns", Long.toString(Math.max(0, Math.round(sendFit[0]))));
        t.put("transport.receive.ns", Long.toString(Math.max(0, Math.round(receiveFit[0]) - decode)));
        t.put("meta.source.burst", "two TcpTransports on 127.0.0.1 in one JVM, 1 I/O thread each: bursts of K 64-byte messages to one peer (K = "
                + java.util.Arrays.toString(BURSTS) + "), each I/O thread's CPU time per message; fit c(K) = perMessage + perTurn/K (least squares in 1/K): "
                + "sender perTurn less the I/O stage's wake-up (charged apart) = transport.flush.ns, perMessage = transport.send.ns; receiver perTurn less the wake-up = transport.read.ns, perMessage less the decode ("
                + decode + " ns) = transport.receive.ns; " + repeat + " pair(s), " + perK + " messages per K after a warm-up sweep; measured " + date);
        log("burst: send " + java.util.Arrays.toString(s) + " receive " + java.util.Arrays.toString(rc) + " -> flush " + t.get("transport.flush.ns") + " read "
                + t.get("transport.read.ns") + " send " + t.get("transport.send.ns") + " receive " + t.get("transport.receive.ns"));
    }

    /** One burst size: {I/O CPU ns per message of the sender's transport, of the receiver's}. */
    private static double[] burstRun(LoopbackPair pair, int k, int messages) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        byte[] payload = new byte[64];
        int bursts = Math.max(1, messages / k);
        long[] before = ioCpu(threads);
        long base = pair.delivered.get();
        for (int b = 0; b < bursts; b++) {
            long target = base + (long) (b + 1) * k;
            pair.wakeAt = target;
            for (int j = 0; j < k; j++) {
                if (!pair.sender.send(pair.b, new Probe(j, false, payload))) throw new IllegalStateException("send dropped");
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (pair.delivered.get() < target) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("burst not delivered");
                LockSupport.parkNanos(1_000_000);
            }
        }
        long[] after = ioCpu(threads);
        pair.wakeAt = 0;
        long n = (long) bursts * k;
        return new double[] {(after[0] - before[0]) / (double) n, (after[1] - before[1]) / (double) n};
    }

    /** CPU time so far of the sender's (n1) and the receiver's (n2) transport I/O threads. */
    private static long[] ioCpu(ThreadMXBean threads) {
        long[] cpu = new long[2];
        for (long id : threads.getAllThreadIds()) {
            java.lang.management.ThreadInfo info = threads.getThreadInfo(id);
            if (info == null) continue;
            long c = threads.getThreadCpuTime(id);
            if (c < 0) continue;
            if (info.getThreadName().startsWith("tandem-tcp-n1")) cpu[0] += c;
            else if (info.getThreadName().startsWith("tandem-tcp-n2")) cpu[1] += c;
        }
        return cpu;
    }

    /** Least squares of c(K) = a + b / K over {@link #BURSTS}: {a, b}. */
    static double[] fitPerTurn(double[] c) {
        int n = BURSTS.length;
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (int i = 0; i < n; i++) {
            double x = 1.0 / BURSTS[i];
            sx += x;
            sy += c[i];
            sxx += x * x;
            sxy += x * c[i];
        }
        double b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
        double a = (sy - b * sx) / n;
        return new double[] {a, b};
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        java.util.Arrays.sort(c);
        return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    // ---- JMH: execution stage and storage ----

    /** {apply ns, fsync p0, p5, ..., p100 (as in PERCENTILES), bytes per second}. */
    private static double[] jmh(boolean quick) throws Exception {
        int wi = quick ? 1 : 2;
        int mi = quick ? 2 : 4;
        double applyNs = apply(quick, KvStateMachine::new);
        Options fsync = new OptionsBuilder().include("io.tandem.jmh.storage.NodeStorageAppendBenchmark.appendBatchAndAwaitDurableLatency$")
                .param("recordBytes", "128").param("batchSize", "1").param("flush", "FSYNC")
                .mode(org.openjdk.jmh.annotations.Mode.SampleTime).timeUnit(TimeUnit.NANOSECONDS)
                .forks(1).warmupIterations(wi).measurementIterations(mi).warmupTime(TimeValue.seconds(1)).measurementTime(TimeValue.seconds(quick ? 1 : 2)).build();
        RunResult fr = single(new Runner(fsync).run());
        var stats = fr.getPrimaryResult().getStatistics();
        double[] out = new double[PERCENTILES.length + 2];
        out[0] = applyNs;
        for (int i = 0; i < PERCENTILES.length; i++) out[i + 1] = PERCENTILES[i] == 0 ? stats.getMin() : PERCENTILES[i] == 100 ? stats.getMax() : stats.getPercentile(PERCENTILES[i]);

        Options bw = new OptionsBuilder().include("io.tandem.jmh.storage.NodeStorageAppendBenchmark.appendBatchAndAwaitDurable$")
                .param("recordBytes", "1024").param("batchSize", "1", "64").param("flush", "FSYNC")
                .mode(org.openjdk.jmh.annotations.Mode.AverageTime).timeUnit(TimeUnit.NANOSECONDS)
                .forks(1).warmupIterations(wi).measurementIterations(mi).warmupTime(TimeValue.seconds(1)).measurementTime(TimeValue.seconds(1)).build();
        Map<String, Double> byBatch = new HashMap<>();
        for (RunResult r : new Runner(bw).run()) byBatch.put(r.getParams().getParam("batchSize"), r.getPrimaryResult().getScore());
        double extra = byBatch.getOrDefault("64", 0.0) - byBatch.getOrDefault("1", 0.0);
        out[out.length - 1] = extra > 0 ? 63 * 1024 * 1e9 / extra : 0;
        return out;
    }

    /**
     * The execution thread's work per KV put: the shipped {@link io.tandem.execution.SequentialExecutor}
     * over the KV state machine (session check, decode, B+-tree put with path copying, result),
     * 10,000 preloaded 16-byte keys, 64-byte values, 16 sessions, thread CPU time per put. CPU time,
     * not JMH's wall time: on this shared machine the wall time of a thread hand-off measures the
     * other engineers' load, not the code (ExecutionStageBenchmark.executionStage gave 9.8k puts/s at
     * load average 23 against 50-77k documented at load 18-25).
     */
    private static double apply(boolean quick, java.util.function.Supplier<? extends io.tandem.statemachine.StateMachine> machines) {
        io.tandem.statemachine.StateMachine machine = machines.get();
        KvCodec codec = new KvCodec(io.tandem.kv.KvLimits.DEFAULTS);
        int keys = 10_000;
        SplittableRandom random = new SplittableRandom(42);
        byte[][] commands = new byte[keys][];
        for (int k = 0; k < keys; k++) {
            byte[] value = new byte[64];
            random.nextBytes(value);
            commands[k] = codec.encode(new KvCommand.Put(String.format("key-%012d", k).getBytes(StandardCharsets.US_ASCII), value));
        }
        io.tandem.execution.ExecutionListener ignore = new io.tandem.execution.ExecutionListener() {
            @Override
            public void executed(io.tandem.engine.Committed entry, Outcome outcome) {}

            @Override
            public void readAnswered(long requestId, byte[] result, RuntimeException error) {}
        };
        io.tandem.execution.SequentialExecutor executor = new io.tandem.execution.SequentialExecutor(machine, ignore, io.tandem.execution.ExecutorFactory.Limits.DEFAULTS);
        NodeId leader = NodeId.of("n2");
        long index = 0;
        long[] sequences = new long[16];
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int k = 0; k < keys; k++) executor.apply(new io.tandem.engine.Committed(++index, leader, index, io.tandem.engine.ClientRequest.Session.NONE, commands[k]));
        executor.flush();
        int n = quick ? 100_000 : 400_000;
        double perPut = 0;
        for (int round = 0; round < 3; round++) { // the last round counts; the first ones warm up the JIT
            long t0 = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                int session = i & 15;
                executor.apply(new io.tandem.engine.Committed(++index, leader, index, new io.tandem.engine.ClientRequest.Session(session + 1, ++sequences[session]),
                        commands[random.nextInt(keys)]));
                if ((i & 255) == 255) executor.flush();
            }
            executor.flush();
            perPut = (threads.getCurrentThreadCpuTime() - t0) / (double) n;
        }
        return perPut;
    }

    private static final double[] PERCENTILES = {0, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.9, 100};

    private static String percentiles(double[] jmh) {
        StringBuilder b = new StringBuilder();
        long prev = 0;
        for (int i = 0; i < PERCENTILES.length; i++) {
            long v = Math.max(prev, Math.round(jmh[i + 1]));
            prev = v;
            if (i > 0) b.append(',');
            b.append(String.format(Locale.ROOT, "%s:%d", fmtQ(PERCENTILES[i] / 100.0), v));
        }
        return b.toString();
    }

    private static String fmtQ(double q) {
        return q == 0 ? "0" : q == 1 ? "1" : String.format(Locale.ROOT, "%s", q);
    }

    private static RunResult single(java.util.Collection<RunResult> results) {
        if (results.size() != 1) throw new IllegalStateException("expected one JMH result, got " + results.size());
        return results.iterator().next();
    }

    // ---- workload and machine ----

    private static long commandBytes() {
        KvCodec codec = new KvStateMachine().codec();
        byte[] key = String.format("key-%012d", 1).getBytes(StandardCharsets.US_ASCII);
        return codec.encode(new KvCommand.Put(key, new byte[64])).length;
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) return line.substring(line.indexOf(':') + 1).trim();
            }
        } catch (IOException e) {
            // not Linux: unknown
        }
        return "unknown";
    }

    private static String loadavg() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String pressure() {
        try {
            return Files.readString(Path.of("/proc/pressure/cpu")).trim().replace("\n", " | ");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.4f", v);
    }

    private static void log(String s) {
        System.out.println("# calibrate: " + s);
    }
}
