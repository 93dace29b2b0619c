package io.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.kv.net.NodeStatus;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlanTest {
    static final Scenario.SlownessKinds KINDS = new Scenario.SlownessKinds(
            new Slowness.CpuQuota(5, Duration.ofSeconds(1)), new Slowness.DiskThrottle(524_288),
            new Slowness.NetworkDelay(Duration.ofMillis(400)), new Slowness.Pauses(Duration.ofMillis(500), Duration.ofSeconds(1)));

    @Test
    void scenarioIdsRoundTrip() {
        for (String id : List.of("n3-healthy", "n3-cpu", "n3-disk", "n3-net", "n3-pause", "n3-stop", "n5-net-x2", "n5-cpu-x2")) {
            assertThat(Scenario.parse(id, KINDS).id()).isEqualTo(id);
        }
        Scenario s = Scenario.parse("n5-cpu-x2", KINDS);
        assertThat(s.clusterSize()).isEqualTo(5);
        assertThat(s.slowFollowers()).isEqualTo(2);
        assertThat(s.slowness()).isEqualTo(KINDS.cpu());
        assertThat(s.toleratedByDesign()).isTrue();
        assertThat(s.describe()).isEqualTo("5 nodes, 2 slow followers: CPU quota 5% of one core per 1000 ms");
        assertThat(Scenario.parse("n3-none", KINDS).isHealthy()).isTrue();
        assertThat(Scenario.parse("n3-net-x2", KINDS).toleratedByDesign()).isFalse();
        assertThat(Scenario.parse("n3-disk", KINDS).describe()).isEqualTo("3 nodes, 1 slow follower: disk 512 KiB/s");
    }

    @Test
    void badScenarioIdsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> Scenario.parse("3-cpu", KINDS)).hasMessageContaining("n<size>-<kind>");
        assertThatThrownBy(() -> Scenario.parse("n3-slow", KINDS)).hasMessageContaining("unknown slowness");
        assertThatThrownBy(() -> Scenario.parse("n3-cpu-x3", KINDS)).hasMessageContaining("1..2 followers");
        assertThatThrownBy(() -> Scenario.parse("n3-healthy-x1", KINDS)).hasMessageContaining("no slow followers");
        assertThatThrownBy(() -> Scenario.parse("n0-cpu", KINDS)).hasMessageContaining("cluster size");
    }

    @Test
    void slownessParametersAreChecked() {
        assertThatThrownBy(() -> new Slowness.Pauses(Duration.ofSeconds(1), Duration.ofSeconds(1))).hasMessageContaining("longer");
        assertThatThrownBy(() -> new Slowness.NetworkDelay(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Slowness.DiskThrottle(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Slowness.CpuQuota(0, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        assertThat(new Slowness.CpuQuota(2.5, Duration.ofMillis(100)).describe()).isEqualTo("CPU quota 2.5% of one core per 100 ms");
        assertThat(new Slowness.DiskThrottle(1000).describe()).isEqualTo("disk 1000 B/s");
    }

    @Test
    void thePlanPutsEachSizesHealthyReferenceFirstAndDropsDuplicates() {
        List<Scenario> plan = FailSlowBenchmark.plan(List.of("n3-cpu", "n5-net-x2", "n3-net", "n3-cpu", "n3-healthy", ""), KINDS);
        assertThat(plan).extracting(Scenario::id).containsExactly("n3-healthy", "n3-cpu", "n3-net", "n5-healthy", "n5-net-x2");
    }

    @Test
    void everyFaultWindowHasHealthyWindowsOnBothSides() {
        List<Scenario> plan = FailSlowBenchmark.plan(List.of("n3-cpu", "n3-net"), KINDS);
        assertThat(FailSlowRunner.windows(plan)).extracting(Scenario::id)
                .containsExactly("n3-healthy", "n3-cpu", "n3-healthy", "n3-net", "n3-healthy");
        assertThat(FailSlowRunner.windows(List.of(Scenario.healthy(3)))).extracting(Scenario::id).containsExactly("n3-healthy");
    }

    @Test
    void slowFollowersAreNeverTheLeader() {
        assertThat(FailSlowRunner.chooseFollowers(List.of("n1", "n2", "n3"), "n1", 1)).containsExactly("n3");
        assertThat(FailSlowRunner.chooseFollowers(List.of("n1", "n2", "n3"), "n3", 1)).containsExactly("n2");
        assertThat(FailSlowRunner.chooseFollowers(List.of("n1", "n2", "n3", "n4", "n5"), "n4", 2)).containsExactly("n5", "n3");
        assertThat(FailSlowRunner.chooseFollowers(List.of("n1", "n2", "n3"), "n2", 0)).isEmpty();
        assertThatThrownBy(() -> FailSlowRunner.chooseFollowers(List.of("n1", "n2"), "n1", 2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void cpuUseIsTheDifferenceOfTwoReadings() {
        Map<String, Double> start = new LinkedHashMap<>(Map.of("leader", 10.0, "client", 1.0));
        Map<String, Double> end = Map.of("leader", 14.0, "client", 1.5);
        assertThat(FailSlowRunner.cpuPercent(start, end, 10)).containsEntry("leader", 40.0).containsEntry("client", 5.0);
        assertThat(FailSlowRunner.cpuText(new LinkedHashMap<>(Map.of("leader", 40.0)))).isEqualTo("leader 40%");
    }

    @Test
    void theLeaderIsTheOneEveryMemberAgreesOn() {
        Map<String, NodeStatus> s = new LinkedHashMap<>();
        s.put("n1", status("n1", "LEADER", "n1", 3));
        s.put("n2", status("n2", "FOLLOWER", "n1", 3));
        s.put("n3", status("n3", "FOLLOWER", "n1", 3));
        assertThat(ServerCluster.agreedLeader(s)).isEqualTo(new ServerCluster.Leadership("n1", 3));
        s.put("n3", status("n3", "FOLLOWER", null, 3));
        assertThat(ServerCluster.agreedLeader(s)).isNull();
        s.put("n3", status("n3", "FOLLOWER", "n1", 2));
        assertThat(ServerCluster.agreedLeader(s)).isNull();
        s.put("n3", status("n3", "LEADER", "n3", 3));
        assertThat(ServerCluster.agreedLeader(s)).isNull();
    }

    @Test
    void withCopilotTheLeaderIsThePilotTheOthersName() {
        Map<String, NodeStatus> s = new LinkedHashMap<>();
        s.put("n1", status("n1", "LEADER", "n1", 1));
        s.put("n2", status("n2", "LEADER", "n2", 1));
        s.put("n3", status("n3", "FOLLOWER", "n1", 1));
        s.put("n4", status("n4", "FOLLOWER", "n1", 1));
        assertThat(ServerCluster.leadersOf("copilot")).isEqualTo(2);
        assertThat(ServerCluster.leadersOf("raft")).isEqualTo(1);
        assertThat(ServerCluster.agreedLeader(s, 2)).isEqualTo(new ServerCluster.Leadership("n1", 1));
        assertThat(ServerCluster.agreedLeader(s, 1)).isNull();
        s.put("n4", status("n4", "FOLLOWER", "n2", 1));
        assertThat(ServerCluster.agreedLeader(s, 2)).isNull();
        s.put("n4", status("n4", "FOLLOWER", "n1", 0));
        assertThat(ServerCluster.agreedLeader(s, 2)).isNull();
        s.put("n4", status("n4", "LEADER", "n4", 1));
        assertThat(ServerCluster.agreedLeader(s, 2)).isNull();
    }

    @Test
    void keysAreFixedWidthDecimal() {
        assertThat(new String(ClosedLoopLoad.key(0))).isEqualTo("key00000000");
        assertThat(new String(ClosedLoopLoad.key(1234))).isEqualTo("key00001234");
        assertThat(new String(ClosedLoopLoad.key(99_999_999))).isEqualTo("key99999999");
    }

    @Test
    void warmUpEndsWhenTheJitIsQuietAndThroughputStopsRising() {
        Warmup w = new Warmup(5, 60, 3, 0.05, 5);
        List<Double> quiet = List.of(1.0, 1.0, 1.0, 1.0, 1.0, 1.0);
        assertThat(w.done(List.of(1L, 2L, 3L, 4L), quiet.subList(0, 4))).isFalse(); // shorter than the minimum
        assertThat(w.done(List.of(100L, 200L, 300L, 400L, 500L, 600L), quiet)).isFalse(); // still rising
        assertThat(w.done(List.of(600L, 600L, 600L, 600L, 600L, 610L), quiet)).isTrue();
        assertThat(w.done(List.of(1000L, 1000L, 1000L, 900L, 900L, 900L), quiet)).isTrue(); // falling is not rising
        // Compilers busy: 0.3 s of CPU over the last 3 s is 10 % of a core.
        assertThat(w.done(List.of(600L, 600L, 600L, 600L, 600L, 600L), List.of(1.0, 1.0, 1.0, 1.1, 1.2, 1.3))).isFalse();
        assertThat(w.done(List.of(600L, 600L, 600L, 600L, 600L, 600L), List.of(1.0, 1.0, 1.0, 1.05, 1.05, 1.05))).isTrue();
        List<Long> rising = java.util.stream.LongStream.range(0, 60).boxed().toList();
        assertThat(w.done(rising, java.util.stream.IntStream.range(0, 60).mapToObj(i -> (double) i).toList())).isTrue(); // the maximum
        assertThatThrownBy(() -> w.done(List.of(1L), List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Warmup(10, 5, 3, 0, 5)).isInstanceOf(IllegalArgumentException.class);
    }

    private static NodeStatus status(String node, String role, String leader, long term) {
        return new NodeStatus(node, "failslow", "raft", role, leader, null, term, 0, 0, List.of(), List.of(), Map.of(), 1, 0, true, List.of());
    }
}
