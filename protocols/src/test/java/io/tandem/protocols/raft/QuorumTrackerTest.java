package io.tandem.protocols.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import java.util.List;
import org.junit.jupiter.api.Test;

class QuorumTrackerTest {
    private static final NodeId A = NodeId.of("a"), B = NodeId.of("b"), C = NodeId.of("c"), D = NodeId.of("d"), E = NodeId.of("e");

    @Test
    void decidesYesOnTheKthAcknowledgementAndRemembersWhoAnswered() {
        QuorumTracker q = new QuorumTracker(List.of(A, B, C, D, E), 3, 0, 100);
        assertThat(q.ack(C, 1)).isFalse();
        assertThat(q.ack(A, 2)).isFalse();
        assertThat(q.outcome()).isEqualTo(QuorumTracker.Outcome.PENDING);
        assertThat(q.ack(E, 7)).isTrue();
        assertThat(q.isYes()).isTrue();
        assertThat(q.responders()).containsExactly(C, A, E);
        assertThat(q.decidedBy()).isEqualTo(E);
        assertThat(q.waitedNanos()).isEqualTo(7);
        assertThat(q.spareMembers()).isEqualTo(2);
        assertThat(q.ack(B, 9)).as("later answers do not decide again").isFalse();
    }

    @Test
    void decidesNoOnceTooManyRefusedForYesToBePossible() {
        QuorumTracker q = new QuorumTracker(List.of(A, B, C), 2, 0, 100);
        assertThat(q.refuse(A, 1)).isFalse();
        assertThat(q.refuse(B, 2)).isTrue();
        assertThat(q.outcome()).isEqualTo(QuorumTracker.Outcome.NO);
        assertThat(q.ack(C, 3)).isFalse();
        assertThat(q.outcome()).isEqualTo(QuorumTracker.Outcome.NO);
    }

    @Test
    void ignoresRepeatsNonMembersAndAnswersThatContradictAnEarlierOne() {
        QuorumTracker q = new QuorumTracker(List.of(A, B, C), 2, 0, 100);
        assertThat(q.ack(D, 1)).isFalse();
        q.ack(A, 1);
        assertThat(q.ack(A, 2)).isFalse();
        assertThat(q.refuse(A, 3)).isFalse();
        assertThat(q.ackCount()).isEqualTo(1);
        q.refuse(B, 4);
        assertThat(q.ack(B, 5)).isFalse();
        assertThat(q.outcome()).isEqualTo(QuorumTracker.Outcome.PENDING);
    }

    @Test
    void isOverdueAfterItsDeadlineWhileStillAbleToSucceed() {
        QuorumTracker q = new QuorumTracker(List.of(A, B, C), 2, 10, 110);
        q.ack(A, 20);
        assertThat(q.isOverdue(109)).isFalse();
        assertThat(q.isOverdue(110)).isTrue();
        q.ack(B, 150);
        assertThat(q.isYes()).isTrue();
        assertThat(q.isOverdue(200)).as("a decided quorum is never overdue").isFalse();
    }

    @Test
    void majorityAndBounds() {
        assertThat(QuorumTracker.majority(1)).isEqualTo(1);
        assertThat(QuorumTracker.majority(2)).isEqualTo(2);
        assertThat(QuorumTracker.majority(3)).isEqualTo(2);
        assertThat(QuorumTracker.majority(4)).isEqualTo(3);
        assertThat(QuorumTracker.majority(5)).isEqualTo(3);
        assertThatThrownBy(() -> new QuorumTracker(List.of(A, B), 3, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new QuorumTracker(List.of(A, B), 0, 0, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
