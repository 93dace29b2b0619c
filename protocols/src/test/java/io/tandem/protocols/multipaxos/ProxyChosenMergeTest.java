package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Chosen;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ProxyAccept;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ProxyLeader#chosenMessages}: adjacent chosen runs of one drain become one Chosen; nothing else is merged. */
class ProxyChosenMergeTest {
    static final NodeId LEADER = NodeId.of("n1");
    static final Ballot B = new Ballot(3, 0);

    /** A command whose request id is its slot, so a test can see which value lands where. */
    static Value command(long slot, int payloadBytes) {
        return new Value.Command(NodeId.of("n9"), slot, ClientRequest.Session.NONE, new byte[payloadBytes]);
    }

    static ProxyLeader.Run run(long first, long last) {
        return run(first, last, 0);
    }

    static ProxyLeader.Run run(long first, long last, int payloadBytes) {
        List<Value> values = new ArrayList<>();
        for (long s = first; s <= last; s++) values.add(command(s, payloadBytes));
        return new ProxyLeader.Run(new ProxyAccept(B, first, values, first), LEADER, 0);
    }

    /** Each message as [first, last], and its values' request ids (= the slots they were proposed for). */
    static void assertSlotsMatchValues(List<Chosen> messages) {
        for (Chosen c : messages) {
            for (int k = 0; k < c.values().size(); k++) assertThat(c.values().get(k).requestId()).as("value %d of %s", k, c).isEqualTo(c.firstSlot() + k);
        }
    }

    static List<long[]> extents(List<Chosen> messages) {
        return messages.stream().map(c -> new long[] {c.firstSlot(), c.lastSlot()}).toList();
    }

    @Test
    void adjacentRunsChosenInAnyOrderBecomeOneMessage() {
        List<Chosen> m = ProxyLeader.chosenMessages(List.of(run(12, 12), run(10, 10), run(11, 11), run(13, 14)), 16, 1 << 20);
        assertThat(extents(m)).containsExactly(new long[] {10, 14});
        assertThat(m.getFirst().requestId()).isEqualTo(10);
        assertSlotsMatchValues(m);
    }

    @Test
    void aGapIsNeverBridged() {
        List<Chosen> m = ProxyLeader.chosenMessages(List.of(run(10, 10), run(11, 11), run(13, 13), run(14, 14)), 16, 1 << 20);
        assertThat(extents(m)).containsExactly(new long[] {10, 11}, new long[] {13, 14});
        assertSlotsMatchValues(m);
    }

    @Test
    void overlappingRunsAreSentAsTheyAre() {
        // The leader re-sent a run regrouped from the same first slot, or a new ballot re-proposed it: both chosen.
        // 10-11 overlaps 10-12 and starts a message of its own; 12-13 is adjacent to 10-11 and joins that one.
        List<Chosen> m = ProxyLeader.chosenMessages(List.of(run(10, 12), run(10, 11), run(12, 13)), 16, 1 << 20);
        assertThat(extents(m)).containsExactly(new long[] {10, 12}, new long[] {10, 13});
        assertSlotsMatchValues(m);
    }

    @Test
    void slotsReportedGarbageCollectedAreLeftOutAndAWhollyCollectedRunIsSkipped() {
        ProxyLeader.Run collected = run(10, 11);
        collected.gcSlot = 11;
        ProxyLeader.Run partly = run(12, 14);
        partly.gcSlot = 12;
        List<Chosen> m = ProxyLeader.chosenMessages(List.of(collected, partly, run(15, 15)), 16, 1 << 20);
        assertThat(extents(m)).containsExactly(new long[] {13, 15});
        assertSlotsMatchValues(m);
    }

    @Test
    void aMessageStopsAtTheSlotAndByteBounds() {
        List<ProxyLeader.Run> runs = new ArrayList<>();
        for (long s = 1; s <= 10; s++) runs.add(run(s, s));
        assertThat(extents(ProxyLeader.chosenMessages(runs, 4, 1 << 20))).containsExactly(new long[] {1, 4}, new long[] {5, 8}, new long[] {9, 10});
        // 40 bytes per value (32 + 8): at most two fit in 100 bytes.
        List<ProxyLeader.Run> heavy = new ArrayList<>();
        for (long s = 1; s <= 5; s++) heavy.add(run(s, s, 8));
        assertThat(extents(ProxyLeader.chosenMessages(heavy, 16, 100))).containsExactly(new long[] {1, 2}, new long[] {3, 4}, new long[] {5, 5});
        // A single run larger than the bounds still goes, alone.
        assertThat(extents(ProxyLeader.chosenMessages(List.of(run(1, 8, 8), run(9, 9, 8)), 4, 100))).containsExactly(new long[] {1, 8}, new long[] {9, 9});
    }

    @Test
    void oneRunIsItsOwnMessageAndNoRunsNone() {
        assertThat(extents(ProxyLeader.chosenMessages(List.of(run(7, 9)), 1, 64))).containsExactly(new long[] {7, 9});
        assertThat(ProxyLeader.chosenMessages(List.of(), 16, 1 << 20)).isEmpty();
    }
}
