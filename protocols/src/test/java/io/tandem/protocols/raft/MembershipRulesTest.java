package io.tandem.protocols.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.AdminRequest;
import io.tandem.engine.NodeId;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure rules of membership changes (thesis §4.1, §4.2.1) and of the hand-over of a removed leader. */
class MembershipRulesTest {
    private static final NodeId N1 = NodeId.of("n1"), N2 = NodeId.of("n2"), N3 = NodeId.of("n3"), N4 = NodeId.of("n4");
    private static final Configuration THREE = Configuration.ofVoters(List.of(N1, N2, N3));

    @Test
    void oneChangeAtATimeOnlyAfterTheLeaderCommittedAnEntryOfItsTermAndNotDuringATransfer() {
        assertThat(Membership.refusal(9, 10, 3, false)).hasValue("the leader has not yet committed an entry of its term");
        assertThat(Membership.refusal(10, 10, 11, false)).hasValue("another membership change is not yet committed");
        assertThat(Membership.refusal(10, 10, 3, true)).hasValue("a leadership transfer is in progress");
        assertThat(Membership.refusal(10, 10, 10, false)).isEmpty();
    }

    @Test
    void aLearnerIsAddedOnlyIfNotAlreadyAMember() {
        assertThat(Membership.propose(THREE, new AdminRequest.AddLearner(N4), -1, 5).next())
                .isEqualTo(new Configuration(List.of(N1, N2, N3), List.of(N4)));
        assertThat(Membership.propose(THREE, new AdminRequest.AddLearner(N2), -1, 5).problem()).isEqualTo("n2 is already a member: voters[n1, n2, n3]");
    }

    @Test
    void aLearnerIsPromotedOnlyOnceItCaughtUpWithTheCommitIndex() {
        Configuration withLearner = THREE.withLearner(N4);
        assertThat(Membership.propose(withLearner, new AdminRequest.Promote(N4), 4, 5).problem()).isEqualTo("n4 has not caught up (match 4 < commit 5)");
        assertThat(Membership.propose(withLearner, new AdminRequest.Promote(N4), -1, 5).problem())
                .as("a learner the leader does not track yet").isEqualTo("n4 has not caught up (match 0 < commit 5)");
        assertThat(Membership.propose(withLearner, new AdminRequest.Promote(N4), 5, 5).next()).isEqualTo(Configuration.ofVoters(List.of(N1, N2, N3, N4)));
        assertThat(Membership.propose(THREE, new AdminRequest.Promote(N3), 5, 5).problem()).isEqualTo("n3 is not a learner: voters[n1, n2, n3]");
    }

    @Test
    void aRemovalMayNotLeaveTheGroupWithoutVoters() {
        assertThat(Membership.propose(THREE, new AdminRequest.Remove(N2), -1, 5).next()).isEqualTo(Configuration.ofVoters(List.of(N1, N3)));
        assertThat(Membership.propose(THREE, new AdminRequest.Remove(N4), -1, 5).problem()).isEqualTo("n4 is not a member: voters[n1, n2, n3]");
        Configuration alone = new Configuration(List.of(N1), List.of(N2));
        assertThat(Membership.propose(alone, new AdminRequest.Remove(N1), -1, 5).problem()).isEqualTo("removing n1 would leave no voter");
        assertThat(Membership.propose(alone, new AdminRequest.Remove(N2), -1, 5).next()).isEqualTo(Configuration.ofVoters(List.of(N1)));
    }

    @Test
    void aTransferIsNotAMembershipChange() {
        assertThatThrownBy(() -> Membership.propose(THREE, new AdminRequest.TransferLeadership(N2), -1, 5)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRemovedLeaderHandsOverToAVoterWithItsWholeLog() {
        Peer behind = new Peer(N2, 1, 0);
        behind.match = 8;
        Peer learner = new Peer(N4, 1, 0);
        learner.match = 9;
        Peer complete = new Peer(N3, 1, 0);
        complete.match = 9;
        Configuration afterRemoval = new Configuration(List.of(N2, N3), List.of(N4));
        assertThat(Membership.handoverTarget(afterRemoval, List.of(behind, learner, complete), 9)).contains(complete);
        assertThat(Membership.handoverTarget(afterRemoval, List.of(behind, learner), 9)).as("no voter is complete: wait for an election").isEmpty();
    }
}
