package io.tandem.checker;

import java.time.Duration;

/** The search budget shared by all partitions of one check: a step count and an optional deadline. */
final class Budget {
    private static final int CLOCK_CHECK_INTERVAL = 1 << 14;

    private final long maxSteps;
    private final long deadlineNanos;
    private final boolean hasDeadline;
    private long remaining;
    private boolean timedOut;

    Budget(long maxSteps, Duration timeout) {
        this.maxSteps = maxSteps;
        this.remaining = maxSteps;
        this.hasDeadline = timeout != null;
        this.deadlineNanos = hasDeadline ? System.nanoTime() + timeout.toNanos() : 0;
    }

    /** Spends one step; false once the steps or the time are used up. */
    boolean spend() {
        if (remaining <= 0) {
            return false;
        }
        remaining--;
        // Reading the clock is comparatively slow, so do it every few thousand steps only.
        if (hasDeadline && (remaining & (CLOCK_CHECK_INTERVAL - 1)) == 0 && System.nanoTime() - deadlineNanos > 0) {
            timedOut = true;
            remaining = 0;
            return false;
        }
        return true;
    }

    boolean timedOut() {
        return timedOut;
    }

    long maxSteps() {
        return maxSteps;
    }
}
