package io.tandem.checker;

import java.time.Duration;
import java.util.Objects;

/**
 * How to check.
 *
 * @param nilReads what an {@code :ok} read of nil means
 * @param maxSteps search budget: the total number of search steps over all keys before giving up with
 *     {@link CheckResult.Unknown}. Deterministic, unlike the timeout, so a simulator seed always gets the
 *     same verdict.
 * @param maxMemoryBytes the most heap one key's search may use to remember dead ends (an estimate)
 *     before giving up with {@link CheckResult.Unknown}; deterministic too
 * @param timeout wall-clock limit for the whole check, or {@code null} for none
 */
public record CheckOptions(NilReads nilReads, long maxSteps, long maxMemoryBytes, Duration timeout) {
    /** A few seconds of search; see core/README.md for measured rates. */
    public static final long DEFAULT_MAX_STEPS = 200_000_000L;
    /** Fits the default heap of a machine with 4 GiB of memory, and a 1 GiB test JVM. */
    public static final long DEFAULT_MAX_MEMORY_BYTES = 512L << 20;

    public CheckOptions {
        Objects.requireNonNull(nilReads, "nilReads");
        if (maxSteps <= 0) {
            throw new IllegalArgumentException("maxSteps must be positive");
        }
        if (maxMemoryBytes <= 0) {
            throw new IllegalArgumentException("maxMemoryBytes must be positive");
        }
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("timeout must be positive");
        }
    }

    /** Strict nil reads, {@link #DEFAULT_MAX_STEPS}, {@link #DEFAULT_MAX_MEMORY_BYTES}, no timeout. */
    public static CheckOptions defaults() {
        return new CheckOptions(NilReads.STRICT, DEFAULT_MAX_STEPS, DEFAULT_MAX_MEMORY_BYTES, null);
    }

    public CheckOptions withNilReads(NilReads newNilReads) {
        return new CheckOptions(newNilReads, maxSteps, maxMemoryBytes, timeout);
    }

    public CheckOptions withMaxSteps(long newMaxSteps) {
        return new CheckOptions(nilReads, newMaxSteps, maxMemoryBytes, timeout);
    }

    public CheckOptions withMaxMemoryBytes(long newMaxMemoryBytes) {
        return new CheckOptions(nilReads, maxSteps, newMaxMemoryBytes, timeout);
    }

    public CheckOptions withTimeout(Duration newTimeout) {
        return new CheckOptions(nilReads, maxSteps, maxMemoryBytes, newTimeout);
    }
}
