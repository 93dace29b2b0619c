package io.tandem.bench.vsync;

import io.tandem.api.Channel;
import io.tandem.api.Message;
import io.tandem.api.Receiver;
import io.tandem.api.Tandem;
import io.tandem.bench.SteadyState;
import io.tandem.bench.os.ProcStat;
import io.tandem.engine.NodeId;
import io.tandem.protocols.Protocols;
import io.tandem.protocols.vsync.VsyncConfig;
import io.tandem.runtime.IdleStrategy;
import io.tandem.runtime.RuntimeConfig;
import io.tandem.transport.Endpoint;
import io.tandem.transport.tcp.TcpTransport;
import io.tandem.transport.tcp.TcpTransportConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;

/**
 * Ordered-multicast message rate over TCP on loopback (issue 22, derecho.md §9.5): Tandem's
 * virtual synchrony (raw and ordered delivery) next to JGroups 5.4 (NAKACK2 FIFO as "raw",
 * SEQUENCER total order as "ordered"), in the same JVM run. Every member sends as fast as its
 * flow control lets it; the rate is the messages delivered per second at one member (all senders
 * together), measured after a warm-up. All members of a group live in this one JVM, each with its
 * own TCP endpoint (Tandem: its own TcpTransport and event loop; JGroups: its own TCP transport).
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar io.tandem.bench.vsync.MulticastBenchmark \
 *     --sizes 2,3,4,5 --payloads 64,1024,8192 --systems tandem-raw,tandem-ordered,jgroups-raw,jgroups-sequencer \
 *     --warmup 2 --measure 4 [--max-warmup 20] [--max-jit 5] --base-port 23000 [--window 64] [--idle 200,20] [--thread-cpu true] [--jfr /tmp/prefix] \
 *     [--jgroups-stack legacy|documented] [--jgroups-xml FILE]
 * </pre>
 * {@code --jgroups-stack}/{@code --jgroups-xml} choose JGroups' protocol stack ({@link JGroupsStack}); before a
 * SEQUENCER group's load starts, every member sends a few messages one at a time ({@link #settleSequencer});
 * {@code --window} is Tandem's send window and ring length W in slots (derecho.md §3.6); without it W is sized by
 * the slot ({@link #windowFor});
 * {@code --idle spins,yields} sets the engine loops' idle strategy (spin and yield turns before the library's
 * BACKOFF parks; default 200,20);
 * {@code --thread-cpu true} prints the CPU each thread group used while measured, {@code --jfr} records a JFR
 * profile (settings "profile") of each measured interval.
 * The warm-up is adaptive, the same rule for every system and the peer harness' rule ({@link SteadyState},
 * {@link #warmupRule}): after {@code --warmup} whole seconds it ends once the JIT compiler threads used at most
 * {@code --max-jit} percent (default 5) of this JVM's CPU over the last 2 s and those 2 s delivered at most 5 % more
 * than the 2 s before; at the latest after {@code --max-warmup} seconds (default {@link #DEFAULT_MAX_WARMUP}, or
 * {@code --warmup} if that is longer; {@code --max-warmup} equal to {@code --warmup} gives the fixed warm-up of
 * sessions up to 25).
 * Prints one CSV line per point: system,n,payload,msgs_per_s,delivered,seconds,warmup_s,jit_pct (the warm-up it took,
 * and the JIT compiler threads' share of this JVM's CPU during the measured seconds, from /proc).
 */
public final class MulticastBenchmark {
    private MulticastBenchmark() {}

