package io.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SummaryTest {
    private static final Scenario HEALTHY = Scenario.healthy(3);
    private static final Scenario STOP = new Scenario(3, new Slowness.Stopped(), 1);
    private static final Scenario NET = new Scenario(3, new Slowness.NetworkDelay(Duration.ofMillis(400)), 1);

    private static WindowResult window(Scenario s, int run, int index, double throughput, double p99, double liveGrowth, boolean leaderChanged) {
        double mean = 1000 * 16 / throughput;
        return new WindowResult(s, run, index, 10 + 20 * index, "n1", s.isHealthy() ? List.of() : List.of("n3"), 10, (long) throughput * 10, 0,
                throughput, mean, mean, p99, p99, p99, 50, 60, 0, 14, 14 + liveGrowth, 3, s.isHealthy() ? Map.of() : Map.of("same-quorum", 2.0),
                10, 0, mean, Map.of("leader", 30.0), leaderChanged, s.isHealthy() ? Double.NaN : 0.5, 2.0, null, List.of());
    }

    @Test
    void faultWindowsAreComparedWithTheHealthyWindowsNextToThem() {
        List<WindowResult> results = new ArrayList<>();
        // Run 1: throughput drifts upwards; each fault window sits between two healthy windows.
        results.add(window(HEALTHY, 1, 0, 1000, 10, 0, false));
        results.add(window(STOP, 1, 1, 600, 20, 0, false));
        results.add(window(HEALTHY, 1, 2, 1200, 10, 0, false));
        results.add(window(NET, 1, 3, 1300, 11, 0.5, false));
        results.add(window(HEALTHY, 1, 4, 1400, 12, 0, false));
        // Run 2 repeats it; its NET window lost the leader.
        results.add(window(HEALTHY, 2, 0, 1000, 10, 0, false));
        results.add(window(STOP, 2, 1, 500, 30, 0, false));
        results.add(window(HEALTHY, 2, 2, 1000, 10, 0, false));
        results.add(window(NET, 2, 3, 900, 10, 0, true));
        results.add(window(HEALTHY, 2, 4, 1000, 10, 0, false));

        List<Summary.Row> rows = Summary.of(results, 5, 55);
        assertThat(rows).extracting(r -> r.scenario().id()).containsExactly("n3-healthy", "n3-stop", "n3-net");
        Summary.Row healthy = rows.get(0), stop = rows.get(1), net = rows.get(2);

        assertThat(healthy.runs()).isEqualTo(6);
        assertThat(healthy.throughput()).isEqualTo(1000);
        assertThat(healthy.verdict()).isEqualTo("reference");

        // stop: 600/1100 and 500/1000 -> median of 54.5 % and 50 %
        assertThat(stop.throughputPercent()).isCloseTo((600.0 / 1100 + 0.5) / 2 * 100, within(1e-9));
        assertThat(stop.p99Percent()).isCloseTo((200.0 + 300.0) / 2, within(1e-9));
        assertThat(stop.verdict()).startsWith("misses: throughput 52%, p99 250%");

        // net: 1300/1300 = 100 % and 900/1000 = 90 %; p99 11/11 and 10/10
        assertThat(net.throughputPercent()).isCloseTo(95, within(1e-9));
        assertThat(net.p99Percent()).isCloseTo(100, within(1e-9));
        assertThat(net.extraLiveGrowthMiB()).isCloseTo(0.25, within(1e-9));
        assertThat(net.throughputVsStopPercent()).isCloseTo(95 / ((600.0 / 1100 + 0.5) / 2 * 100) * 100, within(1e-9));
        assertThat(net.leaderChanges()).isEqualTo(1);
        assertThat(net.verdict()).isEqualTo("misses: 1 leader change(s)");
        assertThat(net.warningsByKind()).isEqualTo(Map.of("same-quorum", 2.0));

        String md = Summary.markdown(rows);
        assertThat(md.lines()).hasSize(2 + 3);
        assertThat(md).contains("| 3 nodes, 1 slow follower: network +400 ms egress | 2 | 1100 | 95% |");
    }

    @Test
    void leaderHeapGrowingBeyondTheHealthyWindowsMissesTheTarget() {
        List<WindowResult> results = List.of(window(HEALTHY, 1, 0, 1000, 10, 0.2, false), window(NET, 1, 1, 1000, 10, 5, false),
                window(HEALTHY, 1, 2, 1000, 10, 0.2, false));
        Summary.Row net = Summary.of(results, 5, 55).get(1);
        assertThat(net.verdict()).isEqualTo("misses: live heap +4.8 MiB");
        assertThat(Summary.of(results.subList(0, 2), 5, 55).get(1).throughputPercent()).isEqualTo(100);
    }

    @Test
    void failedWindowsAreCountedButNotMeasured() {
        List<WindowResult> results = List.of(window(HEALTHY, 1, 0, 1000, 10, 0, false),
                WindowResult.failed(NET, 1, 1, "IllegalStateException: no agreed leader", 2.0), window(HEALTHY, 1, 2, 1000, 10, 0, false));
        Summary.Row net = Summary.of(results, 5, 55).get(1);
        assertThat(net.runs()).isZero();
        assertThat(net.failedRuns()).isEqualTo(1);
        assertThat(net.verdict()).isEqualTo("no successful run");
        assertThat(Summary.markdown(List.of(net))).contains("| 0 (+1 failed) |");
    }
}
