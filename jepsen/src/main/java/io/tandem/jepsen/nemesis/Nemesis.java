package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import io.tandem.jepsen.cluster.NetnsCluster;
import io.tandem.jepsen.generator.Recorder;
import io.tandem.jepsen.host.HostCapabilities;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The nemesis of a run: the fault packages this host and engine support, driven like Jepsen's combined
 * nemesis. Every package flip-flops (start, stop, start, ...) on its own schedule, each op a uniformly
 * random {@code [0, 2 * interval)} after the package's previous one ({@code gen/stagger} per package,
 * combined with {@code gen/any}), so faults of different packages overlap. Ops run one at a time on the
 * nemesis thread and are recorded as {@code :nemesis} ops: the invocation with the target spec, the
 * completion with what was done. {@link #healAll()} is the final generator: it resumes and restarts
 * every node, heals the network, lifts every throttle, resets clocks and restores membership.
 */
public final class Nemesis {
    /** How soon a deferred stop is tried again (see {@link FaultPackage#deferred()}). */
    private static final java.time.Duration DEFERRED_RETRY = java.time.Duration.ofSeconds(1);
    private final List<FaultPackage> packages = new ArrayList<>();
    private final Map<FaultKind, String> skipped = new EnumMap<>(FaultKind.class);
    private final NemesisSpec spec;
    private final Recorder recorder;
    private final SplittableRandom random;
    private final Consumer<String> log;
    private volatile boolean stopped;
    private int ops;

    public Nemesis(NemesisSpec spec, NetnsCluster cluster, HostCapabilities host, Recorder recorder, long seed, Consumer<String> log) {
        this.spec = spec;
        this.recorder = recorder;
        this.random = new SplittableRandom(seed);
        this.log = log;
        for (FaultKind k : FaultKind.values()) {
            if (!spec.faults().contains(k)) continue;
            String why = unavailable(k, cluster, host);
            if (why != null) {
                skipped.put(k, why);
                continue;
            }
            packages.add(switch (k) {
                case PARTITION -> new PartitionPackage(cluster, spec.targetsOf(k));
                case KILL -> new KillPackage(cluster, spec.targetsOf(k));
                case PAUSE -> new PausePackage(cluster, spec.targetsOf(k));
                case PACKET -> new PacketPackage(cluster, spec.targetsOf(k), spec.packetBehaviors());
                case SLOW_CPU -> new SlowCpuPackage(cluster, spec.targetsOf(k), spec.cpuPercent());
                case SLOW_DISK -> new SlowDiskPackage(cluster, spec.targetsOf(k), spec.diskBytesPerSecond(), spec.diskIops());
                case CLOCK -> new ClockPackage(cluster, spec.targetsOf(k), spec.maxClockOffset());
                case MEMBER -> new MemberPackage(cluster);
            });
        }
    }

    /** Why a fault cannot run against this cluster on this host, or null if it can. */
    static String unavailable(FaultKind kind, NetnsCluster cluster, HostCapabilities host) {
        return unavailable(kind, cluster.spec().protocol(), cluster.spec().loopDisks(), host);
    }

    /**
     * Why a fault cannot run against servers of {@code protocol} on this host (with or without a loop disk
     * per node), or null if it can.
     */
    public static String unavailable(FaultKind kind, String protocol, boolean loopDisks, HostCapabilities host) {
        return switch (kind) {
            case SLOW_CPU -> host.cgroupCpu() ? null : "the cgroup-v1 cpu controller is not mounted writable at /sys/fs/cgroup/cpu";
            case SLOW_DISK -> !host.cgroupBlkio() ? "the cgroup-v1 blkio controller is not mounted writable at /sys/fs/cgroup/blkio"
                    : loopDisks && host.loopDisks() ? null : "the nodes have no disks of their own (no loop devices or mkfs.ext4)";
            case MEMBER -> protocol.startsWith("raft") ? null
                    : "the server offers membership changes for the raft protocol only, not " + protocol;
            default -> null;
        };
    }

    /** The fault kinds that run. */
    public List<FaultKind> running() {
        return packages.stream().map(FaultPackage::kind).toList();
    }

    /** The requested fault kinds that do not run here, with the reason. */
    public Map<FaultKind, String> skipped() {
        return Map.copyOf(skipped);
    }

    /** Nemesis ops performed so far (starts and stops). */
    public int operations() {
        return ops;
    }

    /** Runs the schedule until {@code deadlineNanos} ({@link System#nanoTime()}) or {@link #stop()}. */
    public void run(long deadlineNanos) {
        if (packages.isEmpty()) return;
        long gap = spec.interval().toNanos();
        long[] next = new long[packages.size()];
        long now = System.nanoTime();
        for (int i = 0; i < next.length; i++) next[i] = now + random.nextLong(2 * gap);
        while (!stopped) {
            int p = 0;
            for (int i = 1; i < next.length; i++) if (next[i] < next[p]) p = i;
            if (next[p] >= deadlineNanos) return;
            if (!sleepUntil(next[p])) return;
            FaultPackage pkg = packages.get(p);
            if (pkg.active()) stopPackage(pkg);
            else startPackage(pkg);
            next[p] += pkg.deferred() ? DEFERRED_RETRY.toNanos() : random.nextLong(2 * gap);
        }
    }

    /** Ends {@link #run} early (a failed or interrupted run). */
    public void stop() {
        stopped = true;
    }

    /**
     * Undoes every fault, in the order that lets each step work: processes first (a paused or dead node
     * cannot take an admin request), then the network, throttles, clocks and membership.
     */
    public void healAll() {
        List<FaultKind> order = List.of(FaultKind.PAUSE, FaultKind.KILL, FaultKind.PARTITION, FaultKind.PACKET,
                FaultKind.SLOW_CPU, FaultKind.SLOW_DISK, FaultKind.CLOCK, FaultKind.MEMBER);
        for (FaultKind k : order) {
            for (FaultPackage pkg : packages) {
                if (pkg.kind() != k) continue;
                // Processes are always brought back (Jepsen's final :resume :all and :start :all); others when active.
                if (pkg.active() || k == FaultKind.PAUSE || k == FaultKind.KILL) stopPackage(pkg);
            }
        }
    }

    private void startPackage(FaultPackage pkg) {
        Object value = pkg.startValue(random);
        recorder.nemesis(pkg.startF(), value);
        Object result;
        try {
            result = pkg.start(value, random);
        } catch (Exception e) {
            result = error(e);
        }
        ops++;
        recorder.nemesis(pkg.startF(), result);
        log.accept("nemesis " + pkg.startF() + " " + io.tandem.history.EdnWriter.toEdn(value) + " -> " + io.tandem.history.EdnWriter.toEdn(result));
    }

    private void stopPackage(FaultPackage pkg) {
        Object value = pkg.stopValue();
        recorder.nemesis(pkg.stopF(), value);
        Object result;
        try {
            result = pkg.stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result = error(e);
        } catch (Exception e) {
            result = error(e);
        }
        ops++;
        recorder.nemesis(pkg.stopF(), result);
        log.accept("nemesis " + pkg.stopF() + " -> " + io.tandem.history.EdnWriter.toEdn(result));
    }

    private static Object error(Exception e) {
        return List.of(Keyword.of("error"), String.valueOf(e.getMessage()));
    }

    /** The skipped faults as an EDN map for {@code results.edn}. */
    public Map<Object, Object> skippedEdn() {
        Map<Object, Object> m = new LinkedHashMap<>();
        skipped.forEach((k, why) -> m.put(Keyword.of(k.cliName()), why));
        return m;
    }

    private boolean sleepUntil(long at) {
        long wait;
        while ((wait = at - System.nanoTime()) > 0) {
            if (stopped) return false;
            LockSupport.parkNanos(Math.min(wait, 100_000_000L)); // wakes every 100 ms to notice stop()
            if (Thread.currentThread().isInterrupted()) return false;
        }
        return !stopped;
    }
}
