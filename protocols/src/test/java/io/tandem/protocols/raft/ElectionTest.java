package io.tandem.protocols.raft;

import static io.tandem.protocols.raft.RaftCluster.MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.engine.Rejection;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Elections (§5.2), pre-vote (thesis §9.6), check-quorum (thesis §6.2) and leader stickiness (thesis §4.2.3). */
class ElectionTest {
    @Test
    void exactlyOneLeaderIsElectedAndOthersFollowIt() {
        for (long seed = 1; seed <= 20; seed++) {
            RaftCluster c = new RaftCluster(5, RaftCluster.fastConfig().build(), seed);
            RaftEngine leader = c.awaitLeader();
            c.runFor(500 * MS);
            for (RaftCluster.Node n : c.nodes.values()) {
                assertThat(n.engine.currentTerm()).isEqualTo(leader.currentTerm());
                assertThat(n.engine.leaderId()).isEqualTo(leader.self());
            }
            assertThat(c.violations).isEmpty();
        }
    }

    @Test
    void aSingleNodeGroupElectsItself() {
        RaftCluster c = new RaftCluster(1, RaftCluster.fastConfig().build(), 3);
        RaftEngine leader = c.awaitLeader();
        assertThat(leader.self()).isEqualTo(NodeId.of("n1"));
        assertThat(c.writeCommitted().ok()).isTrue();
    }

    @Test
    void aPartitionedFollowerDoesNotRaiseTheTermOrDisturbTheLeaderWhenItReturns() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().build(), 4);
        RaftEngine leader = c.awaitLeader();
        long term = leader.currentTerm();
        String follower = c.ids.stream().filter(id -> !id.equals(leader.self())).findFirst().orElseThrow().value();
        c.isolate(follower);
        c.runFor(3_000 * MS); // ten election timeouts: it keeps trying pre-votes
        assertThat(c.engine(follower).currentTerm()).as("pre-vote keeps the term").isEqualTo(term);
        c.heal();
        c.runFor(1_000 * MS);
        assertThat(c.leader().orElseThrow().self()).isEqualTo(leader.self());
        assertThat(leader.currentTerm()).isEqualTo(term);
        assertThat(c.engine(follower).leaderId()).isEqualTo(leader.self());
    }

    @Test
    void withoutPreVoteTheReturningFollowerForcesANewTerm() {
        // The control experiment for the test above: the same run without pre-vote disrupts the group.
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().preVote(false).build(), 4);
        RaftEngine leader = c.awaitLeader();
        long term = leader.currentTerm();
        String follower = c.ids.stream().filter(id -> !id.equals(leader.self())).findFirst().orElseThrow().value();
        c.isolate(follower);
        c.runFor(3_000 * MS);
        assertThat(c.engine(follower).currentTerm()).isGreaterThan(term + 3);
    }

    @Test
    void anIsolatedLeaderStepsDownWithinTwoElectionTimeoutsAndRejectsClients() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().build(), 5);
        RaftEngine leader = c.awaitLeader();
        String old = leader.self().value();
        c.isolate(old);
        long isolatedAt = c.now();
        assertThat(c.runUntil(() -> leader.role() != RaftEngine.Role.LEADER, 2 * 300 * MS)).isTrue();
        assertThat(c.now() - isolatedAt).isLessThanOrEqualTo(2 * 300 * MS);
        var write = c.write(old);
        c.await(write, 100 * MS);
        assertThat(write.rejection).isInstanceOf(Rejection.Redirect.class);
        assertThat(c.runUntil(() -> c.leader().isPresent() && !c.leader().get().self().value().equals(old), 2_000 * MS)).isTrue();
        assertThat(c.violations).isEmpty();
    }

    @Test
    void followersIgnoreVoteRequestsWhileTheyHearFromALiveLeader() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().preVote(false).build(), 6);
        RaftEngine leader = c.awaitLeader();
        long term = leader.currentTerm();
        // The candidate cannot hear the leader, but the leader still reaches the other follower.
        List<NodeId> followers = c.ids.stream().filter(id -> !id.equals(leader.self())).toList();
        c.blockOneWay(leader.self().value(), followers.get(0).value());
        c.blockOneWay(followers.get(0).value(), leader.self().value());
        c.runFor(2_000 * MS);
        assertThat(c.leader().orElseThrow().self()).as("the live leader keeps its followers").isEqualTo(leader.self());
        assertThat(c.engine(followers.get(1).value()).leaderId()).isEqualTo(leader.self());
        assertThat(c.engine(followers.get(0).value()).currentTerm()).isGreaterThan(term);
        assertThat(c.violations).isEmpty();
    }

    @Test
    void aVoteIsDurableBeforeItIsSent() {
        for (long seed = 1; seed <= 20; seed++) {
            RaftCluster c = new RaftCluster(5, RaftCluster.fastConfig().build(), seed);
            List<String> early = new ArrayList<>();
            c.observer = durableVoteCheck(early);
            c.awaitLeader();
            c.crash(c.leader().orElseThrow().self().value());
            c.awaitLeader();
            assertThat(early).isEmpty();
        }
    }

    @Test
    void theUnpersistedVoteVariantIsCaught() {
        List<String> early = new ArrayList<>();
        for (long seed = 1; seed <= 5 && early.isEmpty(); seed++) {
            RaftCluster c = new RaftCluster(5, RaftCluster.fastConfig().build(), seed, BrokenRaft.Bug.VOTE_BEFORE_PERSIST);
            c.observer = durableVoteCheck(early);
            c.awaitLeader();
        }
        assertThat(early).isNotEmpty();
    }

    /** Flags a granted vote whose term and vote are not yet in the sender's durable meta store. */
    static RaftCluster.Observer durableVoteCheck(List<String> problems) {
        return (from, to, message) -> {
            if (message instanceof RaftMessage.VoteResponse v && v.granted()) {
                byte[] durable = from.durableMeta.get(RaftEngine.TERM_KEY);
                var buffer = durable == null ? null : java.nio.ByteBuffer.wrap(durable);
                long term = buffer == null ? -1 : buffer.getLong();
                String voted = null;
                if (buffer != null) {
                    byte[] name = new byte[buffer.getShort()];
                    buffer.get(name);
                    voted = new String(name);
                }
                if (term != v.term() || !to.value().equals(voted)) problems.add(from.id + " granted term " + v.term() + " to " + to + " but stored term " + term + " vote " + voted);
            }
        };
    }

    @Test
    void aMinorityCannotElectALeader() {
        RaftCluster c = new RaftCluster(5, RaftCluster.fastConfig().build(), 8);
        RaftEngine leader = c.awaitLeader();
        c.partition(Set.of(NodeId.of("n1"), NodeId.of("n2")));
        c.runFor(3_000 * MS);
        for (String minority : List.of("n1", "n2")) {
            assertThat(c.engine(minority).role()).isNotEqualTo(RaftEngine.Role.LEADER);
        }
        assertThat(c.leader().orElseThrow().self().value()).isIn("n3", "n4", "n5");
        assertThat(c.violations).isEmpty();
        assertThat(leader).isNotNull();
    }
}
