package io.tandem.bench;

import java.util.List;

/**
 * When a trial's warm-up is over (issue 25): the fail-slow harness's adaptive rule ({@code io.tandem.bench.Warmup}),
 * with the JIT measured as a share of the trial's CPU instead of a share of a core. After at least {@code minSeconds},
 * once over the last {@code span} load seconds the JIT compiler threads of every JVM of the trial (replicas and load)
 * used at most {@code maxJitPercent} of those JVMs' CPU, and the puts of those seconds are no more than
 * {@code tolerance} above the {@code span} seconds before; at the latest after {@code maxSeconds}.
 *
 * <p>Why a share of the CPU: the measured figure is CPU per put summed over every JVM, so compilation is harmless
 * exactly when it is a small part of that sum. A fixed 15 s warm-up left the compiler at 15-41 % of the measured CPU
 * of Tandem's replicated systems and 11-19 % of jgroups-raft's (session 11), so CPU per put compared compilers as
 * much as replication. A share of a core (the fail-slow rule) would let a system that is still compiling pass
 * sooner the less CPU it uses in all.
 */
public record SteadyState(int minSeconds, int maxSeconds, int span, double tolerance, double maxJitPercent) {
    public SteadyState {
        if (minSeconds < 0 || maxSeconds < minSeconds) throw new IllegalArgumentException("warm-up needs 0 <= min <= max, was " + minSeconds + ".." + maxSeconds);
        if (span < 1 || tolerance < 0 || maxJitPercent < 0) throw new IllegalArgumentException("span must be >= 1, tolerance and JIT share >= 0");
    }

    /** A fixed warm-up of {@code seconds} (min = max): the harness before issue 25. */
    public static SteadyState fixed(int seconds) {
        return new SteadyState(seconds, seconds, 5, 0.05, 5);
    }

    public boolean adaptive() {
        return maxSeconds > minSeconds;
    }

    /**
     * Whether the warm-up is over after {@code ops.size()} load seconds, given the puts of every second and, at the end of
     * each second, the JIT compiler CPU seconds and all CPU seconds used so far by the trial's JVMs (NaN readings make
     * a second undecidable: not warm, unless the maximum is reached).
     */
    public boolean done(List<Long> ops, List<Double> jitSecondsSoFar, List<Double> cpuSecondsSoFar) {
        int n = ops.size();
        if (jitSecondsSoFar.size() != n || cpuSecondsSoFar.size() != n) throw new IllegalArgumentException("one JIT and one CPU reading per second are needed");
        if (n < minSeconds) return false;
        if (n >= maxSeconds) return true;
        if (n < 2 * span) return false;
        double share = jitPercent(jitSecondsSoFar, cpuSecondsSoFar, n - 1 - span, n - 1);
        if (!(share <= maxJitPercent)) return false;
        long recent = 0, earlier = 0;
        for (int i = n - span; i < n; i++) recent += ops.get(i);
        for (int i = n - 2 * span; i < n - span; i++) earlier += ops.get(i);
        return recent <= earlier * (1 + tolerance);
    }

    /** The JIT's share (percent) of the CPU between readings {@code from} and {@code to}; NaN if unknown or no CPU was used. */
    public static double jitPercent(List<Double> jitSecondsSoFar, List<Double> cpuSecondsSoFar, int from, int to) {
        return jitPercent(jitSecondsSoFar.get(to) - jitSecondsSoFar.get(from), cpuSecondsSoFar.get(to) - cpuSecondsSoFar.get(from));
    }

    /** {@code jit} seconds as a percentage of {@code cpu} seconds; NaN if either is unknown or no CPU was used. */
    public static double jitPercent(double jit, double cpu) {
        if (Double.isNaN(jit) || Double.isNaN(cpu) || cpu <= 0) return Double.NaN;
        return 100 * jit / cpu;
    }
}
