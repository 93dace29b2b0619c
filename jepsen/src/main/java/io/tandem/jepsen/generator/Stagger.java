package io.tandem.jepsen.generator;

import java.util.random.RandomGenerator;

/**
 * Jepsen's {@code gen/stagger dt} (io.jepsen/generator): operations are scheduled a uniformly random
 * {@code [0, 2dt)} apart over all threads together, so {@code dt = 1/rate} gives about {@code rate}
 * operations per second in total. An operation is due at the scheduled time, or at once if the thread
 * that takes it comes later (all threads were busy); the next one is then scheduled from the time it
 * actually went out, so time lost to slow operations is not made up with a burst afterwards.
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
        long at = next == Long.MIN_VALUE ? now : Math.max(next, now);
        next = at + random.nextLong(2 * meanGapNanos);
        return at;
    }
}
