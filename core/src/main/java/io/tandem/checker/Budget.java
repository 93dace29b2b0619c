package io.tandem.checker;

import java.time.Duration;

/**
 * The search budget of one check: a step count and an optional deadline shared by all partitions, and a
 * memory limit for each partition's search.
 */
final class Budget {
    /** The clock is read whenever the remaining steps cross a multiple of 2^14, not on every step. */
    private static final int CLOCK_CHECK_SHIFT = 14;

    private final long maxSteps;
    private final long maxMemoryBytes;
    private final long deadlineNanos;
    private final boolean hasDeadline;
    private long remaining;
    private boolean timedOut;

    Budget(long maxSteps, long maxMemoryBytes, Duration timeout) {
        this.maxSteps = maxSteps;
        this.maxMemoryBytes = maxMemoryBytes;
        this.remaining = maxSteps;
        this.hasDeadline = timeout != null;
        this.deadlineNanos = hasDeadline ? System.nanoTime() + timeout.toNanos() : 0;
    }

    /** Spends {@code steps} steps; false once the steps or the time are used up. */
    boolean spend(long steps) {
        if (remaining < steps) {
            remaining = 0;
            return false;
        }
        long before = remaining;
        remaining -= steps;
        if (hasDeadline && (before >>> CLOCK_CHECK_SHIFT) != (remaining >>> CLOCK_CHECK_SHIFT)
                && System.nanoTime() - deadlineNanos > 0) {
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

    /** The most memory one partition's search may use for remembering dead ends. */
    long maxMemoryBytes() {
        return maxMemoryBytes;
    }
}
