package io.tandem.bench.vsync;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.api.Channel;
import io.tandem.api.Message;
import io.tandem.api.Receiver;
import io.tandem.api.Tandem;
import io.tandem.codec.CodecIds;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.protocols.Protocols;
import io.tandem.protocols.vsync.VsyncConfig;
import io.tandem.transport.Endpoint;
import io.tandem.transport.TransportListener;
import io.tandem.transport.TransportSetup;
import io.tandem.transport.tcp.TcpTransport;
import io.tandem.transport.tcp.TcpTransportConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Large-message bandwidth of virtual synchrony over TCP on loopback (issue 23, derecho.md §3.3-§3.4):
 * one sender (member n1) multicasting messages of one size to a group of n, each above the SMC
 * threshold, so its header goes in the SMC ring and its payload by RDMC (binomial pipeline, blocks of
 * {@code --block} bytes); the figure is the payload bytes delivered per second at each receiver
 * (members n2..nn; the mean and the slowest). Against it, the transport's own number: one TCP transport
 * streaming the same bytes to one other, in messages of the block size (at most {@code --block},
 * smaller for smaller messages), as fast as a window of 16 MiB in flight lets it ("raw"). All members
 * and both raw endpoints are in this one JVM, each with its own TcpTransport (one I/O thread).
 * Beside it, for each group size n above 2, n − 1 such streams at once ("raw-streams", n), each a
 * transport pair of its own: the bytes the machine's two cores move through loopback in all, which
 * bounds a group whose n − 1 receivers each take every byte (mean and slowest are per stream).
 * And for each n above 2 the group's own topology with no protocol ("raw-fanout", n): n transports, one
 * sender streaming every message's bytes (in messages of the block size) to the n − 1 others at once,
 * each receiver with 16 MiB in flight: the machine's own fan-out of one stream to n − 1 receivers, a
 * diagnostic beside the target (which is against one stream), not a replacement for it.
 *
 * <pre>
 * java -Xmx6g -cp jmh/target/benchmarks.jar io.tandem.bench.vsync.LargeMessageBenchmark \
 *     --sizes 2,3,4,5 --payloads 65536,262144,1048576,4194304,16777216 --block 262144 \
 *     --warmup 1 --measure 2 --runs 1 --base-port 20000 [--inflight 4]
 * </pre>
 * {@code --inflight}: messages the sender keeps sent but not yet delivered to itself. With
 * {@code --runs R} the whole matrix is measured R times, each run visiting the points in the reverse
 * order of the one before (A B B A). {@code --raw false} or {@code --tandem false} leaves those points
 * out (to interleave two builds in one script). Prints one CSV line per point:
 * run,system,n,payload,mb_per_s_mean,mb_per_s_min,messages,seconds (MB = 10^6 bytes).
 */
public final class LargeMessageBenchmark {
    private LargeMessageBenchmark() {}

