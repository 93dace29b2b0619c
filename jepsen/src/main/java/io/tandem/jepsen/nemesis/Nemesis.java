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
 * completion with what was done; before a membership grow the other packages' faults stop
 * ({@code healOthersForGrow}). {@link #healAll()} is the final generator: it resumes and restarts
 * every node, heals the network, lifts every throttle, resets clocks and restores membership.
 *
 * <p>Under {@link NemesisSpec.Schedule#ONE_AT_A_TIME} (for protocols that allow at most a minority out
 * at a time, like virtual synchrony) the packages take turns instead: a quiet gap, one package's start
 * (its targets never reach a majority, {@link NemesisSpec} checks that), the fault held for an
 * interval, its stop, and then a wait until every node is back in the group ({@code groupWhole})
 * before the next gap. So faults never overlap, and a member a fault removed has rejoined before the
 * next fault can remove another one.
 */
public final class Nemesis {
    /** How soon a deferred stop is tried again (see {@link FaultPackage#deferred()}). */
    private static final java.time.Duration DEFERRED_RETRY = java.time.Duration.ofSeconds(1);
    private final List<FaultPackage> packages = new ArrayList<>();
    private final Map<FaultKind, String> skipped = new EnumMap<>(FaultKind.class);
    /** How often the one-at-a-time schedule asks the nodes whether the group is whole again. */
    private static final java.time.Duration WHOLE_POLL = java.time.Duration.ofMillis(500);
    private final NemesisSpec spec;
    private final NetnsCluster cluster;
    private final Recorder recorder;
    private final SplittableRandom random;
    private final Consumer<String> log;
    private volatile boolean stopped;
    private int ops;

    public Nemesis(NemesisSpec spec, NetnsCluster cluster, HostCapabilities host, Recorder recorder, long seed, Consumer<String> log) {
        this.spec = spec;
        this.cluster = cluster;
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
        if (spec.schedule() == NemesisSpec.Schedule.ONE_AT_A_TIME) {
            runOneAtATime(deadlineNanos);
            return;
        }
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
            if (pkg.active() && pkg.kind() == FaultKind.MEMBER) healOthersForGrow(pkg, next, gap);
            if (pkg.active()) stopPackage(pkg);
            else startPackage(pkg);
            next[p] += pkg.deferred() ? DEFERRED_RETRY.toNanos() : random.nextLong(2 * gap);
        }
    }

    /**
     * Before a grow, the other packages' faults stop (each recorded as its own stop op) and start again
     * on their schedule afterwards. A grow adds the removed member back as a learner, waits for it to
     * catch up, then promotes it: with every package's faults overlapping, a majority was down or split
     * for most of a run, every grow failed or was deferred, and membership stopped churning after the
     * first shrink (issue 16: two changes in a 60 s run). An operator adds a member back to a cluster
     * that can catch it up; the shrink, which needs only a leader, still lands in the middle of faults.
     */
    private void healOthersForGrow(FaultPackage member, long[] next, long gap) {
        for (int i = 0; i < packages.size(); i++) {
            FaultPackage other = packages.get(i);
            if (other == member || !other.active()) continue;
            stopPackage(other);
            next[i] = System.nanoTime() + random.nextLong(2 * gap);
        }
    }

    /**
     * One episode at a time: a quiet gap drawn from {@code [interval/2, 3·interval/2)}, a random
     * package started, held for an interval, stopped, then {@code awaitGroupWhole} before the next
     * gap. An episode is only started if its fault and heal fit before the deadline.
     */
    private void runOneAtATime(long deadlineNanos) {
        long interval = spec.interval().toNanos();
        while (!stopped) {
            long start = System.nanoTime() + interval / 2 + random.nextLong(interval);
            if (start + interval >= deadlineNanos) return;
            if (!sleepUntil(start)) return;
            FaultPackage pkg = packages.get(random.nextInt(packages.size()));
            startPackage(pkg);
            boolean slept = sleepUntil(System.nanoTime() + interval);
            // Always heal what this episode did, even when stopped early: healAll() would too, but the
            // episode then ends whole in the history (start, stop).
            stopPackage(pkg);
            while (pkg.deferred() && !stopped && sleepUntil(System.nanoTime() + DEFERRED_RETRY.toNanos())) stopPackage(pkg);
            if (!slept || !awaitGroupWhole(deadlineNanos)) return;
        }
    }

    /**
     * Waits until {@code groupWhole} holds, asking every {@code WHOLE_POLL}. Returns false if the run
     * ends first (then no further fault is started: the next one could take a majority out).
     */
    private boolean awaitGroupWhole(long deadlineNanos) {
        long t0 = System.nanoTime();
        Map<String, Object> statuses = Map.of();
        while (!stopped && System.nanoTime() < deadlineNanos) {
            statuses = cluster.statuses();
            if (groupWhole(statuses, cluster.nodes().size())) {
                log.accept(String.format(java.util.Locale.ROOT, "nemesis: the group is whole again after %.1f s (epoch %d)",
                        (System.nanoTime() - t0) / 1e9, ((io.tandem.kv.net.NodeStatus) statuses.values().iterator().next()).epoch()));
                return true;
            }
            if (!sleepUntil(System.nanoTime() + WHOLE_POLL.toNanos())) return false;
        }
        log.accept("nemesis: the group was not whole again before the end of the fault phase; no further fault. Statuses: " + summary(statuses));
        return false;
    }

    /**
     * Every node answers as a member (leader or follower, not joining, shut down or unknown), in the same
     * epoch, and that epoch's configuration holds all {@code n} nodes: a fault removed nobody for good.
     */
    static boolean groupWhole(Map<String, Object> statuses, int n) {
        long epoch = Long.MIN_VALUE;
        for (Object v : statuses.values()) {
            if (!(v instanceof io.tandem.kv.net.NodeStatus st)) return false;
            if (!st.role().equals("LEADER") && !st.role().equals("FOLLOWER")) return false;
            if (epoch != Long.MIN_VALUE && st.epoch() != epoch) return false;
            epoch = st.epoch();
            if (st.voters().size() != n || !st.voters().containsAll(statuses.keySet())) return false;
        }
        return statuses.size() == n;
    }

    private static String summary(Map<String, Object> statuses) {
        StringBuilder out = new StringBuilder();
        statuses.forEach((name, v) -> {
            out.append(out.isEmpty() ? "" : "; ").append(name).append(' ');
            if (v instanceof io.tandem.kv.net.NodeStatus st) out.append(st.role()).append(" epoch ").append(st.epoch()).append(' ').append(st.voters());
            else out.append(v);
        });
        return out.toString();
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
