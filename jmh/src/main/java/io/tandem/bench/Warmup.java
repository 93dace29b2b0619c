package io.tandem.bench;

import java.util.List;

/**
 * When a fresh cluster is warm: after at least {@code minSeconds}, once the servers' JIT compiler
 * threads used at most {@code maxJitPercent} of a core over the last {@code span} seconds and the
 * throughput of those seconds is no more than {@code tolerance} above that of the {@code span}
 * seconds before; at the latest after {@code maxSeconds}. On a busy 2-core machine the servers'
 * JIT compilation takes minutes rather than seconds, and throughput alone is too noisy to tell: a
 * fixed warm-up leaves the healthy windows faster the later they run.
 */
record Warmup(int minSeconds, int maxSeconds, int span, double tolerance, double maxJitPercent) {
    Warmup {
        if (minSeconds < 1 || maxSeconds < minSeconds) throw new IllegalArgumentException("warm-up needs 1 <= min <= max, was " + minSeconds + ".." + maxSeconds);
        if (span < 1 || tolerance < 0 || maxJitPercent < 0) throw new IllegalArgumentException("span must be >= 1, tolerance and JIT share >= 0");
    }

    /**
     * Whether the warm-up is over, given the completed operations of every second so far and the
     * servers' JIT compiler CPU seconds used up to the end of each of those seconds.
     */
    boolean done(List<Long> opsPerSecond, List<Double> jitSecondsSoFar) {
        int n = opsPerSecond.size();
        if (jitSecondsSoFar.size() != n) throw new IllegalArgumentException("one JIT reading per second is needed");
        if (n < minSeconds) return false;
        if (n >= maxSeconds) return true;
        if (n < 2 * span) return false;
        double jitPercent = 100 * (jitSecondsSoFar.get(n - 1) - jitSecondsSoFar.get(n - 1 - span)) / span;
        if (!(jitPercent <= maxJitPercent)) return false;
        long recent = 0, earlier = 0;
        for (int i = n - span; i < n; i++) recent += opsPerSecond.get(i);
        for (int i = n - 2 * span; i < n - span; i++) earlier += opsPerSecond.get(i);
        return recent <= earlier * (1 + tolerance);
    }
}
