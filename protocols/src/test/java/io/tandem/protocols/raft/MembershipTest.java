package io.tandem.protocols.raft;

import static io.tandem.protocols.raft.RaftCluster.MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.engine.Rejection;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Single-server membership changes and learners (thesis §4.1, §4.2.1), leadership transfer (thesis §3.10). */
class MembershipTest {
    private static final NodeId N4 = NodeId.of("n4"), N5 = NodeId.of("n5");

    private static RaftCluster fiveWithThreeVoters(long seed) {
        RaftConfig config = RaftCluster.fastConfig()
                .initialVoters(Set.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3")))
                .snapshotThreshold(40).logRetentionEntries(5).build();
        return new RaftCluster(5, config, seed);
    }

    private static RaftCluster.Op admin(RaftCluster c, byte[] command) {
        RaftEngine leader = c.awaitLeader();
        RaftCluster.Op op = c.admin(leader.self().value(), command);
        c.await(op, 2_000 * MS);
        return op;
    }

    @Test
    void outsidersWaitAndALearnerReceivesTheLogWithoutVotingThenIsPromoted() {
        RaftCluster c = fiveWithThreeVoters(41);
        RaftEngine leader = c.awaitLeader();
        for (int i = 0; i < 100; i++) c.writeCommitted();
        c.runFor(1_000 * MS);
        assertThat(c.engine("n4").currentTerm()).as("an outsider never campaigns").isZero();
        assertThat(c.engine("n4").lastIndex()).isZero();

        assertThat(admin(c, RaftAdmin.addLearner(N4)).ok()).isTrue();
        assertThat(c.runUntil(() -> leader.matchIndexes().get(N4) == leader.lastIndex(), 2_000 * MS)).as("the learner catches up (from a snapshot)").isTrue();
        assertThat(c.engine("n4").configuration().isLearner(N4)).isTrue();
        assertThat(leader.configuration().quorum()).isEqualTo(2);

        RaftCluster.Op promote = admin(c, RaftAdmin.promote(N4));
        assertThat(promote.ok()).as(promote + "\n" + c.describe()).isTrue();
        assertThat(leader.configuration().voters()).contains(N4);
        assertThat(leader.configuration().quorum()).isEqualTo(3);
        c.crash("n4");
        c.crash(c.ids.stream().filter(id -> !id.equals(leader.self()) && !id.equals(N4) && !id.equals(N5)).findFirst().orElseThrow().value());
        RaftCluster.Op stuck = c.write(leader.self());
        c.runFor(300 * MS);
        assertThat(stuck.ok()).as("two of four voters are not a quorum").isFalse();
        c.restart("n4");
        assertThat(c.await(stuck, 2_000 * MS) && stuck.ok()).isTrue();
        assertThat(c.violations).isEmpty();
        assertThat(c.checkHistory()).isEmpty();
    }

    @Test
    void oneChangeAtATimeAndOnlyCaughtUpLearnersArePromoted() {
        RaftCluster c = fiveWithThreeVoters(42);
        RaftEngine leader = c.awaitLeader();
        c.isolate("n5");
        RaftCluster.Op first = c.admin(leader.self().value(), RaftAdmin.addLearner(N4));
        RaftCluster.Op second = c.admin(leader.self().value(), RaftAdmin.addLearner(N5));
        c.await(first, 1_000 * MS);
        c.await(second, 1_000 * MS);
        assertThat(first.ok() ^ second.ok()).as("exactly one of two concurrent changes is accepted").isTrue();
        RaftCluster.Op rejected = first.ok() ? second : first;
        assertThat(rejected.rejection).isInstanceOf(Rejection.Unavailable.class);
        if (!c.engine("n1").configuration().contains(N5) && !leader.configuration().contains(N5)) {
            assertThat(admin(c, RaftAdmin.addLearner(N5)).ok()).isTrue();
        }
        for (int i = 0; i < 20; i++) c.writeCommitted();
        RaftCluster.Op promote = admin(c, RaftAdmin.promote(N5));
        assertThat(promote.rejection).as("n5 is cut off and behind").isInstanceOf(Rejection.Unavailable.class);
        assertThat(admin(c, RaftAdmin.promote(NodeId.of("n1"))).rejection).isInstanceOf(Rejection.Unavailable.class);
    }

    @Test
    void aLeaderThatRemovesItselfStepsDownAndTheRestCarryOn() {
        RaftCluster c = fiveWithThreeVoters(43);
        RaftEngine leader = c.awaitLeader();
        NodeId old = leader.self();
        for (int i = 0; i < 5; i++) c.writeCommitted();
        assertThat(admin(c, RaftAdmin.remove(old)).ok()).isTrue();
        assertThat(c.runUntil(() -> c.leader().isPresent() && !c.leader().get().self().equals(old), 1_000 * MS)).isTrue();
        RaftEngine fresh = c.awaitLeader();
        assertThat(fresh.configuration().voters()).doesNotContain(old).hasSize(2);
        c.writeCommitted();
        long term = fresh.currentTerm();
        c.runFor(3_000 * MS);
        assertThat(c.leader().orElseThrow().currentTerm()).as("the removed node does not disturb the group").isEqualTo(term);
        assertThat(c.engine(old.value()).role()).isEqualTo(RaftEngine.Role.FOLLOWER);
        assertThat(c.violations).isEmpty();
        assertThat(c.checkHistory()).isEmpty();
    }

    @Test
    void leadershipTransferHandsOverToACaughtUpVoterAndAnswersWhenItsFirstEntryCommits() {
        RaftCluster c = fiveWithThreeVoters(44);
        RaftEngine leader = c.awaitLeader();
        for (int i = 0; i < 10; i++) c.writeCommitted();
        NodeId target = c.ids.stream().filter(id -> !id.equals(leader.self()) && !id.equals(N4) && !id.equals(N5)).findFirst().orElseThrow();
        long term = leader.currentTerm();
        RaftCluster.Op transfer = admin(c, RaftAdmin.transferLeadership(target));
        assertThat(transfer.ok()).isTrue();
        RaftEngine fresh = c.leader().orElseThrow();
        assertThat(fresh.self()).isEqualTo(target);
        assertThat(fresh.currentTerm()).isEqualTo(term + 1);
        assertThat(transfer.completedAt - transfer.invokedAt).as("no election timeout was waited for").isLessThan(100 * MS);
        assertThat(admin(c, RaftAdmin.transferLeadership(N4)).rejection).as("n4 is not a voter").isInstanceOf(Rejection.Unavailable.class);
        c.writeCommitted();
        assertThat(c.violations).isEmpty();
        assertThat(c.checkHistory()).isEmpty();
    }
}
