package io.tandem.protocols.failslow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class QuorumTrackerTest {
    private static final NodeId A = NodeId.of("a"), B = NodeId.of("b"), C = NodeId.of("c"), D = NodeId.of("d"), E = NodeId.of("e");

    @Test
    void decidesYesOnTheKthAcknowledgementAndRemembersWhoAnswered() {
        QuorumTracker q = QuorumTracker.kOfN(List.of(A, B, C, D, E), 3, 0, 100);
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
        QuorumTracker q = QuorumTracker.kOfN(List.of(A, B, C), 2, 0, 100);
        assertThat(q.refuse(A, 1)).isFalse();
        assertThat(q.refuse(B, 2)).isTrue();
        assertThat(q.outcome()).isEqualTo(QuorumTracker.Outcome.NO);
        assertThat(q.ack(C, 3)).isFalse();
        assertThat(q.outcome()).isEqualTo(QuorumTracker.Outcome.NO);
    }

    @Test
    void ignoresRepeatsNonMembersAndAnswersThatContradictAnEarlierOne() {
        QuorumTracker q = QuorumTracker.kOfN(List.of(A, B, C), 2, 0, 100);
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
        QuorumTracker q = QuorumTracker.kOfN(List.of(A, B, C), 2, 10, 110);
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
        assertThatThrownBy(() -> QuorumTracker.kOfN(List.of(A, B), 3, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> QuorumTracker.kOfN(List.of(A, B), 0, 0, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    /** A 2x2 grid: {a, b} and {c, d} are the rows; a quorum needs a whole row. */
    private static final QuorumRule ROWS = s -> s.containsAll(Set.of(A, B)) || s.containsAll(Set.of(C, D));

    @Test
    void anyRuleDecidesOnTheAnswerThatCompletesAQuorumNotOnACount() {
        QuorumTracker q = new QuorumTracker(List.of(A, B, C, D), ROWS, 0, QuorumTracker.NO_DEADLINE);
        assertThat(q.ack(A, 1)).isFalse();
        assertThat(q.ack(C, 2)).as("two answers, but no whole row").isFalse();
        assertThat(q.ack(D, 3)).isTrue();
        assertThat(q.decidedBy()).isEqualTo(D);
        assertThat(q.responders()).containsExactly(A, C, D);
        assertThat(q.isOverdue(Long.MAX_VALUE - 1)).isFalse();
    }

    @Test
    void anyRuleDecidesNoOnceNoQuorumIsLeftAmongTheMembersThatDidNotRefuse() {
        QuorumTracker q = new QuorumTracker(List.of(A, B, C, D), ROWS, 0, 10);
        assertThat(q.refuse(A, 1)).as("the row {c, d} is still possible").isFalse();
        assertThat(q.refuse(C, 2)).isTrue();
        assertThat(q.outcome()).isEqualTo(QuorumTracker.Outcome.NO);
        assertThat(q.isOverdue(20)).as("a decided wait is never overdue").isFalse();
    }

    @Test
    void aMinimalQuorumIsOneWithNoMemberToSpare() {
        QuorumRule twoOfThree = QuorumRule.atLeast(2);
        assertThat(twoOfThree.isMinimalQuorum(Set.of(A, B))).isTrue();
        assertThat(twoOfThree.isMinimalQuorum(Set.of(A, B, C))).isFalse();
        assertThat(twoOfThree.isMinimalQuorum(Set.of(A))).as("not a quorum at all").isFalse();
        assertThat(ROWS.isMinimalQuorum(Set.of(A, B))).isTrue();
        assertThat(ROWS.isMinimalQuorum(Set.of(A, B, C))).as("c can be spared").isFalse();
        assertThatThrownBy(() -> QuorumRule.atLeast(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
