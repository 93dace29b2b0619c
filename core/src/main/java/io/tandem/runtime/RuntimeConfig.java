package io.tandem.runtime;

import java.time.Duration;

/**
 * Settings of the node runtime, with validated defaults.
 *
 * @param requestTimeout  a client request not answered within it fails with a timeout
 * @param maxPendingRequests back-pressure bound: more pending requests are rejected at once
 * @param maxSessions     client sessions remembered for exactly-once execution
 * @param loopBatch       inbox events handled per loop turn before timers are checked again
 */
public record RuntimeConfig(Duration requestTimeout, int maxPendingRequests, int maxSessions, int loopBatch) {
    public static final RuntimeConfig DEFAULTS = new RuntimeConfig(Duration.ofSeconds(10), 10_000, 100_000, 1024);

    public RuntimeConfig {
        if (requestTimeout == null || requestTimeout.isNegative() || requestTimeout.isZero()) throw new IllegalArgumentException("requestTimeout must be positive");
        if (maxPendingRequests < 1) throw new IllegalArgumentException("maxPendingRequests must be >= 1, was " + maxPendingRequests);
        if (maxSessions < 1) throw new IllegalArgumentException("maxSessions must be >= 1, was " + maxSessions);
        if (loopBatch < 1) throw new IllegalArgumentException("loopBatch must be >= 1, was " + loopBatch);
    }

    public RuntimeConfig withRequestTimeout(Duration timeout) {
        return new RuntimeConfig(timeout, maxPendingRequests, maxSessions, loopBatch);
    }

    public RuntimeConfig withMaxPendingRequests(int max) {
        return new RuntimeConfig(requestTimeout, max, maxSessions, loopBatch);
    }
}
