package io.tandem.protocols.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.protocols.raft.LeaderReads.PendingRead;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ReadIndex and lease bookkeeping (thesis §6.4): which reads a confirmed round serves, and how long the lease runs. */
class LeaderReadsTest {
    private static final long LEASE = 1_000;

    @Test
    void readsWaitingForTheTermCommitGetTheCommitIndexOfThatMomentAsTheirReadIndex() {
        LeaderReads r = new LeaderReads(8);
        r.awaitTermCommit(1);
        r.awaitTermCommit(2);
        assertThat(r.readsWaitForRound()).isFalse();
        assertThat(r.termCommitted(17)).isTrue();
        assertThat(r.termCommitted(18)).as("nothing left waiting for the term").isFalse();
        r.roundSent(1, 100);
        assertThat(r.confirm(seq -> seq == 1, LEASE)).containsExactly(new PendingRead(1, 17), new PendingRead(2, 17));
    }

    @Test
    void aConfirmedRoundServesItsReadsAndEveryEarlierRoundsInOrderButNotLaterOnes() {
        LeaderReads r = new LeaderReads(8);
        r.awaitRound(1, 5);
        r.roundSent(1, 100);
        assertThat(r.readRoundOutstanding()).isTrue();
        r.awaitRound(2, 6);
        r.roundSent(2, 200);
        r.awaitRound(3, 7);
        r.roundSent(3, 300);
        assertThat(r.confirm(seq -> false, LEASE)).as("no round acknowledged").isNull();
        assertThat(r.confirm(seq -> seq <= 2, LEASE)).containsExactly(new PendingRead(1, 5), new PendingRead(2, 6));
        assertThat(r.pending()).isEqualTo(1);
        assertThat(r.confirm(seq -> seq == 3, LEASE)).containsExactly(new PendingRead(3, 7));
        assertThat(r.readRoundOutstanding()).isFalse();
    }

    @Test
    void theLeaseRunsFromWhenTheNewestConfirmedRoundWasSentUntilATransferEndsIt() {
        LeaderReads r = new LeaderReads(8);
        r.roundSent(1, 100);
        r.roundSent(2, 400);
        assertThat(r.confirm(seq -> seq == 2, LEASE)).as("a confirmed round without reads").isEmpty();
        assertThat(r.leaseExpiresAt()).as("from the send time, not the confirmation").isEqualTo(400 + LEASE);
        assertThat(r.leaseRunning(400 + LEASE - 1)).isTrue();
        assertThat(r.leaseRunning(400 + LEASE)).isFalse();
        assertThat(r.confirm(seq -> seq == 1, LEASE)).as("round 1 was confirmed along with round 2").isNull();
        r.roundSent(3, 900);
        r.confirm(seq -> seq == 3, LEASE);
        assertThat(r.leaseExpiresAt()).isEqualTo(900 + LEASE);
        r.endLease();
        assertThat(r.leaseRunning(0)).as("a leadership transfer ends the lease at once").isFalse();
    }

    @Test
    void readsOfARoundNoQuorumAcknowledgedInTimeRideOnTheNextRound() {
        LeaderReads r = new LeaderReads(8);
        r.awaitRound(1, 5);
        r.roundSent(1, 100);
        r.expire(100 + 499, 500);
        assertThat(r.readsWaitForRound()).as("not yet expired").isFalse();
        r.expire(100 + 500, 500);
        assertThat(r.readsWaitForRound()).isTrue();
        assertThat(r.firstWaitingRequestId()).isEqualTo(1);
        assertThat(r.readRoundOutstanding()).isFalse();
        r.roundSent(2, 700);
        assertThat(r.confirm(seq -> seq == 1, LEASE)).as("the expired round is gone").isNull();
        assertThat(r.confirm(seq -> seq == 2, LEASE)).containsExactly(new PendingRead(1, 5));
    }

    @Test
    void onlyTheNewestRoundsAreRememberedAndTheReadsOfOlderOnesWaitForTheNext() {
        LeaderReads r = new LeaderReads(2);
        r.awaitRound(1, 5);
        r.roundSent(1, 100);
        r.roundSent(2, 200);
        r.roundSent(3, 300); // round 1 is forgotten, its read goes back to waiting
        assertThat(r.readsWaitForRound()).isTrue();
        assertThat(r.pending()).isEqualTo(1);
        assertThat(r.confirm(seq -> seq == 1, LEASE)).isNull();
    }

    @Test
    void steppingDownHandsBackEveryWaitingReadOnce() {
        LeaderReads r = new LeaderReads(8);
        r.awaitTermCommit(1);
        r.awaitRound(2, 5);
        r.roundSent(1, 100);
        r.awaitRound(3, 5);
        assertThat(r.drain()).extracting(PendingRead::requestId).containsExactly(1L, 3L, 2L);
        assertThat(r.pending()).isZero();
        assertThat(r.drain()).isEqualTo(List.of());
    }
}
