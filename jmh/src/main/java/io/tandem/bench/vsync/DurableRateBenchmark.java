package io.tandem.bench.vsync;

import io.tandem.api.Channel;
import io.tandem.api.Message;
import io.tandem.api.Receiver;
import io.tandem.api.Tandem;
import io.tandem.engine.NodeId;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.vsync.ShardId;
import io.tandem.protocols.vsync.ShardReceiver;
import io.tandem.protocols.vsync.VirtualSynchronyProtocol;
import io.tandem.protocols.vsync.VsyncConfig;
import io.tandem.protocols.vsync.VsyncEngine;
import io.tandem.protocols.vsync.layout.DeliveryMode;
import io.tandem.protocols.vsync.layout.LayoutFunction;
import io.tandem.protocols.vsync.layout.ShardAllocator;
import io.tandem.protocols.vsync.layout.SubgroupPolicy;
import io.tandem.storage.FlushPolicy;
import io.tandem.transport.Endpoint;
import io.tandem.transport.tcp.TcpTransport;
import io.tandem.transport.tcp.TcpTransportConfig;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Durable vs ordered message rate of virtual synchrony's shards over TCP on loopback, with the disk's
 * fsync bound measured in the same run on the same directory (issue 23, derecho.md §4.6, §9.5).
 *
 * <p>n members in this JVM, each with its own TcpTransport, event loop and on-disk storage
 * ({@link FlushPolicy#FSYNC}, one fdatasync per batch of log writes) in {@code --dir}. Layout: the
 * whole-group subgroup (the channel, idle) and {@code store}, one shard of every member, {@code DURABLE}
 * or {@code ORDERED}. Every member's engine keeps its send queue of {@code store} full (it tops it up
 * on every step of its loop), so the rate is what the group sustains. Counted at n1 over the measured
 * window: messages delivered per second, and in durable mode messages reported persisted per second
 * (the {@code persisted} upcall covers every message up to a version: on disk at every member) and the
 * lag from delivery to that upcall. Before and after the points, back-to-back 128-byte appends each
 * forced with {@code force(false)} (fdatasync, as the log's group commit and {@code FsyncProbe} do) give
 * the disk's sync rate and latency on the same filesystem.
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar io.tandem.bench.vsync.DurableRateBenchmark --dir D --base-port 21000 \
 *     [--n 3] [--payload 256] [--modes ordered,durable,durable,ordered] [--warmup 3] [--measure 6] [--fsync-seconds 5]
 * </pre>
 * Prints one CSV line per point: mode,n,payload,delivered_per_s,persisted_per_s,lag_p50_ms,lag_p99_ms,seconds.
 */
public final class DurableRateBenchmark {
    private static final ShardId STORE = new ShardId("store", 0);

    private DurableRateBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path dir = null;
        int basePort = 21000;
        int n = 3;
        int payload = 256;
        List<String> modes = List.of("ordered", "durable", "durable", "ordered");
        double warmup = 3;
        double measure = 6;
        double fsyncSeconds = 5;
        for (int i = 0; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--dir" -> dir = Path.of(v);
                case "--base-port" -> basePort = Integer.parseInt(v);
                case "--n" -> n = Integer.parseInt(v);
                case "--payload" -> payload = Integer.parseInt(v);
                case "--modes" -> modes = List.of(v.split(","));
                case "--warmup" -> warmup = Double.parseDouble(v);
                case "--measure" -> measure = Double.parseDouble(v);
                case "--fsync-seconds" -> fsyncSeconds = Double.parseDouble(v);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (dir == null) throw new IllegalArgumentException("--dir is required (a directory on the disk to measure, not tmpfs)");
        Files.createDirectories(dir);
        System.out.println("# load at start: " + loadavg() + "; dir " + dir.toAbsolutePath() + " on " + Files.getFileStore(dir).type());
        fsyncBound(dir, fsyncSeconds, "before");
        System.out.println("mode,n,payload,delivered_per_s,persisted_per_s,lag_p50_ms,lag_p99_ms,seconds");
        int run = 0;
        for (String mode : modes) {
            boolean durable = switch (mode) {
                case "durable" -> true;
                case "ordered" -> false;
                default -> throw new IllegalArgumentException("--modes takes ordered and durable, not " + mode);
            };
            Point p = point(dir.resolve("run-" + run + "-" + mode), n, payload, durable, basePort + 10 * run, warmup, measure, run);
            run++;
            System.out.printf(Locale.ROOT, "%s,%d,%d,%.0f,%.0f,%.2f,%.2f,%.2f%n", mode, n, payload, p.delivered / p.seconds, p.persisted / p.seconds, p.lagP50Ms, p.lagP99Ms, p.seconds);
            System.out.flush();
        }
        fsyncBound(dir, fsyncSeconds, "after");
        System.out.println("# load at end: " + loadavg());
        System.exit(0);
    }

    record Point(long delivered, long persisted, double seconds, double lagP50Ms, double lagP99Ms) {}

    /** What n1 saw: deliveries, and persisted messages with their lag (written on n1's loop, read after the window). */
    static final class Counter implements ShardReceiver {
        volatile long delivered;
        volatile long persisted;
        volatile boolean measuring;
        final ArrayDeque<long[]> waiting = new ArrayDeque<>();
        long[] lags = new long[1 << 16];
        int lagCount;

        @Override
        public void deliver(ShardId shard, NodeId sender, long version, byte[] payload) {
            if (!shard.equals(STORE)) return;
            delivered++;
            waiting.add(new long[] {version, System.nanoTime()});
        }

        @Override
        public void persisted(ShardId shard, long version) {
            if (!shard.equals(STORE)) return;
            long now = System.nanoTime();
            while (!waiting.isEmpty() && waiting.peekFirst()[0] <= version) {
                long[] w = waiting.pollFirst();
                persisted++;
                if (measuring) {
                    if (lagCount == lags.length) lags = Arrays.copyOf(lags, 2 * lagCount);
                    lags[lagCount++] = now - w[1];
                }
            }
        }

        @Override
        public void replayStarts(ShardId shard) {
            waiting.clear();
        }
    }

    /** Keeps its queue of the store shard full: tops it up on every step of its loop and every heartbeat. */
    static final class Pump extends VsyncEngine {
        private final byte[] data;

        Pump(NodeId self, List<NodeId> members, VsyncConfig config, LayoutFunction layout, ShardReceiver receiver, int payload) {
            super(self, members, config, layout, receiver);
            this.data = new byte[payload];
        }

        private int topUp() {
            if (phase() != Phase.MEMBER || !myShards().contains(STORE)) return 0;
            int sent = 0;
            while (sent < 256 && orderedSend(STORE, data) == null) sent++;
            return sent;
        }

        @Override
        public int doWork() {
            return super.doWork() + topUp();
        }

        @Override
        public void onTimer(TimerKey key) {
            super.onTimer(key);
            topUp();
        }
    }

    private static Point point(Path dir, int n, int payload, boolean durable, int basePort, double warmup, double measure, int run) throws Exception {
        Map<NodeId, Endpoint> members = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) members.put(NodeId.of("n" + (i + 1)), new Endpoint("127.0.0.1", basePort + i));
        int window = 64;
        int slotBytes = Math.max(512, (payload + 48 + 63) / 64 * 64 + 64);
        // A 5 s suspicion timeout: with every member saturating two shared cores, a 500 ms one removes members.
        VsyncConfig config = VsyncConfig.DEFAULTS.withWindow(window, slotBytes).withMaxQueuedSends(1024)
                .withTimers(java.time.Duration.ofMillis(20), java.time.Duration.ofSeconds(5), java.time.Duration.ofMillis(200), java.time.Duration.ZERO);
        LayoutFunction layout = LayoutFunction.overlapping(List.of(
                new ShardAllocator(List.of(new SubgroupPolicy(VsyncEngine.GROUP, 1, 1, config.maxMembers(), DeliveryMode.ORDERED))),
                new ShardAllocator(List.of(new SubgroupPolicy("store", 1, 1, config.maxMembers(), durable ? DeliveryMode.DURABLE : DeliveryMode.ORDERED)))));
        Counter counter = new Counter();
        List<Channel> channels = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                ShardReceiver receiver = i == 0 ? counter : ShardReceiver.NONE;
                VirtualSynchronyProtocol protocol = new VirtualSynchronyProtocol(config, layout) {
                    @Override
                    protected VsyncEngine newEngine(NodeId self, List<NodeId> ms) {
                        return new Pump(self, ms, config, layout, receiver, payload);
                    }
                };
                channels.add(Tandem.channel().id("n" + (i + 1)).members(members).cluster("vsync-durable-bench-" + run)
                        .protocol(protocol)
                        .transport(TcpTransport.factory(TcpTransportConfig.defaults().withIoThreads(1)))
                        .dataDir(dir.resolve("n" + (i + 1)), FlushPolicy.FSYNC)
                        .connect(new Receiver() {
                            @Override
                            public void receive(Message msg) {}
                        }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!channels.stream().allMatch(c -> c.view() != null && c.view().members().size() == members.size())) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("the group of " + members.size() + " did not form");
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            Thread.sleep((long) (warmup * 1000));
            long d0 = counter.delivered;
            long p0 = counter.persisted;
            long t0 = System.nanoTime();
            counter.measuring = true;
            Thread.sleep((long) (measure * 1000));
            counter.measuring = false;
            long d1 = counter.delivered;
            long p1 = counter.persisted;
            long t1 = System.nanoTime();
            long[] lags;
            synchronized (counter) {
                lags = Arrays.copyOf(counter.lags, counter.lagCount);
            }
            Arrays.sort(lags);
            double p50 = lags.length == 0 ? 0 : lags[lags.length / 2] / 1e6;
            double p99 = lags.length == 0 ? 0 : lags[Math.min(lags.length - 1, (int) (lags.length * 0.99))] / 1e6;
            return new Point(d1 - d0, p1 - p0, (t1 - t0) / 1e9, p50, p99);
        } finally {
            for (Channel c : channels) c.close();
        }
    }

    /** Back-to-back 128-byte appends, each forced with fdatasync, on {@code dir}'s filesystem. */
    private static void fsyncBound(Path dir, double seconds, String when) throws Exception {
        Path file = Files.createTempFile(dir, "fsync-bound-", ".log");
        long[] samples = new long[1 << 16];
        int count = 0;
        ByteBuffer record = ByteBuffer.allocateDirect(128);
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long start = System.nanoTime();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            while (System.nanoTime() < end) {
                record.clear();
                long t = System.nanoTime();
                ch.write(record);
                ch.force(false);
                if (count == samples.length) samples = Arrays.copyOf(samples, 2 * count);
                samples[count++] = System.nanoTime() - t;
            }
        }
        double took = (System.nanoTime() - start) / 1e9;
        Files.deleteIfExists(file);
        long[] s = Arrays.copyOf(samples, count);
        Arrays.sort(s);
        System.out.printf(Locale.ROOT, "# fsync bound (%s): %d fdatasyncs in %.1f s = %.0f syncs/s; latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms%n", when, count, took,
                count / took, s[count / 2] / 1e6, s[(int) (count * 0.9)] / 1e6, s[Math.min(count - 1, (int) (count * 0.99))] / 1e6, s[count - 1] / 1e6);
    }

    private static String loadavg() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "?";
        }
    }
}
