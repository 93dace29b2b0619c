package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
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
    /**
     * The ring (session 20) against main's tree-map window ({@link TreeSlotWindow}) over random proposals, recovered
     * bursts past the capacity (the ring grows), votes, collected prefixes reported ahead of and beyond the proposals,
     * and every query: the same answers throughout.
     */
    @Test
    void theRingAnswersAsTheTreeMapWindowDid() {
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            long start = 1 + random.nextInt(100);
            SlotWindow ring = new SlotWindow(MAJORITY, 8, start);
            TreeSlotWindow tree = new TreeSlotWindow(MAJORITY, 8, start);
            long now = 0;
            for (int step = 0; step < 5_000; step++) {
                now += random.nextInt(5);
                int op = random.nextInt(100);
                if (op < 30) {
                    if (ring.hasRoom() != tree.hasRoom()) throw new AssertionError("hasRoom at step " + step);
                    if (ring.hasRoom()) assertThat(ring.propose(command(step + 1), now)).isEqualTo(tree.propose(command(step + 1), now));
                } else if (op < 33) {
                    int n = 1 + random.nextInt(200); // a Phase 1 recovered many slots: past the capacity, the ring grows
                    for (int i = 0; i < n; i++) assertThat(ring.proposeRecovered(Value.NOOP, now)).isEqualTo(tree.proposeRecovered(Value.NOOP, now));
                } else if (op < 75) {
                    long slot = ring.firstUnchosen() - 2 + random.nextInt(Math.toIntExact(ring.nextSlot() - ring.firstUnchosen() + 4));
                    long bit = 1L << random.nextInt(3);
                    SlotWindow.Proposal a = ring.vote(slot, bit, now);
                    TreeSlotWindow.Proposal b = tree.vote(slot, bit, now);
                    assertThat(a == null ? -1 : a.slot).isEqualTo(b == null ? -1 : b.slot);
                } else if (op < 78) {
                    long slot = ring.firstUnchosen() + random.nextInt(Math.toIntExact(ring.nextSlot() - ring.firstUnchosen() + (random.nextInt(4) == 0 ? 500 : 5)));
                    assertThat(ring.markChosenThrough(slot, now)).isEqualTo(tree.markChosenThrough(slot, now));
                    if (random.nextBoolean()) { // usually advanced at once (the leader always does); sometimes a proposal comes first
                        assertThat(slotsOf(ring.advance())).isEqualTo(treeSlotsOf(tree.advance()));
                    } else if (ring.hasRoom() && tree.hasRoom()) {
                        assertThat(ring.propose(command(step + 1), now)).isEqualTo(tree.propose(command(step + 1), now));
                    }
                } else if (op < 90) {
                    assertThat(slotsOf(ring.advance())).isEqualTo(treeSlotsOf(tree.advance()));
                } else if (op < 96) {
                    long after = ring.firstUnchosen() - 2 + random.nextInt(Math.toIntExact(ring.nextSlot() - ring.firstUnchosen() + 3));
                    long bit = 1L << random.nextInt(3);
                    int maxSlots = 1 + random.nextInt(6);
                    SlotWindow.Run a = ring.nextRun(after, bit, maxSlots, 1 << 20);
                    TreeSlotWindow.Run b = tree.nextRun(after, bit, maxSlots, 1 << 20);
                    assertThat(a == null ? null : List.of(a.firstSlot(), (long) a.values().size(), a.requestId()))
                            .isEqualTo(b == null ? null : List.of(b.firstSlot(), (long) b.values().size(), b.requestId()));
                    if (a != null) assertThat(a.values()).isEqualTo(b.values());
                } else if (op < 98) {
                    assertThat(ring.newlyOverdue(now, 20)).isEqualTo(tree.newlyOverdue(now, 20));
                } else {
                    long bit = 1L << random.nextInt(3);
                    SlotWindow.Proposal a = ring.oldestUndecidedWithout(bit, now - 10);
                    TreeSlotWindow.Proposal b = tree.oldestUndecidedWithout(bit, now - 10);
                    assertThat(a == null ? -1 : a.slot).isEqualTo(b == null ? -1 : b.slot);
                }
                assertThat(ring.firstUnchosen()).isEqualTo(tree.firstUnchosen());
                assertThat(ring.nextSlot()).isEqualTo(tree.nextSlot());
                assertThat(ring.outstanding()).isEqualTo(tree.outstanding());
            }
        }
    }

    private static List<String> slotsOf(List<SlotWindow.Proposal> ps) {
        List<String> out = new ArrayList<>();
        for (SlotWindow.Proposal p : ps) out.add(p.slot + ":" + p.chosenElsewhere + ":" + p.value);
        return out;
    }

    private static List<String> treeSlotsOf(List<TreeSlotWindow.Proposal> ps) {
        List<String> out = new ArrayList<>();
        for (TreeSlotWindow.Proposal p : ps) out.add(p.slot + ":" + p.chosenElsewhere + ":" + p.value);
        return out;
    }
}
