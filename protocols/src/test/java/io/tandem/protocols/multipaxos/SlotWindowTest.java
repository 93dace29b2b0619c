package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlotWindowTest {
    private static final List<NodeId> ACCEPTORS = List.of(NodeId.of("a1"), NodeId.of("a2"), NodeId.of("a3"));
    private static final QuorumSystem MAJORITY = QuorumSystem.majority(ACCEPTORS);
    private static final long A1 = 1, A2 = 2, A3 = 4;

    private static Value command(int n) {
        return new Value.Command(NodeId.of("n1"), n, new ClientRequest.Session(7, n), new byte[] {(byte) n});
    }

    @Test
    void aSlotIsChosenByAWriteQuorumOfVotesAndThePrefixAdvancesInOrder() {
        SlotWindow w = new SlotWindow(MAJORITY, 4, 10);
        assertThat(w.propose(command(1), 0)).isEqualTo(10);
        assertThat(w.propose(command(2), 0)).isEqualTo(11);
        assertThat(w.vote(11, A1, 5)).isNull();
        assertThat(w.vote(11, A1, 5)).isNull(); // a duplicate vote counts once
        assertThat(w.vote(11, A3, 6)).isNotNull(); // two of three
        assertThat(w.advance()).isEmpty(); // slot 10 is still open: nothing leaves the window out of order
        assertThat(w.firstUnchosen()).isEqualTo(10);
        w.vote(10, A2, 7);
        assertThat(w.vote(10, A3, 8).slot).isEqualTo(10);
        assertThat(w.vote(10, A1, 9)).isNull(); // already chosen
        assertThat(w.advance()).extracting(p -> p.slot).containsExactly(10L, 11L);
        assertThat(w.firstUnchosen()).isEqualTo(12);
        assertThat(w.outstanding()).isZero();
    }

    @Test
    void theWindowBoundsNewProposalsButNotRecoveredOnes() {
        SlotWindow w = new SlotWindow(MAJORITY, 2, 1);
        for (int i = 0; i < 5; i++) w.proposeRecovered(Value.NOOP, 0); // Phase 1 found five open slots
        assertThat(w.nextSlot()).isEqualTo(6);
        assertThat(w.hasRoom()).isFalse(); // five outstanding is more than twice the window
        for (long s = 1; s <= 4; s++) {
            w.vote(s, A1, 1);
            w.vote(s, A2, 1);
        }
        w.advance();
        assertThat(w.hasRoom()).isTrue();
        w.propose(command(1), 2);
        w.propose(command(2), 2);
        assertThat(w.hasRoom()).isFalse(); // two new proposals outstanding: the window is full
    }

    @Test
    void runsAreConsecutiveUndecidedSlotsTheAcceptorHasNotVotedFor() {
        SlotWindow w = new SlotWindow(MAJORITY, 16, 1);
        for (int i = 1; i <= 6; i++) w.propose(command(i), 0);
        w.vote(1, A3, 0); // a3 already voted for slot 1
        w.vote(3, A1, 0);
        w.vote(3, A2, 0); // slot 3 is chosen
        SlotWindow.Run run = w.nextRun(0, A3, 8, 1 << 20);
        assertThat(run.firstSlot()).isEqualTo(2); // skips slot 1 (voted) and stops before slot 3 (decided)
        assertThat(run.values()).containsExactly(command(2));
        assertThat(run.requestId()).isEqualTo(2);
        SlotWindow.Run next = w.nextRun(run.lastSlot(), A3, 2, 1 << 20);
        assertThat(next.firstSlot()).isEqualTo(4);
        assertThat(next.values()).hasSize(2); // batch limit
        assertThat(w.nextRun(next.lastSlot(), A3, 8, 1).values()).containsExactly(command(6)); // one value larger than the byte limit still goes
        assertThat(w.nextRun(6, A3, 8, 1 << 20)).isNull();
    }

    @Test
    void slotsAnAcceptorReportsCollectedAreDecidedWithoutVotes() {
        SlotWindow w = new SlotWindow(MAJORITY, 8, 5);
        w.proposeRecovered(command(1), 0);
        w.proposeRecovered(command(2), 0);
        assertThat(w.markChosenThrough(9, 1)).isEqualTo(2);
        List<SlotWindow.Proposal> done = w.advance();
        assertThat(done).allMatch(p -> p.chosenElsewhere);
        assertThat(w.firstUnchosen()).isEqualTo(10);
        assertThat(w.nextSlot()).isEqualTo(10);
        assertThat(w.propose(command(3), 2)).isEqualTo(10);
    }

    @Test
    void overdueAndWaitingProposals() {
        SlotWindow w = new SlotWindow(MAJORITY, 8, 1);
        w.propose(command(1), 0);
        w.propose(command(2), 50);
        assertThat(w.newlyOverdue(100, 60)).isEqualTo(1);
        assertThat(w.newlyOverdue(200, 60)).isEqualTo(1); // each is reported once
        w.vote(1, A1, 0);
        assertThat(w.oldestUndecidedWithout(A1, 60).slot).isEqualTo(2);
        assertThat(w.oldestUndecidedWithout(A2, 60).slot).isEqualTo(1);
        assertThat(w.oldestUndecidedWithout(A1, 10)).isNull(); // slot 2 is younger than that
        assertThatThrownBy(() -> new SlotWindow(MAJORITY, 8, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
