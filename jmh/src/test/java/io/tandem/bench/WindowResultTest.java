package io.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class WindowResultTest {
    private static final double MIB = 1024 * 1024;

    /** A tick whose puts all took {@code latencyMicros}, with the leader's counters at the end of the tick. */
    private static TickSampler.Tick tick(int second, int ops, long latencyMicros, long errorsSoFar, double heapMiB, double resends,
                                         Map<String, Double> warnings, double waits, double waitNanos) {
        Histogram h = new Histogram(3);
        for (int i = 0; i < ops; i++) h.recordValue(latencyMicros);
        return new TickSampler.Tick(second, 1_000L * second, h, errorsSoFar,
                new TickSampler.LeaderSample(heapMiB * MIB, resends, warnings, 10.0 * second, 0, 1, waits, waitNanos));
    }

    private static List<TickSampler.Tick> ticks() {
        List<TickSampler.Tick> t = new ArrayList<>();
        // Ticks 0-3 come before the window (fault applied at 2, settle 2); 4-7 are measured.
        for (int i = 0; i < 4; i++) t.add(tick(i, 100, 1_000, 0, 50, 1, Map.of("same-quorum", 1.0), 100 * i, 100 * i * 1e6));
        t.add(tick(4, 200, 2_000, 1, 52, 2, Map.of("same-quorum", 2.0), 500, 500e6));
        t.add(tick(5, 200, 2_000, 1, 54, 2, Map.of("same-quorum", 3.0, "resend-storm", 1.0), 600, 600e6 + 100 * 3e6));
        t.add(tick(6, 200, 2_000, 3, 56, 5, Map.of("same-quorum", 4.0, "resend-storm", 1.0), 700, 600e6 + 200 * 3e6));
        t.add(tick(7, 400, 4_000, 3, 58, 6, Map.of("same-quorum", 5.0, "resend-storm", 1.0), 800, 600e6 + 300 * 3e6));
        t.add(tick(8, 100, 1_000, 3, 40, 6, Map.of("same-quorum", 5.0, "resend-storm", 1.0), 900, 0));
        return t;
    }

    @Test
    void onlyTheMeasuredTicksCountAndCountersAreDifferencesOverTheWindow() {
        WindowResult.Span span = new WindowResult.Span(2, 2, 4, 2);
        WindowResult.Measured m = WindowResult.measure(ticks(), span);
        assertThat(m.ops()).isEqualTo(1000);
        assertThat(m.throughput()).isEqualTo(250);
        assertThat(m.errors()).isEqualTo(3);
        assertThat(m.meanMs()).isCloseTo((600 * 2.0 + 400 * 4.0) / 1000, within(0.01));
        assertThat(m.p50Ms()).isCloseTo(2.0, within(0.01));
        assertThat(m.p99Ms()).isCloseTo(4.0, within(0.01));
        assertThat(m.maxMs()).isCloseTo(4.0, within(0.01));
        assertThat(m.resends()).isEqualTo(5); // 6 at the end of tick 7 minus 1 at the end of tick 3
        assertThat(m.warningsByKind()).isEqualTo(Map.of("same-quorum", 4.0, "resend-storm", 1.0));
        assertThat(m.backgroundMessages()).isEqualTo(40);
        assertThat(m.commitWaitMs()).isCloseTo((600e6 + 900e6 - 300e6) / 500 / 1e6, within(1e-9));
        assertThat(m.heapMeanMiB()).isEqualTo(55);
        assertThat(m.heapMaxMiB()).isEqualTo(58);
        assertThat(m.heapSlopeMiBPerMin()).isCloseTo(2 * 60, within(1e-9));
        assertThat(m.timeline()).extracting(WindowResult.Second::second).containsExactly(-2, -1, 0, 1, 2, 3, 4, 5);
        assertThat(m.timeline()).extracting(WindowResult.Second::phase)
                .containsExactly("before", "before", "settle", "settle", "measure", "measure", "measure", "measure");
        assertThat(m.timeline().get(4).errors()).isEqualTo(1);
        assertThat(m.timeline().get(6).errors()).isEqualTo(2);
    }

    @Test
    void aFailedScrapeAtAWindowEdgeLeavesTheCountersUnknown() {
        List<TickSampler.Tick> t = ticks();
        TickSampler.Tick edge = t.get(3);
        t.set(3, new TickSampler.Tick(3, edge.endEpochMillis(), edge.latencies(), edge.errorsSoFar(), null));
        WindowResult.Measured m = WindowResult.measure(t, new WindowResult.Span(2, 2, 4, 0));
        assertThat(m.resends()).isNaN();
        assertThat(m.warningsByKind()).isEmpty();
        assertThat(m.commitWaitMs()).isNaN();
        assertThat(m.ops()).isEqualTo(1000);
    }

    @Test
    void spansAreChecked() {
        assertThatThrownBy(() -> WindowResult.measure(ticks(), new WindowResult.Span(5, 2, 4, 0))).hasMessageContaining("need 11 ticks");
        assertThatThrownBy(() -> new WindowResult.Span(1, 0, 4, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WindowResult.Span(1, 1, 4, 2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sessionTimelineLabelsEveryTick() {
        List<TickSampler.Tick> t = ticks();
        WindowResult.Measured m = WindowResult.measure(t, new WindowResult.Span(2, 2, 4, 2));
        Scenario cpu = new Scenario(3, new Slowness.CpuQuota(5, Duration.ofSeconds(1)), 1);
        WindowResult w = new WindowResult(cpu, 1, 1, 2, "n1", List.of("n3"), 4, m.ops(), m.errors(), m.throughput(), m.meanMs(), m.p50Ms(),
                m.p99Ms(), m.p999Ms(), m.maxMs(), m.heapMeanMiB(), m.heapMaxMiB(), m.heapSlopeMiBPerMin(), 14, 15, m.resends(),
                m.warningsByKind(), m.backgroundMessages(), m.commitOverdue(), m.commitWaitMs(), Map.of("leader", 40.0), false, 0.2, 3.5, null,
                m.timeline());
        List<WindowResult.Second> session = FailSlowRunner.sessionTimeline(t, List.of(w));
        assertThat(session).extracting(WindowResult.Second::phase).containsExactly("warmup", "warmup", "n3-cpu:settle", "n3-cpu:settle",
                "n3-cpu:measure", "n3-cpu:measure", "n3-cpu:measure", "n3-cpu:measure", "between");
        assertThat(session.get(8).endEpochMillis()).isEqualTo(8000);
    }
}
