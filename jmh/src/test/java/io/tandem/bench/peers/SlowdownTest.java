package io.tandem.bench.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class SlowdownTest {
    @Test
    void threeReplicasGetFollowerThenLeaderBetweenHealthyWindows() {
        List<Slowdown.Phase> p = Slowdown.phases(10, 5, 8, 3);
        assertThat(p).extracting(Slowdown.Phase::name).containsExactly("warmup", "healthy", "follower-slow", "healthy", "leader-slow", "healthy");
        assertThat(p).extracting(Slowdown.Phase::target).containsExactly(Slowdown.Target.none, Slowdown.Target.none, Slowdown.Target.follower,
                Slowdown.Target.none, Slowdown.Target.leader, Slowdown.Target.none);
        for (int i = 1; i < p.size(); i++) assertThat(p.get(i).from()).isEqualTo(p.get(i - 1).to());
        assertThat(p.getLast().to()).isEqualTo(10 + 5 + 8 + 5 + 8 + 5);
        assertThat(Slowdown.neighbours(p, 2)).containsExactly(p.get(1), p.get(3));
        assertThat(Slowdown.neighbours(p, 4)).containsExactly(p.get(3), p.get(5));
    }

    @Test
    void aSingleReplicaHasNoFollowerPhaseAndNoWarmupWhenZero() {
        List<Slowdown.Phase> p = Slowdown.phases(0, 3, 4, 1);
        assertThat(p).extracting(Slowdown.Phase::name).containsExactly("healthy", "leader-slow", "healthy");
        assertThat(p.get(1).from()).isEqualTo(3);
        assertThat(p.get(1).seconds()).isEqualTo(4);
        assertThatThrownBy(() -> Slowdown.phases(0, 0, 4, 3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theTargetsChooseTheSlowWindows() {
        List<Slowdown.Phase> follower = Slowdown.phases(10, 5, 10, 3, java.util.EnumSet.of(Slowdown.Target.follower));
        assertThat(follower).extracting(Slowdown.Phase::name).containsExactly("warmup", "healthy", "follower-slow", "healthy");
        assertThat(Slowdown.slowsAnything(follower)).isTrue();
        List<Slowdown.Phase> leader = Slowdown.phases(0, 5, 10, 3, java.util.EnumSet.of(Slowdown.Target.leader));
        assertThat(leader).extracting(Slowdown.Phase::name).containsExactly("healthy", "leader-slow", "healthy");
        // a single replica has no follower: nothing is left to slow
        assertThat(Slowdown.slowsAnything(Slowdown.phases(10, 5, 10, 1, java.util.EnumSet.of(Slowdown.Target.follower)))).isFalse();
    }

    @Test
    void transportDelayAppliesOnlyToReplicatedTandemSystems() {
        assertThat(Slowdown.notApplicable(Slowdown.Kind.net, SystemCatalog.spec("tandem-raft"))).isNull();
        assertThat(Slowdown.notApplicable(Slowdown.Kind.net, SystemCatalog.spec("ratis"))).contains("only Tandem");
        assertThat(Slowdown.notApplicable(Slowdown.Kind.net, SystemCatalog.spec("tandem-unreplicated"))).contains("single replica");
        for (String s : SystemCatalog.DEFAULT_SYSTEMS) {
            assertThat(Slowdown.notApplicable(Slowdown.Kind.cpu, SystemCatalog.spec(s))).isNull();
            assertThat(Slowdown.notApplicable(Slowdown.Kind.pause, SystemCatalog.spec(s))).isNull();
        }
    }

    @Test
    void leaderAndFollowerComeFromTheRoleFiles() {
        assertThat(Leadership.singleLeader(List.of("FOLLOWER", "LEADER", "FOLLOWER"))).isEqualTo(1);
        assertThat(Leadership.singleLeader(List.of("LEADER", "LEADER", "FOLLOWER"))).isEqualTo(-1);
        assertThat(Leadership.singleLeader(List.of("?", "OTHER", "FOLLOWER"))).isEqualTo(-1);
        assertThat(Leadership.follower(List.of("FOLLOWER", "LEADER", "FOLLOWER"), 1)).isEqualTo(2);
        assertThat(Leadership.follower(List.of("FOLLOWER", "OTHER", "LEADER"), 2)).isEqualTo(0);
        assertThat(Leadership.follower(List.of("OTHER", "OTHER", "LEADER"), 2)).isEqualTo(1);
        assertThat(Leadership.follower(List.of("LEADER"), 0)).isEqualTo(-1);
    }

    @Test
    void leaderChangesAreCountedPerWindow() {
        Leadership l = new Leadership();
        l.observe(1, -1);
        l.observe(1, 0);
        l.observe(2, 0);
        l.observe(3, -1); // an election in progress is not a change
        l.observe(4, 2);
        l.observe(9, 1);
        assertThat(l.first()).isEqualTo(0);
        assertThat(l.current()).isEqualTo(1);
        assertThat(l.changes()).containsExactly(new Leadership.Change(4, 0, 2), new Leadership.Change(9, 2, 1));
        assertThat(l.changesIn(0, 3)).isZero();
        assertThat(l.changesIn(3, 4)).isEqualTo(1);
        assertThat(l.changesIn(4, 10)).isEqualTo(1);
    }

    @Test
    void slowPhasesAreComparedWithTheirHealthyNeighbours() {
        List<Slowdown.Phase> phases = Slowdown.phases(1, 2, 2, 3); // warmup 0-1, healthy 1-3, follower 3-5, healthy 5-7, leader 7-9, healthy 9-11
        long[][] lat = new long[11][];
        for (int i = 0; i < 11; i++) {
            int second = i + 1;
            boolean follower = second > 3 && second <= 5, leader = second > 7 && second <= 9;
            int ops = follower ? 50 : leader ? 25 : 100;
            lat[i] = new long[ops];
            java.util.Arrays.fill(lat[i], leader ? 4000 : 1000);
        }
        List<Timeline.Second> rows = Timeline.parse(TimelineTest.timeline(lat, new long[11]));
        int[] targets = {-1, -1, 2, -1, 0, -1};
        String[] notes = new String[6];
        List<Results.Phase> measured = PeerRunner.measurePhases(phases, rows, targets, notes, new Leadership());
        assertThat(measured.get(2).throughputPercent()).isEqualTo(50.0);
        assertThat(measured.get(2).p99Percent()).isEqualTo(100.0);
        assertThat(measured.get(4).throughputPercent()).isEqualTo(25.0);
        assertThat(measured.get(4).p99Percent()).isBetween(390.0, 410.0); // histogram precision of 3 digits
        assertThat(measured.get(1).throughputPercent()).isNaN();
        // a slow window whose fault could not be applied is not compared
        targets[4] = -1;
        assertThat(PeerRunner.measurePhases(phases, rows, targets, notes, new Leadership()).get(4).throughputPercent()).isNaN();
    }
}
