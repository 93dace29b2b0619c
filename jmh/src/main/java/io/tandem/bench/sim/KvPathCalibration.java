package io.tandem.bench.sim;

import io.tandem.kv.client.KvClientConfig;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.server.KvServer;
import io.tandem.kv.server.ServerConfig;
import io.tandem.sim.cost.CostTable;
import io.tandem.transport.Endpoint;
import java.io.IOException;
import java.io.Writer;
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
 * The KV server's and client library's own CPU, split into a part per put and a part per wake-up of each
 * thread (issue 18). A real unreplicated {@link KvServer} (fsync on or off, in {@code tandem.bench.dir}) and a
 * real {@link TandemKvClient} run in this JVM; closed-loop clients each keep one 64-byte put outstanding on
 * 10,000 keys (what the cluster benchmark's load generator does), at several concurrencies in turn (default
 * 1, 4, 16 and 64). Per concurrency and per thread group, the CPU time and the voluntary context switches of
 * its native threads are read from {@code /proc/self/task}:
 *
 * <ul>
 *   <li>{@code tandem-loop-*}: the node runtime's protocol loop (the model's LOOP stage);</li>
 *   <li>{@code tandem-exec-*}: the execution thread (EXEC): session table, decode, B+-tree put, result, reply hand-off;</li>
 *   <li>{@code tandem-disk-*}: the storage thread (log writes and syncs), charged per sync;</li>
 *   <li>{@code tandem-kv-client-*} and the closed-loop driver: the load generator;</li>
 *   <li>the server's other threads ({@code tandem-clients-*}: its client endpoint's Netty I/O): the node's I/O;</li>
 *   <li>the JVM's own threads: GC and VM threads charged per put, split between server and client; the JIT compilers
 *       (a cost per second of a warming JVM, not per put) are reported, not charged.</li>
 * </ul>
 *
 * <p>Why two parts: the real threads handle whatever queued while they were busy in one turn (one socket read for
 * several requests, one queue drain, one reply flush), and pay the turn's fixed work (waking, the syscalls, the
 * spin before parking) once. The more requests in flight, the fewer wake-ups per put (measured: the voluntary
 * switches per put fall with the concurrency), so a per-put cost measured at one concurrency is wrong at the others.
 * A least-squares line of CPU per put against wake-ups per put over the concurrencies gives each group's per-put
 * part and its per-wake-up part; the model charges the second to a job that finds its stage idle, so the batching
 * comes out of its queues.
 */
final class KvPathCalibration {
    private KvPathCalibration() {}

    /** CPU and wake-ups of one group of threads over a measured point: CPU ns and voluntary context switches (parks, blocking waits). */
    record Usage(double cpuNs, double wakeups) {
        Usage plus(Usage o) {
            return new Usage(cpuNs + o.cpuNs, wakeups + o.wakeups);
        }
    }

    /** One concurrency: puts, log syncs, seconds, latency, and every thread group's usage. */
    record Point(int clients, long puts, long flushes, double seconds, long p50Us, long p99Us, Map<String, Usage> groups, Map<String, Double> byThread) {
        Usage group(String g) {
            return groups.getOrDefault(g, new Usage(0, 0));
        }

        double perPut(String g) {
            return group(g).cpuNs() / puts;
        }

        double wakeupsPerPut(String g) {
            return group(g).wakeups() / puts;
        }
    }

    /** The thread groups: each is a model stage (or the VM's own threads, or the load generator). */
    static final List<String> GROUPS = List.of("loop", "exec", "server-io", "disk", "client", "gc", "jit");

    /**
     * One group's CPU split into a part per put and a part per wake-up of its threads, from a least-squares line
     * through the points (CPU per put = perPut + perWakeup * wake-ups per put); {@code rms} is the fit's residual
     * in ns per put.
     */
    record Split(double perPut, double perWakeup, double rms) {}

