package io.tandem.protocols.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.protocols.failslow.QuorumTracker;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommitTrackerTest {
    private static final NodeId L = NodeId.of("l"), F1 = NodeId.of("f1"), F2 = NodeId.of("f2"), F3 = NodeId.of("f3"), F4 = NodeId.of("f4");

    @Test
    void commitsWhenAMajorityIsDurableIncludingTheLeaderOnlyOnceItsWriteIsDurable() {
        CommitTracker t = new CommitTracker(List.of(L, F1, F2), 1_000, 16, QuorumTracker::majority);
        t.propose(5, 10);
        assertThat(t.ack(F1, 5, 11)).as("one durable follower is not a majority").isEmpty();
        var done = t.ack(L, 5, 12);
        assertThat(done).hasSize(1);
        assertThat(done.getFirst().target()).isEqualTo(5);
        assertThat(done.getFirst().responders()).containsExactly(F1, L);
        assertThat(done.getFirst().spareMembers()).isEqualTo(1);
        assertThat(t.committedIndex()).isEqualTo(5);
    }

    @Test
    void oneAcknowledgementCoversEveryEarlierRoundAndRoundsCompleteInOrder() {
        CommitTracker t = new CommitTracker(List.of(L, F1, F2, F3, F4), 1_000, 16, QuorumTracker::majority);
        t.propose(1, 1);
        t.propose(2, 2);
        t.propose(3, 3);
        t.ack(L, 3, 4);
        t.ack(F3, 2, 5);
        var done = t.ack(F1, 3, 6);
        assertThat(done).extracting(CommitTracker.Completed::target).containsExactly(1L, 2L);
        assertThat(t.committedIndex()).isEqualTo(2);
        assertThat(t.ack(F4, 3, 7)).extracting(CommitTracker.Completed::target).containsExactly(3L);
    }

    @Test
    void noSingleFollowerCanHoldUpTheCommit() {
        CommitTracker t = new CommitTracker(List.of(L, F1, F2), 1_000, 16, QuorumTracker::majority);
        for (long i = 1; i <= 100; i++) {
            t.propose(i, i);
            t.ack(L, i, i);
            t.ack(F1, i, i);
        }
        assertThat(t.committedIndex()).as("F2 never answered").isEqualTo(100);
        assertThat(t.pendingRounds()).isZero();
    }

    @Test
    void theWaitForAllVariantWaitsForTheSlowestVoter() {
        CommitTracker t = new CommitTracker(List.of(L, F1, F2), 1_000, 16, n -> n);
        t.propose(1, 1);
        t.ack(L, 1, 2);
        t.ack(F1, 1, 3);
        assertThat(t.committedIndex()).isZero();
        var done = t.ack(F2, 1, 50);
        assertThat(done.getFirst().spareMembers()).isZero();
        assertThat(done.getFirst().decidedBy()).isEqualTo(F2);
    }

    @Test
    void boundsItsRoundsByExtendingTheNewestOne() {
        CommitTracker t = new CommitTracker(List.of(L, F1, F2), 1_000, 4, QuorumTracker::majority);
        for (long i = 1; i <= 100; i++) t.propose(i, i);
        assertThat(t.pendingRounds()).isEqualTo(4);
        t.ack(L, 100, 200);
        assertThat(t.ack(F2, 100, 201)).extracting(CommitTracker.Completed::target).containsExactly(1L, 2L, 3L, 100L);
        assertThat(t.committedIndex()).isEqualTo(100);
    }

    @Test
    void proposalsInTheSameInstantShareARound() {
        CommitTracker t = new CommitTracker(List.of(L, F1, F2), 1_000, 16, QuorumTracker::majority);
        t.propose(1, 5);
        t.propose(2, 5);
        t.propose(3, 5);
        assertThat(t.pendingRounds()).isEqualTo(1);
    }

    @Test
    void aRoundAlreadyAcknowledgedWhenProposedIsNotAWait() {
        CommitTracker t = new CommitTracker(List.of(L), 1_000, 16, QuorumTracker::majority);
        t.ack(L, 7, 1);
        var done = t.propose(7, 2);
        assertThat(done).singleElement().extracting(CommitTracker.Completed::incremental).isEqualTo(false);
    }

    @Test
    void reconfigurationAppliesTheNewVotersToPendingRounds() {
        CommitTracker t = new CommitTracker(List.of(L, F1, F2), 1_000, 16, QuorumTracker::majority);
        t.propose(4, 1);
        t.ack(F3, 4, 2); // not a voter yet
        t.ack(L, 4, 3);
        assertThat(t.committedIndex()).isZero();
        // F3 promoted, F1 and F2 removed: {L, F3} is now a majority of {L, F3}... of three voters it needs two.
        var done = t.reconfigure(List.of(L, F3, F4), 4);
        assertThat(done).extracting(CommitTracker.Completed::target).containsExactly(4L);
    }

    @Test
    void reportsEachOverdueRoundOnce() {
        CommitTracker t = new CommitTracker(List.of(L, F1, F2), 100, 16, QuorumTracker::majority);
        t.propose(1, 0);
        t.propose(2, 50);
        assertThat(t.newlyOverdue(99)).isEmpty();
        assertThat(t.newlyOverdue(100)).containsExactly(1L);
        assertThat(t.newlyOverdue(160)).containsExactly(2L);
        assertThat(t.newlyOverdue(500)).isEmpty();
    }
}
