package io.tandem.sim.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * One storage device shared by every node placed on one machine (this VM: the three replica JVMs' logs on one ext4
 * filesystem). A sync of a file on ext4 is a journal commit, and the journal runs one commit at a time: a sync asked for
 * while a commit is running waits for the next one, and that next commit covers every sync asked for meanwhile, from
 * any file (jbd2 commits the running transaction whole). So the device is one queue with one commit in service; a
 * commit takes a service time sampled from the device's measured lone-sync distribution (nothing else waiting) plus its
 * bytes at the device's write bandwidth; group commit across the nodes, and the waiting behind another node's commit
 * that a sync on a busy device sees, come out of the queue.
 *
 * <p>Each node's own storage keeps one flush in flight ({@code SimDisk}), so at most one request per node waits here.
 */
public final class DiskDevice {
    private record Request(long bytes, Runnable done) {}

    private final String name;
    private final Distribution service;
    private final double bytesPerSecond;
    private final RandomGenerator random;
    private final Scheduler scheduler;
    private final List<Request> waiting = new ArrayList<>();
    private boolean busy;
    private long commits;
    private long syncs;
    private long busyNanos;
    private int maxGroup;

    /**
     * @param service        one commit's service time on an otherwise idle device (the measured lone sync)
     * @param bytesPerSecond the device's write bandwidth (0: unlimited)
     */
    public DiskDevice(String name, Distribution service, double bytesPerSecond, RandomGenerator random, Scheduler scheduler) {
        if (bytesPerSecond < 0) throw new IllegalArgumentException("negative bandwidth");
        this.name = name;
        this.service = service;
        this.bytesPerSecond = bytesPerSecond;
        this.random = random;
        this.scheduler = scheduler;
    }

    public String name() {
        return name;
    }

    /** Makes {@code bytes} durable: {@code done} runs when the commit that covers them has ended. */
    public void sync(long bytes, Runnable done) {
        if (bytes < 0) throw new IllegalArgumentException("negative size");
        waiting.add(new Request(bytes, done));
        if (!busy) startCommit();
    }

    private void startCommit() {
        List<Request> group = List.copyOf(waiting);
        waiting.clear();
        long bytes = 0;
        for (Request r : group) bytes += r.bytes();
        long time = service.sample(random) + (bytesPerSecond > 0 ? (long) Math.ceil(bytes * 1e9 / bytesPerSecond) : 0);
        busy = true;
        commits++;
        syncs += group.size();
        busyNanos += time;
        maxGroup = Math.max(maxGroup, group.size());
        scheduler.at(scheduler.now() + time, () -> {
            busy = false;
            // The syncs asked for during this commit form the next one; then this commit's waiters learn they are durable
            // (what they ask for next joins the commit after that, as a sync called after another returned does).
            if (!waiting.isEmpty()) startCommit();
            for (Request r : group) r.done().run();
        });
    }

    /** Syncs waiting for the next commit (not the one running). */
    public int waiting() {
        return waiting.size();
    }

    public boolean busy() {
        return busy;
    }

    /** Commits run so far. */
    public long commits() {
        return commits;
    }

    /** Syncs served so far (each commit serves one or more). */
    public long syncs() {
        return syncs;
    }

    /** The most syncs one commit served. */
    public int maxGroup() {
        return maxGroup;
    }

    /** Service time of the commits so far (the device's busy time). */
    public long busyNanos() {
        return busyNanos;
    }
}
