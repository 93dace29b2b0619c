package io.tandem.protocols.raft;

import static io.tandem.protocols.raft.RaftCluster.MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link RaftEngine#status()} in the deterministic harness: roles, leader, epoch, configuration and lag. */
class RaftStatusTest {
    private static final NodeId N1 = NodeId.of("n1"), N2 = NodeId.of("n2"), N3 = NodeId.of("n3");

    @Test
    void theLeaderAndItsFollowersAgreeOnLeaderAndEpochAndOnlyTheLeaderReportsLag() {
        RaftCluster cluster = new RaftCluster(3, RaftCluster.fastConfig().build(), 11);
        RaftEngine leader = cluster.awaitLeader();
        for (int i = 0; i < 5; i++) cluster.writeCommitted();
        cluster.runFor(200 * MS);

        EngineStatus ls = leader.status();
        assertThat(ls.role()).isEqualTo(EngineStatus.Role.LEADER);
        assertThat(ls.leader()).isEqualTo(leader.self());
        assertThat(ls.epoch()).isEqualTo(leader.currentTerm());
        assertThat(ls.voters()).containsExactly(N1, N2, N3);
        assertThat(ls.learners()).isEmpty();
        assertThat(ls.commitIndex()).isEqualTo(leader.commitIndex()).isGreaterThanOrEqualTo(6); // its no-op and five writes
        assertThat(ls.lag()).containsOnlyKeys(List.of(N1, N2, N3).stream().filter(n -> !n.equals(leader.self())).toList())
                .allSatisfy((peer, behind) -> assertThat(behind).isZero());

        for (NodeId id : List.of(N1, N2, N3)) {
            if (id.equals(leader.self())) continue;
            EngineStatus fs = cluster.engine(id.value()).status();
            assertThat(fs.role()).isEqualTo(EngineStatus.Role.FOLLOWER);
            assertThat(fs.leader()).isEqualTo(leader.self());
            assertThat(fs.epoch()).isEqualTo(ls.epoch());
            assertThat(fs.lag()).isEmpty();
        }
    }

    @Test
    void anIsolatedFollowerShowsAsLaggingByTheEntriesItMissed() {
        RaftCluster cluster = new RaftCluster(3, RaftCluster.fastConfig().build(), 12);
        RaftEngine leader = cluster.awaitLeader();
        NodeId behind = List.of(N1, N2, N3).stream().filter(n -> !n.equals(leader.self())).findFirst().orElseThrow();
        cluster.isolate(behind.value());
        for (int i = 0; i < 4; i++) cluster.writeCommitted();

        Map<NodeId, Long> lag = cluster.leader().orElseThrow().status().lag();
        assertThat(lag.get(behind)).isGreaterThanOrEqualTo(4);
        assertThat(lag.values().stream().filter(l -> l == 0)).hasSize(1); // the other follower keeps up

        cluster.heal();
        assertThat(cluster.runUntil(() -> cluster.leader().orElseThrow().status().lag().get(behind) == 0, 5_000 * MS)).isTrue();
    }
}
