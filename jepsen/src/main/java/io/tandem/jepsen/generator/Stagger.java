package io.tandem.jepsen.generator;

import java.util.random.RandomGenerator;

/**
 * Jepsen's {@code gen/stagger dt}: operations are scheduled a uniformly random {@code [0, 2dt)} apart,
 * over all threads together (so {@code dt = 1/rate} gives {@code rate} operations per second in total),
 * each after the previous operation's scheduled time, not after its completion. A thread that is late
 * for its slot runs at once, so slow operations make the schedule catch up rather than drift.
 */
public final class Stagger {
    private final long meanGapNanos;
    private long next = Long.MIN_VALUE;

    /** A stagger for {@code rate} operations per second in total. */
    public Stagger(double rate) {
        if (!(rate > 0)) throw new IllegalArgumentException("rate must be positive");
        this.meanGapNanos = Math.max(1, Math.round(1e9 / rate));
    }

    /** The time (in the clock of {@code now}) at which the next operation is due. */
    public synchronized long schedule(long now, RandomGenerator random) {
        if (next == Long.MIN_VALUE) next = now;
        long at = next;
        next += random.nextLong(2 * meanGapNanos);
        return at;
    }
}
