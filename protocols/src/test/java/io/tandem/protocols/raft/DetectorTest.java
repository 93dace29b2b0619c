package io.tandem.protocols.raft;

import static io.tandem.protocols.raft.RaftCluster.MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.protocols.failslow.SlownessDetector;
import io.tandem.protocols.testing.TestMeters;
import org.junit.jupiter.api.Test;

/**
 * The slowness detector (DESIGN §3 rule 5): silent in a healthy group, only the expected
 * same-quorum report with a slow minority, and a warning for each deliberately broken engine.
 */
class DetectorTest {
    /** Writes at a steady rate through whoever leads. */
    private static void load(RaftCluster c, long nanos) {
        long end = c.now() + nanos;
        while (c.now() < end) {
            c.leader().ifPresent(l -> c.write(l.self()));
            c.runFor(2 * MS);
        }
    }

    private static NodeId aFollower(RaftCluster c) {
        RaftEngine leader = c.leader().orElseThrow();
        return c.ids.stream().filter(id -> !id.equals(leader.self())).findFirst().orElseThrow();
    }

    @Test
    void aHealthyGroupRaisesNoWarning() {
        for (int n : new int[] {3, 5}) {
            for (long seed = 1; seed <= 3; seed++) {
                RaftCluster c = new RaftCluster(n, RaftCluster.fastConfig().build(), seed);
                c.awaitLeader();
                load(c, 10_000 * MS);
                assertThat(c.totalWarnings()).as("%d nodes, seed %d: %s", n, seed, c.nodes.values().stream().map(x -> x.meters.warnings).toList()).isZero();
                assertThat(c.checkHistory()).isEmpty();
                RaftCluster.Node leader = c.node(c.leader().orElseThrow().self().value());
                assertThat(leader.meters.value("tandem.raft.messages.sent", "cause", "client")).isPositive();
                assertThat(leader.meters.value("tandem.raft.commit.overdue")).isZero();
            }
        }
    }

    @Test
    void aSlowFollowerIsReportedOnlyAsTheExpectedSameQuorumDependency() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().build(), 51);
        c.awaitLeader();
        NodeId slow = aFollower(c);
        c.slowNode.put(slow, 100 * MS);
        load(c, 10_000 * MS);
        assertThat(c.warnings(SlownessDetector.SAME_QUORUM)).isPositive();
        assertThat(c.totalWarnings()).isEqualTo(c.warnings(SlownessDetector.SAME_QUORUM));
        assertThat(c.nodes.values().stream().flatMap(x -> x.meters.warnings.stream()).map(TestMeters.Warning::peer)).containsOnly(slow);
        RaftCluster.Node leader = c.node(c.leader().orElseThrow().self().value());
        assertThat(leader.meters.value("tandem.raft.peer.lag", "peer", slow.value())).isPositive();
    }

    @Test
    void waitingForEveryFollowerIsReportedAsASinglePeerWait() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().build(), 52, BrokenRaft.Bug.WAIT_FOR_ALL_FOLLOWERS);
        c.awaitLeader();
        NodeId slow = aFollower(c);
        c.slowNode.put(slow, 50 * MS);
        load(c, 3_000 * MS);
        assertThat(c.warnings(SlownessDetector.SINGLE_PEER_WAIT)).isPositive();
        RaftCluster.Node leader = c.node(c.leader().orElseThrow().self().value());
        assertThat(leader.meters.value("tandem.raft.peer.single_peer_waits", "peer", slow.value())).isPositive();
    }

    @Test
    void anUnboundedFollowerQueueIsReportedAsAnOutboxOverItsCap() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().maxInflight(8, 1 << 20).build(), 53,
                BrokenRaft.Bug.UNBOUNDED_FOLLOWER_QUEUE);
        RaftEngine leader = c.awaitLeader();
        NodeId slow = aFollower(c);
        c.slowNode.put(slow, 100 * MS);
        load(c, 3_000 * MS);
        assertThat(c.warnings(SlownessDetector.OUTBOX_OVER_CAP)).isPositive();
        assertThat(leader.inflightMessages().get(slow)).isGreaterThan(8);
    }

    @Test
    void theCorrectEngineUnderTheSameFaultsKeepsItsQueuesBounded() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().maxInflight(8, 1 << 20).build(), 53);
        RaftEngine leader = c.awaitLeader();
        NodeId slow = aFollower(c);
        c.slowNode.put(slow, 100 * MS);
        load(c, 3_000 * MS);
        assertThat(c.warnings(SlownessDetector.OUTBOX_OVER_CAP)).isZero();
        assertThat(c.warnings(SlownessDetector.SINGLE_PEER_WAIT)).isZero();
        assertThat(c.warnings(SlownessDetector.RESEND_STORM)).isZero();
        assertThat(leader.inflightMessages().get(slow)).isLessThanOrEqualTo(8);
    }
}