    static Split fit(List<Point> points, String group) {
        int n = points.size();
        double[] x = new double[n];
        double[] y = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = points.get(i).wakeupsPerPut(group);
            y[i] = points.get(i).perPut(group);
        }
        return fit(x, y);
    }

    /** Least squares of y = a + b x with a, b >= 0 (a negative part is no cost: then the line through the origin, or the mean). */
    static Split fit(double[] x, double[] y) {
        int n = x.length;
        double mx = 0;
        double my = 0;
        for (int i = 0; i < n; i++) {
            mx += x[i] / n;
            my += y[i] / n;
        }
        double sxx = 0;
        double sxy = 0;
        for (int i = 0; i < n; i++) {
            sxx += (x[i] - mx) * (x[i] - mx);
            sxy += (x[i] - mx) * (y[i] - my);
        }
        double b = sxx > 0 ? sxy / sxx : 0;
        double a = my - b * mx;
        if (b < 0) {
            b = 0;
            a = my;
        } else if (a < 0) {
            double xx = 0;
            double xy = 0;
            for (int i = 0; i < n; i++) {
                xx += x[i] * x[i];
                xy += x[i] * y[i];
            }
            a = 0;
            b = xx > 0 ? xy / xx : 0;
        }
        double ss = 0;
        for (int i = 0; i < n; i++) ss += Math.pow(y[i] - a - b * x[i], 2);
        return new Split(a, b, Math.sqrt(ss / n));
    }

    /** A native thread of this process: its name (15 characters at most), CPU time and voluntary context switches. */
    record Task(String name, long cpuNs, long voluntary) {}

    /** Every thread of this process from {@code /proc/self/task}: run time ({@code schedstat}) and voluntary switches ({@code status}). */
    static Map<Long, Task> tasks() {
        Map<Long, Task> m = new HashMap<>();
        try (var dirs = Files.list(Path.of("/proc/self/task"))) {
            for (Path d : dirs.toList()) {
                try {
                    String name = Files.readString(d.resolve("comm")).trim();
                    long cpu = Long.parseLong(Files.readString(d.resolve("schedstat")).trim().split("\\s+")[0]);
                    long vol = 0;
                    for (String line : Files.readAllLines(d.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) vol = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                    }
                    m.put(Long.parseLong(d.getFileName().toString()), new Task(name, cpu, vol));
                } catch (IOException | RuntimeException gone) {
                    // the thread ended while it was read
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read /proc/self/task (Linux only)", e);
        }
        return m;
    }

    /** The group of a native thread, by the names the runtime, the KV server and client, Netty and the JVM give them. */
    static String group(String name) {
        if (name.startsWith("tandem-loop")) return "loop";
        if (name.startsWith("tandem-exec")) return "exec";
        if (name.startsWith("tandem-disk")) return "disk";
        if (name.startsWith("tandem-kv-clie")) return "client";
        if (name.startsWith("tandem-")) return "server-io"; // tandem-clients-* (the client endpoint), tandem-tcp-*, the watchdog
        if (name.startsWith("C1 ") || name.startsWith("C2 ")) return "jit";
        if (name.startsWith("GC ") || name.startsWith("G1 ") || name.startsWith("VM ")
                || name.startsWith("Reference") || name.startsWith("Finalizer") || name.startsWith("Common-Cleaner") || name.startsWith("Sweeper")
                || name.startsWith("Notification") || name.startsWith("Signal") || name.startsWith("Service Thread") || name.startsWith("Monitor Defl")) {
            return "gc";
        }
        return "client"; // the closed-loop driver and anything else of the load generator's side
    }

    /** A real server and client in this JVM, measured at each of {@code concurrencies} closed-loop clients in turn. */
    static List<Point> measure(boolean quick, Path dir, boolean fsync, int[] concurrencies) throws Exception {
        return measure(quick, dir, fsync, concurrencies, 0);
    }

    /** The same, the server on ports {@code basePort} and {@code basePort + 1} (0: free ports the kernel picks). */
    static List<Point> measure(boolean quick, Path dir, boolean fsync, int[] concurrencies, int basePort) throws Exception {
        Path data = Files.createTempDirectory(dir, "tandem-kvpath-");
        int peer = basePort > 0 ? basePort : freePort();
        int clientPort = basePort > 0 ? basePort + 1 : freePort();
        Map<String, String> flags = new LinkedHashMap<>();
        flags.put(ServerConfig.Key.ID.configName(), "r0");
        flags.put(ServerConfig.Key.MEMBERS.configName(), "r0=127.0.0.1:" + peer);
        flags.put(ServerConfig.Key.CLIENT_MEMBERS.configName(), "r0=127.0.0.1:" + clientPort);
        flags.put(ServerConfig.Key.DATA_DIR.configName(), data.toString());
        flags.put(ServerConfig.Key.FSYNC.configName(), Boolean.toString(fsync));
        flags.put(ServerConfig.Key.PROTOCOL.configName(), "unreplicated");
        flags.put(ServerConfig.Key.CLUSTER.configName(), "kvpath");
        KvServer server = KvServer.start(ServerConfig.load(null, flags));
        TandemKvClient client = TandemKvClient.connect(KvClientConfig.of(List.of(new Endpoint("127.0.0.1", clientPort))).withMaxInFlight(1024));
        try {
            int keys = 10_000;
            byte[][] keyBytes = new byte[keys][];
            for (int k = 0; k < keys; k++) keyBytes[k] = String.format("key-%012d", k).getBytes(StandardCharsets.US_ASCII);
            byte[] value = new byte[64];
            new SplittableRandom(7).nextBytes(value);
            client.put(keyBytes[0], value);
            run(client, keyBytes, value, 16, quick ? 30_000 : 100_000, new Histogram(3)); // JIT warm-up
            List<Point> points = new java.util.ArrayList<>();
            for (int clients : concurrencies) {
                // fewer puts with few clients in flight (each waits for a round trip and a sync)
                long measured = Math.max(quick ? 5_000 : 10_000, (quick ? 60_000L : 200_000L) * Math.min(16, clients) / 16);
                run(client, keyBytes, value, clients, measured / 5, new Histogram(3)); // settle at this concurrency
                long syncs0 = syncs(server);
                Map<Long, Task> t0 = tasks();
                long w0 = System.nanoTime();
                Histogram latency = new Histogram(3);
                run(client, keyBytes, value, clients, measured, latency);
                long nanos = System.nanoTime() - w0;
                Map<Long, Task> t1 = tasks();
                long flushes = syncs(server) - syncs0;
                Map<String, Usage> groups = new TreeMap<>();
                Map<String, Double> byThread = new TreeMap<>();
                for (Map.Entry<Long, Task> e : t1.entrySet()) {
                    Task before = t0.get(e.getKey());
                    Task now = e.getValue();
                    long cpu = now.cpuNs() - (before == null ? 0 : before.cpuNs());
                    long vol = now.voluntary() - (before == null ? 0 : before.voluntary());
                    if (cpu <= 0 && vol <= 0) continue;
                    groups.merge(group(now.name()), new Usage(cpu, vol), Usage::plus);
                    byThread.merge(now.name().replaceAll("[0-9]+", "#"), (double) Math.round(cpu / (double) measured), Double::sum);
                }
                points.add(new Point(clients, measured, flushes, nanos / 1e9, latency.getValueAtPercentile(50) / 1000, latency.getValueAtPercentile(99) / 1000,
                        groups, byThread));
            }
            return points;
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


    /**
     * Writes the measured path into table {@code t}. Each thread group's CPU is split into a part per put and a part per
     * wake-up ({@link #fit}): the cost model charges the first per request and the second to a job that finds its stage
     * idle, so that batching (one socket read or one queue drain for several requests, as the real server does) comes out
     * of the queues. The VM's own threads (GC, JIT) are charged per put, split between server and load generator by their
     * per-put CPU, the server's share over its parts by their per-put CPU. The loop's per-put part beyond the loop events
     * the model charges separately ({@code loop.storage} per sync, {@code loop.applied}) becomes {@code loop.client-request.ns}.
     */
    static void put(Map<String, String> t, List<Point> points) {
        Map<String, Split> split = new LinkedHashMap<>();
        for (String g : List.of("loop", "exec", "server-io", "client")) split.put(g, fit(points, g));
        long puts = points.stream().mapToLong(Point::puts).sum();
        long flushes = points.stream().mapToLong(Point::flushes).sum();
        // The storage thread: CPU per put = per entry written + per sync (a sync blocks it several times, so its
        // voluntary switches are no measure of its turns; the syncs are).
        double[] sx = new double[points.size()];
        double[] sy = new double[points.size()];
        for (int i = 0; i < points.size(); i++) {
            sx[i] = points.get(i).flushes() / (double) points.get(i).puts();
            sy[i] = points.get(i).perPut("disk");
        }
        Split disk = fit(sx, sy);
        double vm = points.stream().mapToDouble(p -> p.group("gc").cpuNs()).sum() / puts;
        double jit = points.stream().mapToDouble(p -> p.group("jit").cpuNs()).sum() / points.stream().mapToDouble(Point::seconds).sum();
        double server = split.get("loop").perPut() + split.get("exec").perPut() + split.get("server-io").perPut();
        double clientPart = split.get("client").perPut();
        double serverVm = server + clientPart > 0 ? vm * server / (server + clientPart) : vm / 2;
        double vmFactor = server > 0 ? 1 + serverVm / server : 1;
        double serverIo = split.get("server-io").perPut() * vmFactor;
        double exec = split.get("exec").perPut() * vmFactor;
        double loop = split.get("loop").perPut() * vmFactor;
        double client = clientPart + (vm - serverVm);
        if (server == 0) { // no per-put part on the server at all: its GC share goes to the execution thread (it allocates the results)
            exec += serverVm;
        }
        CostTable old = CostTable.of(t);
        double flushesPerPut = flushes / (double) puts;
        long loopOther = Math.round(old.loopCost("storage", null, 0) * flushesPerPut + old.loopCost("applied", null, 0));
        long request = Math.max(old.loopCost("client-request", null, 0), Math.round(loop) - loopOther);
        t.put("client.request.ns", Long.toString(Math.round(serverIo / 2)));
        t.put("client.reply.ns", Long.toString(Math.round(serverIo - Math.round(serverIo / 2))));
        t.put("client.op.ns", Long.toString(Math.round(client)));
        t.put("apply.ns", Long.toString(Math.round(exec)));
        t.put("loop.client-request.ns", Long.toString(request));
        t.put("disk.flush.cpu.ns", Long.toString(Math.round(disk.perWakeup())));
        t.put("disk.entry.cpu.ns", Long.toString(Math.round(disk.perPut())));
        t.put("wakeup.IO.ns", Long.toString(Math.round(split.get("server-io").perWakeup())));
        t.put("wakeup.LOOP.ns", Long.toString(Math.round(split.get("loop").perWakeup())));
        t.put("wakeup.EXEC.ns", Long.toString(Math.round(split.get("exec").perWakeup())));
        t.put("wakeup.DISK.ns", "0"); // the storage thread's wake-ups are in disk.flush.cpu (one per sync)
        t.put("wakeup.client.ns", Long.toString(Math.round(split.get("client").perWakeup())));
        StringBuilder fits = new StringBuilder();
        for (Map.Entry<String, Split> e : split.entrySet()) {
            fits.append(fits.isEmpty() ? "" : "; ").append(String.format(Locale.ROOT, "%s %.0f ns/put + %.0f ns/wake-up (rms %.0f)", e.getKey(), e.getValue().perPut(),
                    e.getValue().perWakeup(), e.getValue().rms()));
        }
        fits.append(String.format(Locale.ROOT, "; disk %.0f ns/put + %.0f ns/sync (rms %.0f); gc %.0f ns/put; jit %.1f ms/s (not charged)", disk.perPut(),
                disk.perWakeup(), disk.rms(), vm, jit / 1e6));
        t.put("meta.kvpath.fit", fits.toString());
        StringBuilder runs = new StringBuilder();
        for (Point p : points) {
            runs.append(runs.isEmpty() ? "" : "; ").append(String.format(Locale.ROOT, "%d clients: %d puts, %d syncs in %.1f s (%.0f puts/s), p50 %d us, p99 %d us, CPU/put",
                    p.clients(), p.puts(), p.flushes(), p.seconds(), p.puts() / p.seconds(), p.p50Us(), p.p99Us()));
            for (String g : GROUPS) runs.append(String.format(Locale.ROOT, " %s %.0f ns/%.2f wk", g, p.perPut(g), p.wakeupsPerPut(g)));
        }
        t.put("meta.kvpath.run", runs.toString());
        t.remove("meta.kvpath.threads");
        for (String k : List.of("loop", "exec", "server-io", "disk", "client", "vm", "total")) t.remove("meta.kvpath." + k + ".ns");
        t.put("meta.source.apply", "the KV server's execution thread per put (meta.source.kvpath); the bare SequentialExecutor over KvStateMachine measured "
                + t.getOrDefault("meta.kvpath.apply.bare.ns", old.values().getOrDefault("apply.ns", "?")) + " ns");
        t.putIfAbsent("meta.kvpath.apply.bare.ns", old.values().getOrDefault("apply.ns", "?"));
        t.put("meta.source.client", "client.request, client.reply, client.op measured on the real KV server and client (meta.source.kvpath)");
        t.put("meta.source.wakeup", "wakeup.IO/LOOP/EXEC/client: each thread group's CPU per voluntary context switch (meta.source.kvpath); wakeup.ns (other stages): "
                + "two platform threads handing a token back and forth with LockSupport.park/unpark, process CPU per hand-off");
        t.put("meta.source.kvpath", "a real unreplicated KvServer (fsync " + (Boolean.parseBoolean(t.getOrDefault("meta.kvpath.fsync", "true")) ? "on" : "off")
                + ") and TandemKvClient in one JVM, closed-loop clients with one 64 B put outstanding each on 10,000 keys, at "
                + points.stream().map(p -> Integer.toString(p.clients())).collect(java.util.stream.Collectors.joining("/")) + " clients (HdrHistogram per put). "
                + "Per point and thread group (by native thread name): CPU time (/proc/self/task/*/schedstat) and voluntary context switches "
                + "(/proc/self/task/*/status: a park, a blocking wait in epoll or the disk). Per group a least-squares line CPU/put = a + b * switches/put "
                + "over the points gives a per-put part (a) and a per-wake-up part (b) (meta.kvpath.fit). client.request/client.reply = the server's I/O "
                + "threads' a, half each; apply = the execution thread's a; loop.client-request = the loop's a less loop.storage per sync and "
                + "loop.applied; client.op = the client library and driver threads' a; wakeup.<stage> = b; the storage thread's CPU per put against "
                + "syncs per put gives disk.entry.cpu (a) and disk.flush.cpu (b); GC and VM threads per put, split between server and client by their a "
                + "(to the execution thread when the server's a are all 0); the JIT compilers' CPU per second is reported, not charged");
    }

    /**
     * {@code KvPathCalibration --base TABLE --out TABLE [--quick] [--no-fsync] [--clients 1,16,64]}: re-measures only the KV path keys
     * of an existing table.
     */
    public static void main(String[] args) throws Exception {
        Path base = null;
        Path out = null;
        boolean quick = false;
        boolean fsync = true;
        int[] clients = {1, 4, 16, 64};
        int basePort = 0;
        String usage = "usage: KvPathCalibration --base TABLE --out TABLE [--quick] [--no-fsync] [--clients 1,4,16,64] [--port P (P and P+1; default: free ports)]";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--base" -> base = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--quick" -> quick = true;
                case "--no-fsync" -> fsync = false;
                case "--clients" -> clients = java.util.Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--port" -> basePort = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException(usage);
            }
        }
        if (base == null || out == null || clients.length < 2) throw new IllegalArgumentException(usage + " (at least two client counts)");
        TreeMap<String, String> t = new TreeMap<>(CostTable.read(base).values());
        String loadBefore = loadavg();
        List<Point> points = measure(quick, Path.of(System.getProperty("tandem.bench.dir", System.getProperty("java.io.tmpdir"))), fsync, clients, basePort);
        t.put("meta.kvpath.fsync", Boolean.toString(fsync));
        put(t, points);
        t.put("meta.kvpath.date", java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
        t.put("meta.kvpath.load", "before " + loadBefore + ", after " + loadavg());
        t.put("meta.kvpath.base", base.getFileName().toString());
        CostTable table = CostTable.of(t);
        try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            table.write(w, "Tandem simulator cost table: " + base.getFileName() + " with the KV path re-measured " + t.get("meta.kvpath.date") + " ("
                    + t.get("meta.kvpath.load") + ").\nWritten by io.tandem.bench.sim.KvPathCalibration; do not edit by hand.");
        }
        for (Point p : points) System.out.println(describe(p));
        System.out.println(t.get("meta.kvpath.fit"));
        System.out.println("wrote " + out);
    }

    static String describe(Point p) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%d clients: %.0f puts/s, p50 %d us, p99 %d us, %.2f syncs/put; per put:", p.clients(),
                p.puts() / p.seconds(), p.p50Us(), p.p99Us(), p.flushes() / (double) p.puts()));
        for (String g : GROUPS) b.append(String.format(Locale.ROOT, " %s %.0f ns (%.2f wake-ups)", g, p.perPut(g), p.wakeupsPerPut(g)));
        return b.append("; threads ").append(p.byThread()).toString();
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