    public static void main(String[] args) throws Exception {
        List<Integer> sizes = List.of(2, 3, 4, 5);
        List<Integer> payloads = List.of(64, 1024, 8192);
        List<String> systems = List.of("tandem-raw", "tandem-ordered", "jgroups-raw", "jgroups-sequencer");
        int warmup = 2, maxWarmup = -1;
        double measure = 4, maxJitPercent = 5;
        int basePort = 23000;
        int window = 0; // 0: sized by the slot (windowFor)
        for (int i = 0; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--sizes" -> sizes = ints(v);
                case "--payloads" -> payloads = ints(v);
                case "--systems" -> systems = List.of(v.split(","));
                case "--warmup" -> warmup = seconds("--warmup", v);
                case "--measure" -> measure = Double.parseDouble(v);
                case "--max-warmup" -> maxWarmup = seconds("--max-warmup", v);
                case "--max-jit" -> maxJitPercent = Double.parseDouble(v);
                case "--base-port" -> basePort = Integer.parseInt(v);
                case "--window" -> window = Integer.parseInt(v);
                case "--thread-cpu" -> threadCpu = Boolean.parseBoolean(v);
                case "--jfr" -> jfrPrefix = v;
                case "--idle" -> idle = idleStrategy(v);
                case "--jgroups-stack" -> jgroupsStack = JGroupsStack.parse(v);
                case "--jgroups-xml" -> jgroupsXml = Files.readString(Path.of(v));
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.println("# " + System.getProperty("java.vm.name") + " " + Runtime.version() + ", " + Runtime.getRuntime().availableProcessors() + " CPUs, "
                + System.getProperty("os.name") + " " + System.getProperty("os.version"));
        warmupRule = warmupRule(warmup, maxWarmup, maxJitPercent);
        System.out.println("system,n,payload,msgs_per_s,delivered,seconds,warmup_s,jit_pct");
        int run = 0;
        for (int n : sizes) {
            for (int payload : payloads) {
                for (String system : systems) {
                    int port = basePort + (run++ % 90) * 10;
                    pointName = system + "-" + n + "-" + payload;
                    Point p = switch (system) {
                        case "tandem-raw" -> tandem(n, payload, VsyncConfig.Delivery.RAW, window, port, measure, run);
                        case "tandem-ordered" -> tandem(n, payload, VsyncConfig.Delivery.ORDERED, window, port, measure, run);
                        case "jgroups-raw" -> jgroups(n, payload, false, port, measure, run);
                        case "jgroups-sequencer" -> jgroups(n, payload, true, port, measure, run);
                        default -> throw new IllegalArgumentException("unknown system " + system);
                    };
                    System.out.printf(Locale.ROOT, "%s,%d,%d,%.0f,%d,%.2f,%.1f,%.1f%n", system, n, payload, p.delivered / p.seconds, p.delivered, p.seconds,
                            p.warmupSeconds, p.jitPercent);
                    System.out.flush();
                }
            }
        }
        System.exit(0);
    }

    /** One point: deliveries at member 0 in {@code seconds}, the warm-up taken, the JIT's share of the CPU meanwhile. */
    private record Point(long delivered, double seconds, double warmupSeconds, double jitPercent) {}

    /**
     * The longest warm-up unless {@code --max-warmup} is given (vsync26): with the fixed 2 s of sessions up to 25 the
     * JIT compiler threads used 26-39 % of the JVM's CPU in Tandem's measured seconds and 17-28 % in JGroups' at the
     * first points of a JVM, and up to 12 s both ran faster (Tandem's 8 KiB rate at 2 members 1.4-2x); 12 s was still
     * reached at the first point of most JVMs, hence 20.
     */
    static final int DEFAULT_MAX_WARMUP = 20;
    /** Seconds over which the JIT's share is taken and the rate compared with the seconds before (2: vsync26's window). */
    static final int WARMUP_SPAN = 2;
    /** When a point is warm (set from the options in {@link #main}). */
    private static SteadyState warmupRule = warmupRule(2, -1, 5);

    /**
     * The warm-up rule: the peer harness' {@link SteadyState} over {@link #WARMUP_SPAN} seconds of this one JVM, at least
     * {@code warmup} seconds, at most {@code maxWarmup} ({@code -1}: not given, the default or {@code warmup} if that is
     * longer; equal to {@code warmup}: the fixed warm-up of sessions up to 25), ended early once the JIT compiler threads
     * used at most {@code maxJitPercent} of the JVM's CPU over the last 2 s and those 2 s delivered at most 5 % more than
     * the 2 s before. The same rule for Tandem and JGroups: the JVM, not the system, is warm.
     */
    static SteadyState warmupRule(int warmup, int maxWarmup, double maxJitPercent) {
        if (warmup < 0) throw new IllegalArgumentException("--warmup must be >= 0 seconds, was " + warmup);
        if (maxWarmup < 0) return new SteadyState(warmup, Math.max(warmup, DEFAULT_MAX_WARMUP), WARMUP_SPAN, 0.05, maxJitPercent);
        if (maxWarmup < warmup) throw new IllegalArgumentException("--max-warmup must be >= --warmup (" + warmup + "), was " + maxWarmup);
        return new SteadyState(warmup, maxWarmup, WARMUP_SPAN, 0.05, maxJitPercent);
    }

    private static final long PID = ProcessHandle.current().pid();

    /**
     * The warm-up (vsync26; the rule shared with the peer harness from session 27): one reading per second from the
     * senders' start (deliveries at member 0 in that second, this JVM's JIT compiler and total CPU seconds so far) until
     * {@link #warmupRule} says the point is warm. Why: with the fixed 2 s, vsync25 saw C2 at 22-36 % of a core through
     * the measured seconds. Returns the seconds it took.
     */
    private static double warmUp(AtomicLong deliveredAt0) throws InterruptedException {
        long start = System.nanoTime();
        List<Long> perSecond = new ArrayList<>();
        List<Double> jitSoFar = new ArrayList<>(), cpuSoFar = new ArrayList<>();
        long before = deliveredAt0.get();
        while (!warmupRule.done(perSecond, jitSoFar, cpuSoFar)) {
            long wait = start + (perSecond.size() + 1) * 1_000_000_000L - System.nanoTime();
            if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000)); // the next second's reading
            long now = deliveredAt0.get();
            perSecond.add(now - before);
            before = now;
            jitSoFar.add(ProcStat.jitCpuSeconds(PID));
            cpuSoFar.add(ProcStat.cpuSeconds(PID));
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /**
     * Ring bytes per SST row the default window may take: 2.5 MiB, which holds 2048 slots at 1 KiB (1152 B) and 256 at
     * 8 KiB (8320 B), the windows session vsync24 measured fastest there (sweep of 256-2048 and 64-256 slots).
     */
    static final int RING_BYTES_PER_ROW = 5 * 512 * 1024;

    /**
     * The largest window the benchmark's senders can use: each keeps 2W sends in flight (W in the ring, W waiting for
     * it), and the channel refuses sends beyond {@code maxQueuedSends} (4096 here) as overloaded.
     */
    static final int MAX_WINDOW = 2048;

    /**
     * The default send window W for a slot size: the largest power of two whose ring (W x slotBytes per row) fits in
     * {@link #RING_BYTES_PER_ROW}, kept within 64..{@link #MAX_WINDOW} slots. Up to there a sender waits for the
     * window's round trip (its slots delivered at every member, then their {@code delivered} counters pushed back) far
     * more often than for bytes: vsync23 saw 98-99.7 % of the send passes at 1 KiB, 2-3 members end on a closed window
     * at W = 256, and vsync24's sweep (medians of 3, n = 2 / 3) ran 1 KiB at 122k / 155k msg/s with W = 256 and 210k /
     * 201k with 2048, 8 KiB at 33k / 28k with 64 and 55k / 52k with 256. So 64 B and 1 KiB get 2048 slots and 8 KiB
     * gets 256. The ring memory a member holds is one row per member: at 5 members 2048 x 512 B x 5 = 5 MiB at 64 B,
     * 2048 x 1152 B x 5 = 11.3 MiB at 1 KiB, 256 x 8320 B x 5 = 10.2 MiB at 8 KiB (off-heap, in the SST). A user gets the
     * same with {@code VsyncConfig.withWindow(W, slotBytes)}. Why a larger W is safe: W is flow control only. It bounds
     * what each sender has not yet seen delivered everywhere, the ring of each SST row and the sends this benchmark
     * keeps in flight (2W, within maxQueuedSends 4096). The engine reuses a slot only once every member has delivered
     * (raw: received) the message W places earlier (ShardState.windowOpen), for any W >= 1, so a larger W changes how
     * much may wait, never what is delivered or in which order.
     */
    static int windowFor(int slotBytes) {
        int w = Integer.highestOneBit(Math.max(1, RING_BYTES_PER_ROW / slotBytes));
        return Math.clamp(w, 64, MAX_WINDOW);
    }

    /** The engine loops' idle strategy ({@code --idle spins,yields}; the library's BACKOFF unless given). */
    private static IdleStrategy idle = IdleStrategy.BACKOFF;

    /** {@code spins,yields}: BACKOFF's parks (50 us doubling to 1 ms) after that many spin and yield turns. */
    static IdleStrategy idleStrategy(String spec) {
        String[] sy = spec.split(",");
        if (sy.length != 2 || !sy[0].strip().matches("\\d{1,9}") || !sy[1].strip().matches("\\d{1,9}")) {
            throw new IllegalArgumentException("--idle wants spins,yields (two non-negative integers), got '" + spec + "'");
        }
        return new IdleStrategy(Integer.parseInt(sy[0].strip()), Integer.parseInt(sy[1].strip()),
                IdleStrategy.BACKOFF.minPark(), IdleStrategy.BACKOFF.maxPark());
    }

    /** Print the CPU time each thread group used during the measured seconds (names with digits folded). */
    private static boolean threadCpu;
    /** Record a JFR profile of the measured seconds into {@code <prefix>-<system>-<n>-<payload>.jfr}. */
    private static String jfrPrefix;
    private static String pointName = "";

    private static final java.util.concurrent.atomic.AtomicReference<Throwable> FIRST_ERROR = new java.util.concurrent.atomic.AtomicReference<>();

    /** Whole seconds for {@code option}, or a clear error. */
    static int seconds(String option, String v) {
        try {
            int s = Integer.parseInt(v.trim());
            if (s >= 0) return s;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " wants whole seconds >= 0, was '" + v + "'");
    }

    private static List<Integer> ints(String csv) {
        List<Integer> out = new ArrayList<>();
        for (String s : csv.split(",")) out.add(Integer.parseInt(s.trim()));
        return out;
    }

    /** Senders on every member, counting deliveries at member 0 between warm-up end and measure end. */
    private static Point drive(int n, List<Runnable> senders, AtomicLong deliveredAt0, AtomicBoolean stop, double measure) throws Exception {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(senders.get(i), "sender-" + i);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        double warmedFor = warmUp(deliveredAt0);
        jdk.jfr.Recording jfr = null;
        if (jfrPrefix != null) {
            jfr = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
            // -Dtandem.bench.jfrPeriodMs=N samples Java stacks every N ms (the profile settings' 10 ms gives only a
            // few hundred samples in a 4 s window) and adds JDK 25's CPU-time samples (jdk.CPUTimeSample, Linux),
            // which also count threads while they run native code (send/recv), attributed to the calling Java frame.
            String period = System.getProperty("tandem.bench.jfrPeriodMs");
            if (period != null) {
                java.time.Duration every = java.time.Duration.ofMillis(Long.parseLong(period));
                jfr.enable("jdk.ExecutionSample").withPeriod(every);
                jfr.enable("jdk.NativeMethodSample").withPeriod(every);
                jfr.enable("jdk.CPUTimeSample").with("throttle", every.toMillis() + " ms");
            }
            jfr.start();
        }
        Map<String, Long> cpu0 = threadCpu ? cpuByThreadGroup() : Map.of();
        double jit0 = ProcStat.jitCpuSeconds(PID), cpu0all = ProcStat.cpuSeconds(PID);
        long c0 = deliveredAt0.get();
        long t0 = System.nanoTime();
        Thread.sleep((long) (measure * 1000));
        long c1 = deliveredAt0.get();
        long t1 = System.nanoTime();
        double jitPercent = 100 * (ProcStat.jitCpuSeconds(PID) - jit0) / (ProcStat.cpuSeconds(PID) - cpu0all);
        Map<String, Long> cpu1 = threadCpu ? cpuByThreadGroup() : Map.of();
        if (jfr != null) {
            jfr.stop();
            try {
                jfr.dump(Path.of(jfrPrefix + "-" + pointName + ".jfr"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            jfr.close();
        }
        if (threadCpu) printCpu(cpu0, cpu1, (t1 - t0) / 1e9, c1 - c0);
        stop.set(true);
        for (Thread t : threads) t.join(5000);
        return new Point(c1 - c0, (t1 - t0) / 1e9, warmedFor, jitPercent);
    }

    /** CPU nanoseconds per thread group (a thread's name with its digits removed), live threads only. */
    private static Map<String, Long> cpuByThreadGroup() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        Map<String, Long> out = new java.util.TreeMap<>();
        for (java.lang.management.ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info == null) continue;
            long ns = mx.getThreadCpuTime(info.getThreadId());
            if (ns < 0) continue;
            String group = info.getThreadName().replaceAll("[0-9]+", "#");
            out.merge(group + " (" + info.getThreadId() + ")", ns, Long::sum);
        }
        return out;
    }

    private static void printCpu(Map<String, Long> before, Map<String, Long> after, double seconds, long delivered) {
        Map<String, double[]> groups = new java.util.TreeMap<>();
        double total = 0;
        for (Map.Entry<String, Long> e : after.entrySet()) {
            double used = (e.getValue() - before.getOrDefault(e.getKey(), 0L)) / 1e9 / seconds;
            String group = e.getKey().substring(0, e.getKey().lastIndexOf(" ("));
            double[] g = groups.computeIfAbsent(group, k -> new double[2]);
            g[0] += used;
            g[1]++;
            total += used;
        }
        System.out.printf(Locale.ROOT, "# %s: threads of this JVM used %.2f cores; %.2f us of CPU per message delivered at member 0%n", pointName, total, total * seconds * 1e6 / Math.max(1, delivered));
        groups.entrySet().stream().filter(e -> e.getValue()[0] >= 0.005).sorted((a, b) -> Double.compare(b.getValue()[0], a.getValue()[0]))
                .forEach(e -> System.out.printf(Locale.ROOT, "#   %5.1f%% of a core  %s (%d threads)%n", 100 * e.getValue()[0], e.getKey(), (int) e.getValue()[1]));
    }

    private static Point tandem(int n, int payload, VsyncConfig.Delivery delivery, int window, int basePort, double measure, int run) throws Exception {
        Map<NodeId, Endpoint> members = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) members.put(NodeId.of("n" + (i + 1)), new Endpoint("127.0.0.1", basePort + i));
        int slotBytes = Math.max(512, (payload + 48 + 63) / 64 * 64 + 64);
        int w = window > 0 ? window : windowFor(slotBytes);
        // A 5 s suspicion timeout: with every member saturating two shared cores, a 500 ms one removes members.
        VsyncConfig config = VsyncConfig.DEFAULTS.withWindow(w, slotBytes).withDelivery(delivery).withMaxQueuedSends(4096)
                .withTimers(java.time.Duration.ofMillis(20), java.time.Duration.ofSeconds(5), java.time.Duration.ofMillis(200), java.time.Duration.ZERO);
        AtomicLong deliveredAt0 = new AtomicLong();
        List<Channel> channels = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                boolean first = i == 0;
                channels.add(Tandem.channel().id("n" + (i + 1)).members(members).cluster("vsync-bench-" + run)
                        .protocol(Protocols.virtualSynchrony(config))
                        .transport(TcpTransport.factory(TcpTransportConfig.defaults().withIoThreads(1)))
                        .inMemoryStorage()
                        .runtimeConfig(RuntimeConfig.DEFAULTS.withIdleStrategy(idle))
                        .connect(new Receiver() {
                            @Override
                            public void receive(Message msg) {
                                if (first) deliveredAt0.incrementAndGet();
                            }
                        }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!channels.stream().allMatch(c -> c.view() != null && c.view().members().size() == n)) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("the group of " + n + " did not form");
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            AtomicBoolean stop = new AtomicBoolean();
            byte[] data = new byte[payload];
            List<Runnable> senders = new ArrayList<>();
            for (Channel ch : channels) {
                senders.add(() -> {
                    Semaphore inflight = new Semaphore(2 * w);
                    while (!stop.get()) {
                        try {
                            if (!inflight.tryAcquire(100, TimeUnit.MILLISECONDS)) continue;
                        } catch (InterruptedException e) {
                            return;
                        }
                        ch.send(data).whenComplete((pos, err) -> {
                            inflight.release();
                            if (err != null && FIRST_ERROR.compareAndSet(null, err)) System.err.println("# first send error: " + err);
                        });
                    }
                });
            }
            return drive(n, senders, deliveredAt0, stop, measure);
        } finally {
            for (Channel c : channels) c.close();
        }
    }

    /**
     * The JGroups protocol stack the benchmark runs ({@code --jgroups-stack}). {@code legacy} (the default: the stack
     * sessions vsync7 to vsync13 measured, and JGroups' fastest of the two at 1 KiB in vsync14's check): an 8-thread
     * pool, SEQUENCER right above GMS, MFC with its defaults above it, FRAG2. {@code documented}: the settings of
     * JGroups' own {@code tcp.xml} (a pool of up to 200 threads, UFC and MFC with 10 MB of credits) with SEQUENCER
     * above the flow control, where JGroups' {@code sequencer.xml} puts it. {@code --jgroups-xml FILE} runs any other
     * stack. See docs/vsync-benchmark.md, session vsync14, for what each does at 64 B.
     */
    enum JGroupsStack {
        DOCUMENTED, LEGACY;

        static JGroupsStack parse(String v) {
            return switch (v) {
                case "documented" -> DOCUMENTED;
                case "legacy" -> LEGACY;
                default -> throw new IllegalArgumentException("--jgroups-stack wants documented or legacy, got '" + v + "'");
            };
        }
    }

    private static JGroupsStack jgroupsStack = JGroupsStack.LEGACY;

    static JGroupsStack currentJGroupsStack() {
        return jgroupsStack;
    }

    static void useJGroupsStack(JGroupsStack stack) {
        jgroupsStack = stack;
    }

    /** {@code --jgroups-xml FILE}: a stack of one's own, with %1$d for the bind port, %2$s the initial hosts, %3$s SEQUENCER or nothing. */
    private static String jgroupsXml;

    static String jgroupsStack(int port, String hosts, boolean sequencer) {
        String seq = sequencer ? "<SEQUENCER/>" : "";
        if (jgroupsXml != null) return jgroupsXml.formatted(port, hosts, seq);
        return switch (jgroupsStack) {
            case LEGACY -> """
                    <config xmlns="urn:org:jgroups">
                      <TCP bind_addr="127.0.0.1" bind_port="%d" port_range="0" thread_pool.max_threads="8"/>
                      <TCPPING initial_hosts="%s" port_range="0"/>
                      <MERGE3/>
                      <FD_ALL3/>
                      <VERIFY_SUSPECT2/>
                      <pbcast.NAKACK2 use_mcast_xmit="false"/>
                      <UNICAST3/>
                      <pbcast.STABLE/>
                      <pbcast.GMS join_timeout="3000"/>
                      %s
                      <MFC/>
                      <FRAG2 frag_size="60000"/>
                    </config>
                    """.formatted(port, hosts, seq);
            case DOCUMENTED -> """
                    <config xmlns="urn:org:jgroups">
                      <TCP bind_addr="127.0.0.1" bind_port="%d" port_range="0"
                           thread_pool.min_threads="0" thread_pool.max_threads="200" thread_pool.keep_alive_time="30000"/>
                      <TCPPING initial_hosts="%s" port_range="0"/>
                      <MERGE3 min_interval="10s" max_interval="30s"/>
                      <FD_ALL3 timeout="40s" interval="5s"/>
                      <VERIFY_SUSPECT2 timeout="1.5s"/>
                      <pbcast.NAKACK2 use_mcast_xmit="false"/>
                      <UNICAST3/>
                      <pbcast.STABLE desired_avg_gossip="50s" max_bytes="4M"/>
                      <pbcast.GMS join_timeout="3000"/>
                      <UFC max_credits="10M" min_threshold="0.4"/>
                      <MFC max_credits="10M" min_threshold="0.4"/>
                      %s
                      <FRAG2 frag_size="60K"/>
                    </config>
                    """.formatted(port, hosts, seq);
        };
    }

    /**
     * SEQUENCER starts every member that is not the coordinator in "ack mode" (and returns to it after every change
     * of coordinator): such a member forwards one message at a time and waits for the coordinator's broadcast of it
     * (up to 500 ms, then resends) until {@code threshold} (10) of its messages came back. Under full load from the
     * first millisecond, those acks queue behind the coordinator's own broadcasts, so members stayed in ack mode for
     * seconds and the measured window caught the join transient, not the steady state (vsync7-vsync13's 0-35k msg/s
     * at 64 B). So each member in turn first sends {@link #SEQUENCER_SETTLE} messages one at a time, each awaited at
     * every member, before the load starts: a join transient the protocol documents, kept out of the measurement.
     */
    static final int SEQUENCER_SETTLE = 20;

    private static void settleSequencer(List<JChannel> channels, java.util.concurrent.atomic.AtomicLongArray delivered, int payload) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long expected = 0;
        for (JChannel ch : channels) {
            for (int k = 0; k < SEQUENCER_SETTLE; k++) {
                ch.send(new BytesMessage(null, new byte[payload]));
                expected++;
                for (int m = 0; m < delivered.length(); m++) {
                    while (delivered.get(m) < expected) {
                        if (System.nanoTime() > deadline) throw new IllegalStateException("JGroups' SEQUENCER did not settle: member " + m + " delivered " + delivered.get(m) + " of " + expected);
                        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
                    }
                }
            }
        }
    }

