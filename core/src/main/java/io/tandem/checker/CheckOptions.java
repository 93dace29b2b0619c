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
 * @param timeout wall-clock limit for the whole check, or {@code null} for none
 */
public record CheckOptions(NilReads nilReads, long maxSteps, Duration timeout) {
    /** Enough for every history in the benchmarks (a few seconds of search); see core/README.md. */
    public static final long DEFAULT_MAX_STEPS = 200_000_000L;

    public CheckOptions {
        Objects.requireNonNull(nilReads, "nilReads");
        if (maxSteps <= 0) {
            throw new IllegalArgumentException("maxSteps must be positive");
        }
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("timeout must be positive");
        }
    }

    /** Strict nil reads, {@link #DEFAULT_MAX_STEPS}, no timeout. */
    public static CheckOptions defaults() {
        return new CheckOptions(NilReads.STRICT, DEFAULT_MAX_STEPS, null);
    }

    public CheckOptions withNilReads(NilReads newNilReads) {
        return new CheckOptions(newNilReads, maxSteps, timeout);
    }

    public CheckOptions withMaxSteps(long newMaxSteps) {
        return new CheckOptions(nilReads, newMaxSteps, timeout);
    }

    public CheckOptions withTimeout(Duration newTimeout) {
        return new CheckOptions(nilReads, maxSteps, newTimeout);
    }
}
