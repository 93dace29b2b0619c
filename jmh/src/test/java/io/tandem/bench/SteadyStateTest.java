package io.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SteadyStateTest {
    /** Seconds with the given puts each, the trial's CPU rising by {@code cpuPerSecond} and the JIT's by {@code jitPerSecond}. */
    private static List<List<? extends Number>> seconds(long[] ops, double[] jitPerSecond, double cpuPerSecond) {
        List<Long> o = new ArrayList<>();
        List<Double> jit = new ArrayList<>(), cpu = new ArrayList<>();
        double j = 0, c = 0;
        for (int i = 0; i < ops.length; i++) {
            o.add(ops[i]);
            j += jitPerSecond[i];
            c += cpuPerSecond;
            jit.add(j);
            cpu.add(c);
        }
        return List.of(o, jit, cpu);
    }

    @SuppressWarnings("unchecked")
    private static boolean done(SteadyState rule, List<List<? extends Number>> s) {
        return rule.done((List<Long>) s.get(0), (List<Double>) s.get(1), (List<Double>) s.get(2));
    }

    private static long[] flat(int n, long ops) {
        long[] a = new long[n];
        java.util.Arrays.fill(a, ops);
        return a;
    }

    private static double[] flat(int n, double v) {
        double[] a = new double[n];
        java.util.Arrays.fill(a, v);
        return a;
    }

    @Test
    void warmOnceTheJitIsASmallShareOfTheCpuAndThroughputStoppedRising() {
        SteadyState rule = new SteadyState(10, 60, 5, 0.05, 5);
        // 1.6 CPU seconds per second, the JIT at 0.05 of them (3 %): warm as soon as two spans are there.
        assertThat(done(rule, seconds(flat(9, 1000L), flat(9, 0.05), 1.6))).isFalse(); // below the minimum
        assertThat(done(rule, seconds(flat(10, 1000L), flat(10, 0.05), 1.6))).isTrue();
        // The JIT at 0.16 of 1.6 (10 %): not warm.
        assertThat(done(rule, seconds(flat(20, 1000L), flat(20, 0.16), 1.6))).isFalse();
    }

    @Test
    void aJitShareIsOfTheTrialsCpuNotOfACore() {
        SteadyState rule = new SteadyState(10, 60, 5, 0.05, 5);
        // 0.04 of a core is 4 % of a core (the fail-slow rule would pass) but 10 % of a trial using 0.4 CPU seconds a second.
        assertThat(done(rule, seconds(flat(20, 1000L), flat(20, 0.04), 0.4))).isFalse();
    }

    @Test
    void notWarmWhileThroughputStillRises() {
        SteadyState rule = new SteadyState(10, 60, 5, 0.05, 5);
        long[] rising = new long[20];
        for (int i = 0; i < rising.length; i++) rising[i] = 1000 + 100L * i;
        assertThat(done(rule, seconds(rising, flat(20, 0.0), 1.6))).isFalse();
        // Falling or flat within 5 % is steady.
        long[] falling = new long[20];
        for (int i = 0; i < falling.length; i++) falling[i] = 3000 - 50L * i;
        assertThat(done(rule, seconds(falling, flat(20, 0.0), 1.6))).isTrue();
    }

    @Test
    void theMaximumEndsTheWarmUpAndAFixedRuleIsItsLength() {
        SteadyState rule = new SteadyState(10, 30, 5, 0.05, 5);
        assertThat(done(rule, seconds(flat(29, 1000L), flat(29, 1.0), 1.6))).isFalse();
        assertThat(done(rule, seconds(flat(30, 1000L), flat(30, 1.0), 1.6))).isTrue();
        SteadyState fixed = SteadyState.fixed(15);
        assertThat(fixed.adaptive()).isFalse();
        assertThat(done(fixed, seconds(flat(14, 1000L), flat(14, 0.0), 1.6))).isFalse();
        assertThat(done(fixed, seconds(flat(15, 1000L), flat(15, 1.0), 1.6))).isTrue();
        assertThat(done(SteadyState.fixed(0), seconds(new long[0], new double[0], 1.6))).isTrue();
    }

    @Test
    void unknownReadingsAreNotWarmAndBadRulesAreRefused() {
        SteadyState rule = new SteadyState(10, 60, 5, 0.05, 5);
        List<Long> ops = new ArrayList<>(List.of(flat(20, 1000L)).stream().flatMapToLong(java.util.Arrays::stream).boxed().toList());
        List<Double> nan = new ArrayList<>(java.util.Collections.nCopies(20, Double.NaN));
        List<Double> cpu = new ArrayList<>();
        for (int i = 0; i < 20; i++) cpu.add(1.6 * (i + 1));
        assertThat(rule.done(ops, nan, cpu)).isFalse();
        assertThatThrownBy(() -> rule.done(ops, nan.subList(0, 19), cpu)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SteadyState(20, 10, 5, 0.05, 5)).hasMessageContaining("min <= max");
        assertThatThrownBy(() -> new SteadyState(0, 10, 0, 0.05, 5)).hasMessageContaining("span");
        assertThat(SteadyState.jitPercent(1, 0)).isNaN();
        assertThat(SteadyState.jitPercent(0.5, 10)).isEqualTo(5.0);
    }
}
