package io.tandem.runtime;

import java.time.Duration;

/**
 * How a node's loop waits while an engine that asked to be polled finds no work (derecho.md §8.8):
 * spin {@code spins} times ({@link Thread#onSpinWait}), then yield {@code yields} times, then park,
 * starting at {@code minPark} and doubling up to {@code maxPark}. Any event (a message, a region
 * write that the engine wants to hear of, a push completion, a timer) ends the wait at once; work
 * found resets it to spinning.
 *
 * <p>The default ({@link #BACKOFF}) spins briefly and parks soon, which suits a machine with few
 * cores shared by several nodes; {@link #SPIN} is for benchmarks on dedicated cores and
 * {@link #PARK} for the least CPU.
 */
public record IdleStrategy(int spins, int yields, Duration minPark, Duration maxPark) {
    /** About 20-50 µs of spinning and yielding, then parks of 50 µs growing to 1 ms. */
    public static final IdleStrategy BACKOFF = new IdleStrategy(200, 20, Duration.ofNanos(50_000), Duration.ofMillis(1));
    /** Never parks (burns a core per polling node). */
    public static final IdleStrategy SPIN = new IdleStrategy(Integer.MAX_VALUE, 0, Duration.ofNanos(1), Duration.ofNanos(1));
    /** Parks at once, 1 ms at most. */
    public static final IdleStrategy PARK = new IdleStrategy(0, 0, Duration.ofMillis(1), Duration.ofMillis(1));

    public IdleStrategy {
        if (spins < 0 || yields < 0) throw new IllegalArgumentException("spins and yields must be >= 0, were " + spins + ", " + yields);
        if (minPark == null || maxPark == null || minPark.isNegative() || minPark.isZero() || maxPark.compareTo(minPark) < 0) {
            throw new IllegalArgumentException("parks must satisfy 0 < minPark <= maxPark, were " + minPark + ", " + maxPark);
        }
    }

    /** Spins or yields for idle turn {@code idleTurns} (0 for the first); false when this turn should park instead. */
    boolean spinOrYield(long idleTurns) {
        if (idleTurns < spins) {
            Thread.onSpinWait();
            return true;
        }
        if (idleTurns - spins < yields) {
            Thread.yield();
            return true;
        }
        return false;
    }

    /** How long idle turn {@code idleTurns} parks: minPark, doubling per turn, up to maxPark. */
    long parkNanos(long idleTurns) {
        long doublings = Math.max(0, Math.min(30, idleTurns - spins - yields));
        return Math.min(maxPark.toNanos(), minPark.toNanos() << doublings);
    }
}
