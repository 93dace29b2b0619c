package io.tandem.sim.cost;

import java.util.ArrayList;
import java.util.List;

/**
 * A machine's cores, shared by the stages of the nodes placed on it. A job runs when a core is free,
 * its stage has a free thread, its node is not paused and its node's CPU quota for the current
 * period is not used up; it then holds the core and the thread for its whole service time
 * (non-preemptive: the jobs are microseconds long, against quota periods and pauses of milliseconds).
 * Among the jobs that could start, the one queued first starts first (ties by submission order), so
 * the result is a deterministic function of the submissions.
 */
public final class CpuHost {
    private final String name;
    private final int cores;
    private final Scheduler scheduler;
    private final List<NodeCpu> nodes = new ArrayList<>();
    private int busyCores;
    private boolean dispatching;
    private long busyNanos;
    private long sequence;

    public CpuHost(String name, int cores, Scheduler scheduler) {
        if (cores < 1) throw new IllegalArgumentException("a host needs at least one core, " + name + " has " + cores);
        this.name = name;
        this.cores = cores;
        this.scheduler = scheduler;
    }

    public String name() {
        return name;
    }

    public int cores() {
        return cores;
    }

    /** Core time used so far, summed over the cores. */
    public long busyNanos() {
        return busyNanos;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    /** Submission order of jobs on this host, to break ties between jobs queued at the same instant. */
    long nextSeq() {
        return ++sequence;
    }

    /** Whether a core is idle now (a thread woken now would run on it after its wake-up, see {@link NodeCpu#setHandoffLatency}). */
    boolean hasIdleCore() {
        return busyCores < cores;
    }

    void register(NodeCpu node) {
        nodes.add(node);
    }

    /** Starts every job that can start now, in queue order. Re-entrant calls (from a job's start) only queue. */
    void dispatch() {
        if (dispatching) return;
        dispatching = true;
        try {
            while (busyCores < cores) {
                NodeCpu.Job next = null;
                NodeCpu owner = null;
                for (NodeCpu n : nodes) {
                    NodeCpu.Job head = n.startable();
                    if (head != null && (next == null || head.before(next))) {
                        next = head;
                        owner = n;
                    }
                }
                if (next == null) return;
                busyCores++;
                NodeCpu.Job job = owner.start(next);
                long finish = scheduler.now() + job.cost();
                NodeCpu runner = owner;
                Runnable release = () -> {
                    busyCores--;
                    busyNanos += job.total();
                    runner.release(job);
                    dispatch();
                };
                scheduler.at(finish, () -> {
                    runner.finish(job);
                    if (job.tail() == 0) release.run();
                    else scheduler.at(scheduler.now() + job.tail(), release);
                });
            }
        } finally {
            dispatching = false;
        }
    }
}
