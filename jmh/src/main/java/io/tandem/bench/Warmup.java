package io.tandem.bench;

import java.util.List;

/**
 * When a fresh cluster is warm: after at least {@code minSeconds}, once the throughput of the last
 * {@code span} seconds is no more than {@code tolerance} above that of the {@code span} seconds
 * before (the JIT compilers are done and the rate stopped rising), and at the latest after
 * {@code maxSeconds}. On a busy 2-core machine the servers' JIT compilation takes minutes rather
 * than seconds, and a fixed warm-up leaves the healthy windows faster the later they run.
 */
record Warmup(int minSeconds, int maxSeconds, int span, double tolerance) {
    Warmup {
        if (minSeconds < 1 || maxSeconds < minSeconds) throw new IllegalArgumentException("warm-up needs 1 <= min <= max, was " + minSeconds + ".." + maxSeconds);
        if (span < 1 || tolerance < 0) throw new IllegalArgumentException("span must be >= 1 and tolerance >= 0");
    }

    /** Whether the warm-up is over, given the completed operations of every second so far. */
    boolean done(List<Long> opsPerSecond) {
        int n = opsPerSecond.size();
        if (n < minSeconds) return false;
        if (n >= maxSeconds) return true;
        if (n < 2 * span) return false;
        long recent = 0, earlier = 0;
        for (int i = n - span; i < n; i++) recent += opsPerSecond.get(i);
        for (int i = n - 2 * span; i < n - span; i++) earlier += opsPerSecond.get(i);
        return recent <= earlier * (1 + tolerance);
    }
}