    private static Point jgroups(int n, int payload, boolean sequencer, int basePort, double measure, int run) throws Exception {
        StringBuilder hosts = new StringBuilder();
        for (int i = 0; i < n; i++) hosts.append(i == 0 ? "" : ",").append("127.0.0.1[").append(basePort + i).append("]");
        List<JChannel> channels = new ArrayList<>();
        AtomicLong deliveredAt0 = new AtomicLong();
        java.util.concurrent.atomic.AtomicLongArray delivered = new java.util.concurrent.atomic.AtomicLongArray(n);
        try {
            for (int i = 0; i < n; i++) {
                Path xml = Files.createTempFile("jgroups-bench", ".xml");
                Files.writeString(xml, jgroupsStack(basePort + i, hosts.toString(), sequencer));
                JChannel ch = new JChannel(xml.toString());
                Files.delete(xml);
                ch.setName("n" + (i + 1));
                boolean first = i == 0;
                int member = i;
                ch.setReceiver(new org.jgroups.Receiver() {
                    @Override
                    public void receive(org.jgroups.Message msg) {
                        if (first) deliveredAt0.incrementAndGet();
                        delivered.incrementAndGet(member);
                    }
                });
                ch.connect("vsync-bench-" + run);
                channels.add(ch);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!channels.stream().allMatch(c -> c.getView() != null && c.getView().size() == n)) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("the JGroups group of " + n + " did not form");
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            if (sequencer) settleSequencer(channels, delivered, payload);
            AtomicBoolean stop = new AtomicBoolean();
            byte[] data = new byte[payload];
            List<Runnable> senders = new ArrayList<>();
            for (JChannel ch : channels) {
                senders.add(() -> {
                    while (!stop.get()) {
                        try {
                            ch.send(new BytesMessage(null, data)); // blocks under flow control (MFC)
                        } catch (Exception e) {
                            if (!stop.get()) throw new IllegalStateException(e);
                        }
                    }
                });
            }
            return drive(n, senders, deliveredAt0, stop, measure);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (int i = channels.size() - 1; i >= 0; i--) channels.get(i).close();
        }
    }
}
