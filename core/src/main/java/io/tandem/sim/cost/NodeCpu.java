package io.tandem.sim.cost;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The CPU side of one node: a FIFO queue and a number of threads per {@link Stage}, a CPU quota
 * (the cgroup {@code cpu.cfs_quota_us} kind: {@code quota} of core time per {@code period}, summed
 * over the node's threads) and a paused flag (SIGSTOP: nothing starts until resumed).
 *
 * <p>A job is submitted with its service time and two actions: {@code onStart} runs when it gets a
 * core (the engine handler runs then, reading the clock of that moment), {@code onDone} when its
 * service time has passed (what it produced leaves then: messages, replies). The node's stages share
 * the cores of its {@link CpuHost}.
 */
public final class NodeCpu {
    /**
     * One unit of work: its stage, service time and actions, and the thread's turn cost after it (the wake-up of a
     * thread that was idle: it keeps the thread and a core busy once the job's effects have left); ordered by the time
     * it was queued, then submission.
     */
    record Job(Stage stage, long cost, long tail, Runnable onStart, Runnable onDone, long queuedAt, long seq) {
        long total() {
            return cost + tail;
        }

        boolean before(Job other) {
            return queuedAt != other.queuedAt ? queuedAt < other.queuedAt : seq < other.seq;
        }
    }

    private final String node;
    private final CpuHost host;
    private final EnumMap<Stage, ArrayDeque<Job>> queues = new EnumMap<>(Stage.class);
    private final EnumMap<Stage, Integer> threads = new EnumMap<>(Stage.class);
    private final EnumMap<Stage, Integer> running = new EnumMap<>(Stage.class);
    private final EnumMap<Stage, Long> busy = new EnumMap<>(Stage.class);
    private final EnumMap<Stage, Long> turnBusy = new EnumMap<>(Stage.class); // the part of busy that was wake-up turns

    private long quotaNanos; // 0: no quota
    private long periodNanos;
    private long periodStart;
    private long usedInPeriod;
    private boolean wakeScheduled;

    private boolean paused;
    private final EnumMap<Stage, Long> wakeupNanos = new EnumMap<>(Stage.class);
    private long wakeups;
    private final EnumMap<Stage, Long> stageWakeups = new EnumMap<>(Stage.class);
    private int queued;
    private int maxQueued;
    private long jobs;
    // Hand-off latency (issue 18, session 13): a parked thread woken onto an idle core starts after the core's wake-up.
    private final EnumMap<Stage, Distribution> handoffLatency = new EnumMap<>(Stage.class);
    private final EnumMap<Stage, List<Job>> waking = new EnumMap<>(Stage.class);
    private RandomGenerator handoffRandom;
    private long handoffs;
    private long handoffNanos;

    public NodeCpu(String node, CpuHost host, int ioThreads, int loopThreads, int execThreads) {
        this.node = node;
        this.host = host;
        for (Stage s : Stage.values()) {
            queues.put(s, new ArrayDeque<>());
            running.put(s, 0);
            busy.put(s, 0L);
            turnBusy.put(s, 0L);
            wakeupNanos.put(s, 0L);
        }
        threads.put(Stage.IO, positive(ioThreads));
        threads.put(Stage.LOOP, positive(loopThreads));
        threads.put(Stage.EXEC, positive(execThreads));
        threads.put(Stage.DISK, 1); // one storage thread per node, as NodeStorage has
        host.register(this);
    }

    private static int positive(int n) {
        if (n < 1) throw new IllegalArgumentException("a stage needs at least one thread");
        return n;
    }

    public String node() {
        return node;
    }

    public CpuHost host() {
        return host;
    }

    /**
     * What handing work to an idle thread costs (a parked thread woken: the futex wake and the
     * wake-up on the other side); a thread that is busy or has work queued picks the next job up
     * without it, as the real loops do.
     */
    public void setWakeupCost(long nanos) {
        for (Stage s : Stage.values()) setWakeupCost(s, nanos);
    }

    /**
     * The same for one stage: a turn of its thread after it went idle (the real loops spin before they park, and
     * their turn's fixed work, e.g. the socket read that takes everything queued, is paid once per turn). Jobs that
     * queue behind a busy thread join its turn: that is where batching comes from in the model.
     */
    public void setWakeupCost(Stage stage, long nanos) {
        if (nanos < 0) throw new IllegalArgumentException("negative cost");
        wakeupNanos.put(stage, nanos);
    }

    /** How many jobs found their thread idle (and paid the wake-up). */
    public long wakeups() {
        return wakeups;
    }

    /** The same for one stage. */
    public long wakeups(Stage stage) {
        return stageWakeups.getOrDefault(stage, 0L);
    }

    /**
     * Gives {@code stage}'s threads a hand-off latency: a job handed to a parked thread of the stage (none running, nothing
     * queued) while the host has an idle core waits {@code latency} (a sample) before it can start: the wall time from the
     * unpark to the woken thread running on a core that was idle (on a VM, the halted vCPU's wake-up). Jobs handed to the
     * stage meanwhile join the same turn. A thread woken while every core is busy waits for a core instead, which the
     * host's queue already models. Null: none (the default; then a job that finds its thread idle queues at once).
     */
    public void setHandoffLatency(Stage stage, Distribution latency, RandomGenerator random) {
        if (latency == null) handoffLatency.remove(stage);
        else handoffLatency.put(stage, latency);
        this.handoffRandom = random;
    }

    /** Jobs that waited for a parked thread's wake-up ({@link #setHandoffLatency}). */
    public long handoffs() {
        return handoffs;
    }

    /** Their wake-up latency in all. */
    public long handoffNanos() {
        return handoffNanos;
    }

    /** Queues a job; it starts as soon as the host lets it. */
    public void submit(Stage stage, long costNanos, Runnable onStart, Runnable onDone) {
        submit(stage, costNanos, onStart, onDone, true);
    }

    /**
     * The same; {@code handoff} false for a job whose thread's wake-up a measured latency already holds (the loop's
     * storage completion: the fsync's calibration waits for it), so that it pays no hand-off latency here.
     */
    public void submit(Stage stage, long costNanos, Runnable onStart, Runnable onDone, boolean handoff) {
        submit(stage, costNanos, onStart, onDone, handoff, true);
    }

    /**
     * The same; {@code parked} false for a job its thread takes without having parked although the stage shows idle in
     * the model: the storage thread, whose sync returned with more work queued, is idle here while the device works but
     * in the real thread it was blocked in the sync, not parked, and goes on without a wake-up (no {@code wakeup.*} cost).
     */
    public void submit(Stage stage, long costNanos, Runnable onStart, Runnable onDone, boolean handoff, boolean parked) {
        if (costNanos < 0) throw new IllegalArgumentException("negative cost");
        long now = host.scheduler().now();
        List<Job> wakingJobs = waking.get(stage);
        if (wakingJobs != null) { // its thread is being woken: the job joins that turn (no wake-up of its own)
            wakingJobs.add(new Job(stage, costNanos, 0, onStart, onDone, now, host.nextSeq()));
            queued++;
            maxQueued = Math.max(maxQueued, queued);
            return;
        }
        boolean idle = running.get(stage) < threads.get(stage) && queues.get(stage).isEmpty();
        long wake = 0;
        if (wakeupNanos.get(stage) > 0 && idle && parked) { // an idle thread takes it
            wake = wakeupNanos.get(stage);
            wakeups++;
            stageWakeups.merge(stage, 1L, Long::sum);
        }
        Job job = new Job(stage, costNanos, wake, onStart, onDone, now, host.nextSeq());
        queued++;
        maxQueued = Math.max(maxQueued, queued);
        Distribution latency = handoffLatency.get(stage);
        if (handoff && latency != null && idle && host.hasIdleCore()) {
            long delay = latency.sample(handoffRandom);
            if (delay > 0) {
                List<Job> turn = new ArrayList<>();
                turn.add(job);
                waking.put(stage, turn);
                handoffs++;
                handoffNanos += delay;
                host.scheduler().at(now + delay, () -> woken(stage));
                return;
            }
        }
        queues.get(stage).add(job);
        host.dispatch();
    }

    /** {@code stage}'s thread is awake: the jobs handed to it meanwhile queue in their order, as of now. */
    private void woken(Stage stage) {
        List<Job> turn = waking.remove(stage);
        long now = host.scheduler().now();
        for (Job j : turn) queues.get(stage).add(new Job(j.stage(), j.cost(), j.tail(), j.onStart(), j.onDone(), now, j.seq()));
        host.dispatch();
    }

    /**
     * Limits the node to {@code quotaNanos} of core time per {@code periodNanos} from now on (0: no
     * limit). Unused quota does not carry over; a job that overran its period's quota is paid for in
     * the next period, as the kernel's CFS bandwidth control does.
     */
    public void setQuota(long quotaNanos, long periodNanos) {
        if (quotaNanos < 0 || (quotaNanos > 0 && periodNanos <= 0)) throw new IllegalArgumentException("quota needs a positive period");
        this.quotaNanos = quotaNanos;
        this.periodNanos = periodNanos;
        this.periodStart = host.scheduler().now();
        this.usedInPeriod = 0;
        host.dispatch();
    }

    public void setPaused(boolean paused) {
        this.paused = paused;
        if (!paused) host.dispatch();
    }

    public boolean isPaused() {
        return paused;
    }

    /** Jobs waiting for a core or a thread now (the node's queued work: its memory, in the model). */
    public int queued() {
        return queued;
    }

    public int maxQueued() {
        return maxQueued;
    }

    /** Resets the high-water mark (at the start of a measurement window). */
    public void resetMaxQueued() {
        maxQueued = queued;
    }

    public long jobs() {
        return jobs;
    }

    /** Core time used by {@code stage} so far. */
    public long busyNanos(Stage stage) {
        return busy.get(stage);
    }

    /**
     * The part of {@link #busyNanos} that was wake-up turns ({@link #setWakeupCost}): core time a thread spends because it
     * was idle before the job (it falls per job as the load grows and jobs share turns), as opposed to the jobs' own work.
     */
    public long turnNanos(Stage stage) {
        return turnBusy.get(stage);
    }

    /** The job this node would start now, or null (paused, quota used, no free thread, nothing queued). */
    Job startable() {
        if (paused || queued == 0) return null;
        if (quotaNanos > 0) {
            long now = host.scheduler().now();
            if (now >= periodStart + periodNanos) {
                long periods = (now - periodStart) / periodNanos;
                periodStart += periods * periodNanos;
                usedInPeriod = Math.max(0, usedInPeriod - periods * quotaNanos);
            }
            if (usedInPeriod >= quotaNanos) {
                if (!wakeScheduled) {
                    wakeScheduled = true;
                    host.scheduler().at(periodStart + periodNanos, () -> {
                        wakeScheduled = false;
                        host.dispatch();
                    });
                }
                return null;
            }
        }
        Job best = null;
        for (Stage s : Stage.values()) {
            if (running.get(s) >= threads.get(s)) continue;
            Job head = queues.get(s).peekFirst();
            if (head != null && (best == null || head.before(best))) best = head;
        }
        return best;
    }

    Job start(Job job) {
        queues.get(job.stage()).removeFirst();
        queued--;
        running.merge(job.stage(), 1, Integer::sum);
        usedInPeriod += job.total();
        jobs++;
        if (job.onStart() != null) job.onStart().run();
        return job;
    }

    /** The job's service time is over: what it produced leaves (its thread stays busy for its tail, see {@link #release}). */
    void finish(Job job) {
        if (job.onDone() != null) job.onDone().run();
    }

    /** The job's thread is free again (after its service time and tail). */
    void release(Job job) {
        running.merge(job.stage(), -1, Integer::sum);
        busy.merge(job.stage(), job.total(), Long::sum);
        turnBusy.merge(job.stage(), job.tail(), Long::sum);
    }

    @Override
    public String toString() {
        return node + " queued=" + queued + (paused ? " paused" : "") + (quotaNanos > 0 ? " quota=" + quotaNanos + "/" + periodNanos : "");
    }
}
