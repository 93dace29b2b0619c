package io.tandem.bench.sim;

import io.tandem.kv.client.KvClientConfig;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.server.KvServer;
import io.tandem.kv.server.ServerConfig;
import io.tandem.sim.cost.CostTable;
import io.tandem.transport.Endpoint;
import java.io.IOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * The KV server's and client library's own CPU per put (issue 18: the cost the model lacked, 88 µs real
 * against 7.4 µs modelled per put). A real unreplicated {@link KvServer} (fsync on, in
 * {@code tandem.bench.dir}) and a real {@link TandemKvClient} run in this JVM; 16 closed-loop clients
 * each keep one 64-byte put outstanding on 10,000 keys and record its latency in an HdrHistogram (what
 * the cluster benchmark's load generator does). Over the measured puts, the CPU time of every thread
 * is read ({@link ThreadMXBean}) and grouped by what the thread is:
 *
 * <ul>
 *   <li>{@code tandem-loop-*}: the node runtime's protocol loop (the model's LOOP stage);</li>
 *   <li>{@code tandem-exec-*}: the execution thread (EXEC): session table, decode, B+-tree put, result, reply hand-off;</li>
 *   <li>{@code tandem-disk-*}: the storage thread (log writes and syncs), charged per sync;</li>
 *   <li>{@code tandem-kv-client-*} (the client library's event loop) and this JVM's other threads (the closed-loop
 *       driver): the load generator's CPU;</li>
 *   <li>every other thread the server started ({@code tandem-clients-*}: its client endpoint's Netty I/O): the node's I/O;</li>
 *   <li>the rest of the process (GC, JIT compiler, VM threads: CPU not in any Java thread), split between server
 *       and client in proportion to their Java threads' CPU (in the real benchmark each is a JVM of its own).</li>
 * </ul>
 *
 * The table keys written from this: {@code client.request.ns} and {@code client.reply.ns} (the node's I/O plus its
 * share of the VM, half each: the request's decode path and the reply's encode path), {@code client.op.ns} (the
 * client side and its share of the VM), {@code apply.ns} (the execution thread per put) and {@code loop.kv.ns} ...
 * no: the loop is left to the handler timing (see {@code meta.kvpath.loop}, reported for comparison only).
 */
final class KvPathCalibration {
    private KvPathCalibration() {}

    /** CPU ns per put by part, and the conditions. */
    record Result(double loopNs, double execNs, double serverIoNs, double diskNs, double clientNs, double vmNs, double serverVmShare, long puts, long flushes,
            double seconds, long p50Us, long p99Us, Map<String, Double> byThread) {
        double serverVm() {
            return vmNs * serverVmShare;
        }

        double clientVm() {
            return vmNs - serverVm();
        }

        double total() {
            return loopNs + execNs + serverIoNs + diskNs + clientNs + vmNs;
        }
    }

    static Result measure(boolean quick, Path dir) throws Exception {
        return measure(quick, dir, true);
    }

    /** As {@link #measure(boolean, Path)}, with the server's log synced ({@code fsync}) or only written to the page cache. */
    static Result measure(boolean quick, Path dir, boolean fsync) throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Path data = Files.createTempDirectory(dir, "tandem-kvpath-");
        int peer = freePort();
        int clientPort = freePort();
        Map<String, String> flags = new LinkedHashMap<>();
        flags.put(ServerConfig.Key.ID.configName(), "r0");
        flags.put(ServerConfig.Key.MEMBERS.configName(), "r0=127.0.0.1:" + peer);
        flags.put(ServerConfig.Key.CLIENT_MEMBERS.configName(), "r0=127.0.0.1:" + clientPort);
        flags.put(ServerConfig.Key.DATA_DIR.configName(), data.toString());
        flags.put(ServerConfig.Key.FSYNC.configName(), Boolean.toString(fsync));
        flags.put(ServerConfig.Key.PROTOCOL.configName(), "unreplicated");
        flags.put(ServerConfig.Key.CLUSTER.configName(), "kvpath");
        java.util.Set<Long> before = ids(threads);
        KvServer server = KvServer.start(ServerConfig.load(null, flags));
        java.util.Set<Long> serverThreads = ids(threads);
        serverThreads.removeAll(before);
        TandemKvClient client = TandemKvClient.connect(KvClientConfig.of(List.of(new Endpoint("127.0.0.1", clientPort))).withMaxInFlight(1024));
        try {
            int keys = 10_000;
            byte[][] keyBytes = new byte[keys][];
            for (int k = 0; k < keys; k++) keyBytes[k] = String.format("key-%012d", k).getBytes(StandardCharsets.US_ASCII);
            byte[] value = new byte[64];
            new SplittableRandom(7).nextBytes(value);
            client.put(keyBytes[0], value); // the server answered once: its client-side I/O thread exists now
            java.util.Set<Long> serverAfterAccept = ids(threads);
            serverAfterAccept.removeAll(before);
            int clients = Integer.getInteger("tandem.kvpath.clients", 16);
            long warmup = quick ? 30_000 : 100_000;
            long measured = quick ? 60_000 : 200_000;
            run(client, keyBytes, value, clients, warmup, new Histogram(3)); // JIT warm-up
            long syncs0 = syncs(server);
            Map<Long, Long> cpu0 = cpuByThread(threads);
            long p0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            Histogram latency = new Histogram(3);
            run(client, keyBytes, value, clients, measured, latency);
            long seconds = System.nanoTime() - t0;
            long p1 = os.getProcessCpuTime();
            Map<Long, Long> cpu1 = cpuByThread(threads);
            long flushes = syncs(server) - syncs0;
            Map<Long, String> names = new HashMap<>();
            for (ThreadInfo info : threads.getThreadInfo(cpu1.keySet().stream().mapToLong(Long::longValue).toArray())) {
                if (info != null) names.put(info.getThreadId(), info.getThreadName());
            }
            double loop = 0;
            double exec = 0;
            double serverIo = 0;
            double disk = 0;
            double clientSide = 0;
            double javaThreads = 0;
            Map<String, Double> byThread = new TreeMap<>();
            for (Map.Entry<Long, Long> e : cpu1.entrySet()) {
                long d = e.getValue() - cpu0.getOrDefault(e.getKey(), 0L);
                if (d <= 0) continue;
                double perPut = d / (double) measured;
                javaThreads += d;
                String name = names.getOrDefault(e.getKey(), "?");
                byThread.merge(name.replaceAll("[0-9]+", "#"), perPut, Double::sum);
                if (name.startsWith("tandem-loop-")) loop += perPut;
                else if (name.startsWith("tandem-exec-")) exec += perPut;
                else if (name.startsWith("tandem-disk-")) disk += perPut;
                else if (name.startsWith("tandem-kv-client-")) clientSide += perPut; // the client library's event loop
                else if (serverThreads.contains(e.getKey()) || serverAfterAccept.contains(e.getKey())) serverIo += perPut; // tandem-clients-*: the client endpoint
                else clientSide += perPut; // the client library's threads and the closed-loop driver (this thread)
            }
            double vm = Math.max(0, (p1 - p0) - javaThreads) / (double) measured;
            double serverCpu = loop + exec + serverIo + disk;
            double share = serverCpu + clientSide > 0 ? serverCpu / (serverCpu + clientSide) : 0.5;
            return new Result(loop, exec, serverIo, disk, clientSide, vm, share, measured, flushes, seconds / 1e9,
                    latency.getValueAtPercentile(50) / 1000, latency.getValueAtPercentile(99) / 1000, byThread);
        } finally {
            client.close();
            server.close();
            deleteTree(data);
        }
    }

    /** {@code clients} closed loops, each with one put outstanding, until {@code total} puts completed. */
    private static void run(TandemKvClient client, byte[][] keys, byte[] value, int clients, long total, Histogram latency) throws InterruptedException {
        AtomicLong started = new AtomicLong();
        CountDownLatch done = new CountDownLatch(clients);
        for (int c = 0; c < clients; c++) {
            SplittableRandom random = new SplittableRandom(c * 7919L + 1);
            next(client, keys, value, random, started, total, latency, done);
        }
        if (!done.await(10, TimeUnit.MINUTES)) throw new IllegalStateException("kv path calibration did not finish in 10 minutes");
    }

    private static void next(TandemKvClient client, byte[][] keys, byte[] value, SplittableRandom random, AtomicLong started, long total, Histogram latency,
            CountDownLatch done) {
        if (started.incrementAndGet() > total) {
            done.countDown();
            return;
        }
        long t0 = System.nanoTime();
        CompletableFuture<?> f = client.putAsync(keys[random.nextInt(keys.length)], value);
        f.whenComplete((r, e) -> {
            if (e != null) throw new IllegalStateException("put failed during calibration", e);
            synchronized (latency) {
                latency.recordValue(Math.max(1, System.nanoTime() - t0));
            }
            next(client, keys, value, random, started, total, latency, done);
        });
    }

    /** Log syncs (group commits) the server's storage has done so far. */
    private static long syncs(KvServer server) {
        io.micrometer.core.instrument.Timer t = server.meterRegistry().find("tandem.storage.sync").timer();
        if (t == null) throw new IllegalStateException("the server has no tandem.storage.sync timer");
        return t.count();
    }

    private static java.util.Set<Long> ids(ThreadMXBean threads) {
        java.util.Set<Long> s = new java.util.HashSet<>();
        for (long id : threads.getAllThreadIds()) s.add(id);
        return s;
    }

    private static Map<Long, Long> cpuByThread(ThreadMXBean threads) {
        Map<Long, Long> m = new HashMap<>();
        for (long id : threads.getAllThreadIds()) {
            long t = threads.getThreadCpuTime(id);
            if (t >= 0) m.put(id, t);
        }
        return m;
    }

    /**
     * Writes the measured path into table {@code t}: each server part gets its share of the server's VM time in
     * proportion to its threads' CPU; the loop's measured CPU beyond the loop events the model already charges per
     * put ({@code loop.storage} per flush, {@code loop.applied}) becomes {@code loop.client-request.ns} (the runtime's
     * per-request work: pending-request table, hand-off to execution, reply routing), never less than the handler
     * timing gave.
     */
    static void put(Map<String, String> t, Result r) {
        double server = r.loopNs() + r.execNs() + r.serverIoNs() + r.diskNs();
        double vmFactor = server > 0 ? 1 + r.serverVm() / server : 1;
        double serverIo = r.serverIoNs() * vmFactor;
        double exec = r.execNs() * vmFactor;
        double loop = r.loopNs() * vmFactor;
        double disk = r.diskNs() * vmFactor;
        double client = r.clientNs() + r.clientVm();
        double flushesPerPut = r.flushes() / (double) r.puts();
        CostTable old = CostTable.of(t);
        long loopOther = Math.round(old.loopCost("storage", null, 0) * flushesPerPut + old.loopCost("applied", null, 0));
        long request = Math.max(old.loopCost("client-request", null, 0), Math.round(loop) - loopOther);
        t.put("client.request.ns", Long.toString(Math.round(serverIo / 2)));
        t.put("client.reply.ns", Long.toString(Math.round(serverIo - Math.round(serverIo / 2))));
        t.put("client.op.ns", Long.toString(Math.round(client)));
        t.put("apply.ns", Long.toString(Math.round(exec)));
        t.put("loop.client-request.ns", Long.toString(request));
        t.put("disk.flush.cpu.ns", Long.toString(r.flushes() > 0 ? Math.round(disk * r.puts() / r.flushes()) : 0));
        t.put("meta.kvpath.loop.ns", Long.toString(Math.round(r.loopNs())));
        t.put("meta.kvpath.exec.ns", Long.toString(Math.round(r.execNs())));
        t.put("meta.kvpath.server-io.ns", Long.toString(Math.round(r.serverIoNs())));
        t.put("meta.kvpath.disk.ns", Long.toString(Math.round(r.diskNs())));
        t.put("meta.kvpath.client.ns", Long.toString(Math.round(r.clientNs())));
        t.put("meta.kvpath.vm.ns", Long.toString(Math.round(r.vmNs())));
        t.put("meta.kvpath.total.ns", Long.toString(Math.round(r.total())));
        t.put("meta.kvpath.run", String.format(Locale.ROOT, "%d puts, %d log syncs in %.1f s (%.0f puts/s), p50 %d us, p99 %d us", r.puts(), r.flushes(), r.seconds(),
                r.puts() / r.seconds(), r.p50Us(), r.p99Us()));
        StringBuilder b = new StringBuilder();
        r.byThread().entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue(Comparator.reverseOrder())).limit(12)
                .forEach(e -> b.append(b.isEmpty() ? "" : "; ").append(e.getKey()).append(' ').append(Math.round(e.getValue())));
        t.put("meta.kvpath.threads", b.toString());
        t.put("meta.source.apply", "the KV server's execution thread per put (meta.source.kvpath); the bare SequentialExecutor over KvStateMachine measured "
                + (t.containsKey("meta.kvpath.apply.bare.ns") ? t.get("meta.kvpath.apply.bare.ns") : old.values().getOrDefault("apply.ns", "?")) + " ns");
        t.putIfAbsent("meta.kvpath.apply.bare.ns", old.values().getOrDefault("apply.ns", "?"));
        t.put("meta.source.client", "client.request, client.reply, client.op measured on the real KV server and client (meta.source.kvpath)");
        t.put("meta.source.kvpath", "a real unreplicated KvServer (fsync on) and TandemKvClient in one JVM, 16 closed-loop clients with one 64 B put outstanding "
                + "on 10,000 keys, HdrHistogram per put; thread CPU time per put by thread (ThreadMXBean), the process CPU not in any Java thread (GC, JIT) "
                + "split between server and client by their threads' CPU, the server's share over its threads by their CPU. client.request/client.reply = "
                + "the client endpoint's I/O threads, half each; apply = the execution thread; disk.flush.cpu = the storage thread per log sync; "
                + "loop.client-request = the loop thread per put less loop.storage per sync and loop.applied; client.op = the client library and driver threads");
    }

    /** {@code KvPathCalibration --base TABLE --out TABLE [--quick] [--no-fsync]}: re-measures only the KV path keys of an existing table. */
    public static void main(String[] args) throws Exception {
        Path base = null;
        Path out = null;
        boolean quick = false;
        boolean fsync = true;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--base" -> base = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--quick" -> quick = true;
                case "--no-fsync" -> fsync = false;
                default -> throw new IllegalArgumentException("usage: KvPathCalibration --base TABLE --out TABLE [--quick] [--no-fsync]");
            }
        }
        if (base == null || out == null) throw new IllegalArgumentException("usage: KvPathCalibration --base TABLE --out TABLE [--quick]");
        TreeMap<String, String> t = new TreeMap<>(CostTable.read(base).values());
        String loadBefore = loadavg();
        Result r = measure(quick, Path.of(System.getProperty("tandem.bench.dir", System.getProperty("java.io.tmpdir"))), fsync);
        put(t, r);
        // The storage thread's CPU per flush (and so the table) depends on the mode: a table for fsync-off runs says so.
        t.put("meta.kvpath.fsync", Boolean.toString(fsync));
        if (!fsync) t.put("meta.source.kvpath", t.get("meta.source.kvpath").replace("(fsync on)", "(fsync off)"));
        t.put("meta.kvpath.date", java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
        t.put("meta.kvpath.load", "before " + loadBefore + ", after " + loadavg());
        t.put("meta.kvpath.base", base.getFileName().toString());
        CostTable table = CostTable.of(t);
        try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            table.write(w, "Tandem simulator cost table: " + base.getFileName() + " with the KV path re-measured " + t.get("meta.kvpath.date") + " ("
                    + t.get("meta.kvpath.load") + ").\nWritten by io.tandem.bench.sim.KvPathCalibration; do not edit by hand.");
        }
        System.out.println(describe(r));
        System.out.println("wrote " + out);
    }

    static String describe(Result r) {
        return String.format(Locale.ROOT, "kv path per put: loop %.0f ns, exec %.0f ns, server client I/O %.0f ns, disk thread %.0f ns (%.2f syncs per put), client %.0f ns, VM (GC/JIT) %.0f ns, total %.0f ns; %s",
                r.loopNs(), r.execNs(), r.serverIoNs(), r.diskNs(), r.flushes() / (double) r.puts(), r.clientNs(), r.vmNs(), r.total(), r.byThread());
    }

    static String loadavg() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (var s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