    private static final AtomicReference<Throwable> FIRST_ERROR = new AtomicReference<>();
    /** The transports' frame and flush counts over the last measured window, per message delivered at n2 (a comment line). */
    private static final AtomicReference<String> COUNTS = new AtomicReference<>();
    /** The raw points' I/O mode ({@code --io}; the transport's default, AUTO, unless given). */
    private static io.tandem.transport.tcp.IoMode ioMode = io.tandem.transport.tcp.IoMode.AUTO;
    /** Thread ids of the sending transports' I/O threads (named tandem-tcp-a..., tandem-tcp-s...); every other tandem-tcp thread receives. */
    private static final java.util.Set<Long> IO_SENDER = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** CPU nanoseconds of every live transport I/O thread, by thread id. */
    private static Map<Long, Long> ioThreadCpu() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        Map<Long, Long> out = new java.util.HashMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String name = t.getName();
            if (!name.startsWith("tandem-tcp-")) continue;
            long ns = mx.getThreadCpuTime(t.threadId());
            if (ns < 0) continue;
            out.put(t.threadId(), ns);
            if (name.startsWith("tandem-tcp-a") || name.startsWith("tandem-tcp-s-")) IO_SENDER.add(t.threadId());
        }
        return out;
    }

    /** The transport I/O threads' CPU over the last measured window, sending and receiving (appended to the CPU comment line). */
    private static final AtomicReference<String> IO_CPU = new AtomicReference<>();

    public static void main(String[] args) throws Exception {
        List<Integer> sizes = List.of(2, 3, 4, 5);
        List<Integer> payloads = List.of(64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20);
        int block = 256 << 10;
        double warmup = 1, measure = 2;
        double firstWarmup = -1; // the first point's warm-up (the JIT compiles during it); -1: as the others
        int basePort = 20000;
        int inflight = 4;
        int runs = 1;
        int heartbeatMs = 20;
        boolean rawPoints = true;
        io.tandem.runtime.IdleStrategy idle = io.tandem.runtime.IdleStrategy.BACKOFF;
        boolean tandemPoints = true;
        boolean streamsPoints = true;
        boolean fanoutPoints = true;
        boolean kinds = false;
        int window = 16;
        for (int i = 0; i < args.length; i += 2) {
            if (args[i].equals("--help") || args[i].equals("-h")) {
                System.out.println("usage: LargeMessageBenchmark [--sizes 2,3,4,5] [--payloads BYTES,...] [--block BYTES] [--warmup S] [--measure S]"
                        + " [--runs R] [--inflight N] [--heartbeat-ms MS] [--base-port P] [--raw true|false] [--streams true|false] [--fanout true|false] [--tandem true|false] [--idle backoff|park] [--kinds true|false] [--window W] [--io auto|io_uring|epoll|nio] [--first-warmup S]"
                        + " (small payloads need --inflight 64 to measure bandwidth rather than the window)");
                return;
            }
            if (i + 1 >= args.length) throw new IllegalArgumentException("option " + args[i] + " needs a value (--help lists the options)");
            String v = args[i + 1];
            switch (args[i]) {
                case "--sizes" -> sizes = MulticastBenchmarkArgs.ints(v);
                case "--payloads" -> payloads = MulticastBenchmarkArgs.ints(v);
                case "--block" -> block = Integer.parseInt(v);
                case "--warmup" -> warmup = Double.parseDouble(v);
                case "--measure" -> measure = Double.parseDouble(v);
                case "--base-port" -> basePort = Integer.parseInt(v);
                case "--inflight" -> inflight = Integer.parseInt(v);
                case "--runs" -> runs = Integer.parseInt(v);
                case "--heartbeat-ms" -> heartbeatMs = Integer.parseInt(v);
                case "--raw" -> rawPoints = Boolean.parseBoolean(v);
                case "--tandem" -> tandemPoints = Boolean.parseBoolean(v);
                case "--streams" -> streamsPoints = Boolean.parseBoolean(v);
                case "--fanout" -> fanoutPoints = Boolean.parseBoolean(v);
                case "--kinds" -> kinds = Boolean.parseBoolean(v);
                case "--window" -> window = Integer.parseInt(v);
                case "--first-warmup" -> firstWarmup = Double.parseDouble(v);
                case "--io" -> ioMode = io.tandem.transport.tcp.IoMode.valueOf(v.toUpperCase(Locale.ROOT));
                case "--idle" -> idle = switch (v) {
                    case "backoff" -> io.tandem.runtime.IdleStrategy.BACKOFF;
                    case "park" -> io.tandem.runtime.IdleStrategy.PARK;
                    default -> throw new IllegalArgumentException("--idle must be backoff or park, was " + v);
                };
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.println("# " + System.getProperty("java.vm.name") + " " + Runtime.version() + ", " + Runtime.getRuntime().availableProcessors() + " CPUs, max heap "
                + (Runtime.getRuntime().maxMemory() >> 20) + " MiB; block " + block + " bytes, " + inflight + " messages in flight, window " + window + "; idle " + idle);
        System.out.println("run,system,n,payload,mb_per_s_mean,mb_per_s_min,messages,seconds");
        // A point is {kind, n, payload}: kind 0 raw streams (n - 1 of them at once), 1 Tandem with n members, 2 raw fan-out to n - 1.
        List<int[]> points = new ArrayList<>();
        for (int payload : payloads) {
            if (rawPoints) {
                points.add(new int[] {0, 2, payload}); // the transport's own number: one stream
                // n - 1 streams at once: what the machine's cores move through loopback in all, the bound for a
                // group of n whose n - 1 receivers each take every byte (derecho.md §9.5: two cores for everyone).
                if (streamsPoints) for (int n : sizes) if (n > 2) points.add(new int[] {0, n, payload});
                // The group's topology without the protocol: one sender's transport to n - 1 receivers at once.
                if (fanoutPoints) for (int n : sizes) if (n > 2) points.add(new int[] {2, n, payload});
            }
            if (tandemPoints) for (int n : sizes) points.add(new int[] {1, n, payload});
        }
        int port = 0;
        final double warmupEach = warmup;
        for (int run = 1; run <= runs; run++) {
            List<int[]> order = new ArrayList<>(points);
            if (run % 2 == 0) java.util.Collections.reverse(order);
            for (int[] p : order) {
                double pointWarmup = port == 0 && firstWarmup >= 0 ? firstWarmup : warmupEach;
                int base = basePort + (port++ % 95) * 10;
                Point r = switch (p[0]) {
                    case 0 -> raw(p[2], block, p[1] - 1, base, pointWarmup, measure);
                    case 2 -> fanout(p[2], block, p[1] - 1, base, pointWarmup, measure);
                    default -> tandem(p[1], p[2], block, inflight, window, heartbeatMs, idle, kinds, base, pointWarmup, measure);
                };
                String system = p[0] == 1 ? "tandem" : p[0] == 2 ? "raw-fanout" : p[1] == 2 ? "raw" : "raw-streams";
                System.out.printf(Locale.ROOT, "%d,%s,%d,%d,%.1f,%.1f,%d,%.2f%n", run, system, p[1], p[2], r.meanMbps, r.minMbps, r.messages, r.seconds);
                // The JVM's CPU over the measured window (every member, transport and I/O thread of the point, plus the
                // JIT and GC): cores used, and CPU per MB that reached a receiver (summed over receivers, so per transfer).
                // One line, read by the results' medians.py scripts (rdmc19: cores and CPU us per MB; tcp19: the I/O threads).
                String io = IO_CPU.getAndSet(null);
                System.out.printf(Locale.ROOT, "# cpu %s n=%d payload=%d: %.2f cores, %.0f CPU us per MB received (all receivers)%s%n",
                        system, p[1], p[2], r.cores, r.cpuUsPerMb, io == null ? "" : "; I/O threads: " + io);
                String counts = COUNTS.getAndSet(null);
                if (counts != null) System.out.println("# " + system + " n=" + p[1] + " payload=" + p[2] + ": " + counts);
                System.out.flush();
                if (FIRST_ERROR.get() != null) throw new IllegalStateException("a send failed", FIRST_ERROR.get());
            }
        }
        System.exit(0);
    }

    private record Point(double meanMbps, double minMbps, long messages, double seconds, double cores, double cpuUsPerMb) {}

    /** Measures the bytes counted by {@code counters} (one per receiver) between warm-up end and measure end. */
    private static Point measure(AtomicLong[] counters, AtomicLong messages, double warmup, double measure) throws InterruptedException {
        return measure(counters, messages, warmup, measure, List.of());
    }

    /** ... and counts the frames and flushes of {@code transports} over the same window. */
    private static Point measure(AtomicLong[] counters, AtomicLong messages, double warmup, double measure, List<TcpTransport> transports) throws InterruptedException {
        return measure(counters, messages, warmup, measure, transports, null);
    }

    /** ... and, with {@code kinds}, the frames by kind over the same window. */
    private static Point measure(AtomicLong[] counters, AtomicLong messages, double warmup, double measure, List<TcpTransport> transports, FrameKinds kinds) throws InterruptedException {
        Thread.sleep((long) (warmup * 1000));
        Map<String, Long> kinds0 = kinds == null ? null : kinds.snapshot();
        long frames0 = 0, flushes0 = 0;
        for (TcpTransport t : transports) {
            frames0 += t.stats().framesSent();
            flushes0 += t.stats().flushes();
        }
        long[] before = new long[counters.length];
        for (int i = 0; i < counters.length; i++) before[i] = counters[i].get();
        long m0 = messages.get();
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        Map<Long, Long> io0 = ioThreadCpu();
        long t0 = System.nanoTime();
        Thread.sleep((long) (measure * 1000));
        long t1 = System.nanoTime();
        long cpu1 = os.getProcessCpuTime();
        Map<Long, Long> io1 = ioThreadCpu();
        long ioSend = 0, ioReceive = 0;
        for (Map.Entry<Long, Long> e : io1.entrySet()) {
            long d = e.getValue() - io0.getOrDefault(e.getKey(), 0L);
            if (IO_SENDER.contains(e.getKey())) ioSend += d;
            else ioReceive += d;
        }
        if (!transports.isEmpty()) {
            long frames = -frames0, flushes = -flushes0;
            for (TcpTransport t : transports) {
                frames += t.stats().framesSent();
                flushes += t.stats().flushes();
            }
            double m = Math.max(1, messages.get() - m0);
            String line = String.format(Locale.ROOT, "frames sent %.2f, flushes %.2f per message (all members), %.2f frames per flush", frames / m, flushes / m, frames / (double) Math.max(1, flushes));
            if (kinds != null) line += "\n# " + FrameKinds.perMessage(kinds0, kinds.snapshot(), m);
            COUNTS.set(line);
        }
        double seconds = (t1 - t0) / 1e9;
        double sum = 0;
        double min = Double.MAX_VALUE;
        for (int i = 0; i < counters.length; i++) {
            double mbps = (counters[i].get() - before[i]) / seconds / 1e6;
            sum += mbps;
            min = Math.min(min, mbps);
        }
        double cores = (cpu1 - cpu0) / 1e9 / seconds;
        double mb = Math.max(1e-9, sum * seconds);
        IO_CPU.set(String.format(Locale.ROOT, "sending %.2f cores %.0f us/MB, receiving %.2f cores %.0f us/MB",
                ioSend / 1e9 / seconds, ioSend / 1e3 / mb, ioReceive / 1e9 / seconds, ioReceive / 1e3 / mb));
        return new Point(sum / counters.length, min, messages.get() - m0, seconds, cores, (cpu1 - cpu0) / 1e3 / mb);
    }

    /** {@code idle}: how each member's loop waits when its engine finds no work (the runtime's default is BACKOFF: spin, yield, then park). */
    private static Point tandem(int n, int payload, int block, int inflight, int window, int heartbeatMs, io.tandem.runtime.IdleStrategy idle, boolean countKinds, int basePort, double warmup, double measure) throws Exception {
        Map<NodeId, Endpoint> members = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) members.put(NodeId.of("n" + (i + 1)), new Endpoint("127.0.0.1", basePort + i));
        // A 5 s suspicion timeout, as in MulticastBenchmark: every member saturates the two shared cores.
        VsyncConfig config = VsyncConfig.DEFAULTS.withWindow(window, 512).withMaxQueuedSends(4096)
                .withTimers(java.time.Duration.ofMillis(heartbeatMs), java.time.Duration.ofSeconds(5), java.time.Duration.ofMillis(200), java.time.Duration.ZERO)
                .withLargeMessages(0, Math.max(payload + 64, 1 << 20), block);
        AtomicLong[] bytes = new AtomicLong[n - 1];
        for (int i = 0; i < bytes.length; i++) bytes[i] = new AtomicLong();
        AtomicLong messages = new AtomicLong();
        List<Channel> channels = new ArrayList<>();
        List<TcpTransport> transports = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        FrameKinds kinds = countKinds ? new FrameKinds(config.maxMembers()) : null;
        Thread sender = null;
        try {
            for (int i = 0; i < n; i++) {
                boolean first = i == 0;
                AtomicLong counter = i == 0 ? null : bytes[i - 1];
                boolean second = i == 1;
                channels.add(Tandem.channel().id("n" + (i + 1)).members(members).cluster("vsync-large-" + basePort)
                        .protocol(Protocols.virtualSynchrony(config))
                        .transport(setup -> {
                            TcpTransport t = (TcpTransport) TcpTransport.factory(TcpTransportConfig.defaults().withIoThreads(1)).create(setup);
                            transports.add(t);
                            return kinds == null ? t : kinds.wrap(t, first);
                        })
                        .inMemoryStorage()
                        .runtimeConfig(io.tandem.runtime.RuntimeConfig.DEFAULTS.withIdleStrategy(idle))
                        .connect(new Receiver() {
                            @Override
                            public void receive(Message msg) {
                                if (counter == null) return;
                                // length(), not payload(): the payload sits after the channel's name prefix, so payload() copies it.
                                if (msg.length() != payload) FIRST_ERROR.compareAndSet(null, new IllegalStateException("delivered " + msg.length() + " bytes, sent " + payload));
                                counter.addAndGet(msg.length());
                                if (second) messages.incrementAndGet();
                            }
                        }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!channels.stream().allMatch(c -> c.view() != null && c.view().members().size() == n)) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("the group of " + n + " did not form");
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            byte[] data = new byte[payload];
            new java.util.Random(payload).nextBytes(data);
            Channel ch = channels.getFirst();
            Semaphore credits = new Semaphore(inflight);
            sender = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        if (!credits.tryAcquire(100, TimeUnit.MILLISECONDS)) continue;
                    } catch (InterruptedException e) {
                        return;
                    }
                    ch.send(data).whenComplete((pos, err) -> {
                        credits.release();
                        if (err != null && !stop.get() && FIRST_ERROR.compareAndSet(null, err)) System.err.println("# first send error: " + err); // sends cut by the close at the end are no error
                    });
                }
            }, "sender");
            sender.setDaemon(true);
            sender.start();
            return measure(bytes, messages, warmup, measure, transports, kinds);
        } finally {
            stop.set(true);
            if (sender != null) sender.join(5000);
            for (Channel c : channels) c.close();
        }
    }

    /** The benchmark's own message for the raw stream. */
    public record Chunk(long requestId, byte[] bytes) implements ProtocolMessage {}

    /**
     * {@code streams} independent transport pairs, each streaming the payload's bytes to its receiver in
     * messages of the block size (of the payload if smaller) with 16 MiB in flight, all fed by one
     * sender thread that goes round the streams. One stream is the transport's own number; {@code n − 1}
     * at once is the aggregate the machine moves (the mean and slowest are per stream).
     */
    private static Point raw(int payload, int block, int streams, int basePort, double warmup, double measure) throws Exception {
        KryoCodec.Builder cb = KryoCodec.builder();
        cb.register(Chunk.class, CodecIds.TEST_FIRST);
        KryoCodec codec = cb.build();
        TcpTransportConfig config = TcpTransportConfig.defaults().withIoThreads(1).withIoMode(ioMode);
        List<TcpTransport> transports = new ArrayList<>();
        AtomicLong[] received = new AtomicLong[streams];
        AtomicLong chunks = new AtomicLong();
        int chunk = Math.min(payload, block);
        long window = Math.max(16L << 20, 2L * chunk);
        NodeId[] to = new NodeId[streams];
        TcpTransport[] senders = new TcpTransport[streams];
        AtomicBoolean stop = new AtomicBoolean();
        Thread t = null;
        try {
            for (int i = 0; i < streams; i++) {
                NodeId a = NodeId.of("a" + i);
                NodeId b = NodeId.of("b" + i);
                Map<NodeId, Endpoint> members = Map.of(a, new Endpoint("127.0.0.1", basePort + 2 * i), b, new Endpoint("127.0.0.1", basePort + 2 * i + 1));
                TcpTransport sender = new TcpTransport(new TransportSetup("raw", a, members, codec, new SimpleMeterRegistry()), config);
                TcpTransport receiver = new TcpTransport(new TransportSetup("raw", b, members, codec, new SimpleMeterRegistry()), config);
                transports.add(sender);
                transports.add(receiver);
                AtomicLong got = received[i] = new AtomicLong();
                receiver.start(new TransportListener() {
                    @Override
                    public void onMessage(NodeId from, ProtocolMessage message) {
                        got.addAndGet(((Chunk) message).bytes().length);
                        chunks.incrementAndGet();
                    }
                });
                sender.start((from, message) -> {});
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!(sender.isConnected(b) && receiver.isConnected(a))) {
                    if (System.nanoTime() > deadline) throw new IllegalStateException("the raw transports did not connect");
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                }
                to[i] = b;
                senders[i] = sender;
            }
            byte[] data = new byte[chunk];
            new java.util.Random(payload).nextBytes(data);
            t = new Thread(() -> {
                long[] sent = new long[streams];
                while (!stop.get()) {
                    boolean any = false;
                    for (int i = 0; i < streams; i++) {
                        if (sent[i] - received[i].get() >= window) continue;
                        any = true;
                        if (!senders[i].send(to[i], new Chunk(sent[i], data))) {
                            FIRST_ERROR.compareAndSet(null, new IllegalStateException("raw send dropped"));
                            return;
                        }
                        sent[i] += chunk;
                    }
                    if (!any) Thread.yield();
                }
            }, "raw-sender");
            t.setDaemon(true);
            t.start();
            // Messages here are chunks; the payload count is chunks * chunk / payload.
            Point p = measure(received, chunks, warmup, measure);
            return new Point(p.meanMbps(), p.minMbps(), p.messages() * chunk / payload, p.seconds(), p.cores(), p.cpuUsPerMb());
        } finally {
            stop.set(true);
            if (t != null) t.join(5000);
            for (TcpTransport x : transports) x.close();
        }
    }

    /**
     * The group's topology with no protocol: one sender transport and {@code receivers} receiver transports
     * (n transports for a group of n, each with one I/O thread, as each member has), the sender streaming
     * every message's bytes, in messages of the block size (of the payload if smaller), to every receiver
     * at once, with up to 16 MiB in flight per receiver; the figure is per receiver (mean and slowest).
     */
    private static Point fanout(int payload, int block, int receivers, int basePort, double warmup, double measure) throws Exception {
        KryoCodec.Builder cb = KryoCodec.builder();
        cb.register(Chunk.class, CodecIds.TEST_FIRST);
        KryoCodec codec = cb.build();
        TcpTransportConfig config = TcpTransportConfig.defaults().withIoThreads(1).withIoMode(ioMode);
        List<TcpTransport> transports = new ArrayList<>();
        AtomicLong[] received = new AtomicLong[receivers];
        AtomicLong chunks = new AtomicLong();
        int chunk = Math.min(payload, block);
        long window = Math.max(16L << 20, 2L * chunk);
        NodeId a = NodeId.of("s");
        Map<NodeId, Endpoint> members = new LinkedHashMap<>();
        members.put(a, new Endpoint("127.0.0.1", basePort));
        NodeId[] to = new NodeId[receivers];
        for (int i = 0; i < receivers; i++) {
            to[i] = NodeId.of("r" + i);
            members.put(to[i], new Endpoint("127.0.0.1", basePort + 1 + i));
        }
        AtomicBoolean stop = new AtomicBoolean();
        Thread t = null;
        try {
            TcpTransport sender = new TcpTransport(new TransportSetup("fanout", a, members, codec, new SimpleMeterRegistry()), config);
            transports.add(sender);
            sender.start((from, message) -> {});
            for (int i = 0; i < receivers; i++) {
                TcpTransport receiver = new TcpTransport(new TransportSetup("fanout", to[i], members, codec, new SimpleMeterRegistry()), config);
                transports.add(receiver);
                AtomicLong got = received[i] = new AtomicLong();
                boolean first = i == 0;
                receiver.start(new TransportListener() {
                    @Override
                    public void onMessage(NodeId from, ProtocolMessage message) {
                        got.addAndGet(((Chunk) message).bytes().length);
                        if (first) chunks.incrementAndGet();
                    }
                });
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (NodeId b : to) {
                while (!sender.isConnected(b)) {
                    if (System.nanoTime() > deadline) throw new IllegalStateException("the fan-out transports did not connect");
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                }
            }
            byte[] data = new byte[chunk];
            new java.util.Random(payload).nextBytes(data);
            t = new Thread(() -> {
                long sent = 0;
                while (!stop.get()) {
                    boolean room = true;
                    for (int i = 0; i < receivers; i++) room &= sent - received[i].get() < window;
                    if (!room) {
                        Thread.yield();
                        continue;
                    }
                    for (int i = 0; i < receivers; i++) {
                        if (!sender.send(to[i], new Chunk(sent, data))) {
                            FIRST_ERROR.compareAndSet(null, new IllegalStateException("fan-out send dropped"));
                            return;
                        }
                    }
                    sent += chunk;
                }
            }, "fanout-sender");
            t.setDaemon(true);
            t.start();
            // Messages here are chunks at the first receiver; the payload count is chunks * chunk / payload.
            Point p = measure(received, chunks, warmup, measure);
            return new Point(p.meanMbps(), p.minMbps(), p.messages() * chunk / payload, p.seconds(), p.cores(), p.cpuUsPerMb());
        } finally {
            stop.set(true);
            if (t != null) t.join(5000);
            for (TcpTransport x : transports) x.close();
        }
    }

    /** Argument parsing shared with {@link MulticastBenchmark}'s format. */
    private static final class MulticastBenchmarkArgs {
        static List<Integer> ints(String csv) {
            List<Integer> out = new ArrayList<>();
            for (String s : csv.split(",")) out.add(Integer.parseInt(s.trim()));
            return out;
        }
    }
}
