package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import io.tandem.protocols.failslow.QuorumTracker;
import java.util.List;
import org.junit.jupiter.api.Test;

class QuorumSystemTest {
    private static List<NodeId> nodes(int n) {
        return java.util.stream.IntStream.rangeClosed(1, n).mapToObj(i -> NodeId.of("a" + i)).toList();
    }

    private static long mask(QuorumSystem q, String... names) {
        long m = 0;
        for (String n : names) m |= q.bit(NodeId.of(n));
        return m;
    }

    /** Every read quorum intersects every write quorum (spec G-1), checked over all subsets. */
    private static void assertIntersection(QuorumSystem q) {
        long all = q.all();
        for (long r = 0; r <= all; r++) {
            if ((r & ~all) != 0 || !q.isReadQuorum(r)) continue;
            for (long w = 0; w <= all; w++) {
                if ((w & ~all) != 0 || !q.isWriteQuorum(w)) continue;
                assertThat(r & w).as("read quorum %s and write quorum %s", q.membersOf(r), q.membersOf(w)).isNotZero();
            }
        }
    }

    @Test
    void majoritiesOfThreeAndFive() {
        QuorumSystem three = QuorumSystem.majority(nodes(3));
        assertThat(three.isWriteQuorum(mask(three, "a1", "a3"))).isTrue();
        assertThat(three.isReadQuorum(mask(three, "a2"))).isFalse();
        assertThat(three.faultTolerance()).isEqualTo(1);
        assertIntersection(three);
        QuorumSystem five = QuorumSystem.majority(nodes(5));
        assertThat(five.isReadQuorum(mask(five, "a1", "a2", "a5"))).isTrue();
        assertThat(five.isWriteQuorum(mask(five, "a1", "a2"))).isFalse();
        assertThat(five.faultTolerance()).isEqualTo(2);
        assertIntersection(five);
    }

    @Test
    void flexibleCountingQuorumsMustIntersect() {
        QuorumSystem q = QuorumSystem.threshold(nodes(5), 4, 2); // Flexible Paxos: big Phase 1, small Phase 2
        assertThat(q.isWriteQuorum(mask(q, "a4", "a5"))).isTrue();
        assertThat(q.isReadQuorum(mask(q, "a1", "a2", "a3"))).isFalse();
        assertThat(q.faultTolerance()).isEqualTo(1);
        assertIntersection(q);
        assertThatThrownBy(() -> QuorumSystem.threshold(nodes(5), 3, 2)).hasMessageContaining("need not intersect");
    }

    @Test
    void gridRowsReadAndTransversalsWrite() {
        // The paper's worked example (spec §2.2): a 2x3 grid.
        QuorumSystem grid = new QuorumLayout.Grid(2, 3).resolve(nodes(6));
        assertThat(grid.isReadQuorum(mask(grid, "a1", "a2", "a3"))).isTrue();
        assertThat(grid.isReadQuorum(mask(grid, "a4", "a5", "a6"))).isTrue();
        assertThat(grid.isReadQuorum(mask(grid, "a1", "a2", "a4", "a5"))).isFalse();
        assertThat(grid.isWriteQuorum(mask(grid, "a1", "a4"))).isTrue(); // a column
        assertThat(grid.isWriteQuorum(mask(grid, "a1", "a5"))).isTrue(); // any transversal (G-4)
        assertThat(grid.isWriteQuorum(mask(grid, "a1", "a2", "a3"))).isFalse(); // a whole row misses the other row
        assertThat(grid.faultTolerance()).isEqualTo(1);
        assertIntersection(grid);
        assertIntersection(new QuorumLayout.Grid(3, 3).resolve(nodes(9)));
        assertThat(new QuorumLayout.Grid(3, 3).resolve(nodes(9)).faultTolerance()).isEqualTo(2);
    }

    @Test
    void layoutsAreValidatedAgainstTheAcceptors() {
        assertThatThrownBy(() -> new QuorumLayout.Grid(2, 2).resolve(nodes(3))).hasMessageContaining("needs 4 acceptors");
        assertThatThrownBy(() -> QuorumSystem.majority(List.of(NodeId.of("a"), NodeId.of("a")))).hasMessageContaining("twice");
        assertThatThrownBy(() -> QuorumSystem.majority(nodes(65))).hasMessageContaining("at most 64");
        assertThat(QuorumLayout.MAJORITY.resolve(nodes(4)).isWriteQuorum(0b0111)).isTrue();
        assertThat(QuorumLayout.MAJORITY.resolve(nodes(4)).isWriteQuorum(0b0011)).isFalse();
    }

    @Test
    void masksAndMembers() {
        QuorumSystem q = QuorumSystem.majority(nodes(3));
        assertThat(q.bit(NodeId.of("a2"))).isEqualTo(0b010);
        assertThat(q.bit(NodeId.of("other"))).isZero();
        assertThat(q.all()).isEqualTo(0b111);
        assertThat(q.membersOf(0b101)).containsExactly(NodeId.of("a1"), NodeId.of("a3"));
    }

    @Test
    void aQuorumTrackerCompletesOnAnyQuorumAndIgnoresRepeatsAndStrangers() {
        QuorumSystem q = QuorumSystem.majority(nodes(3));
        QuorumTracker t = new QuorumTracker(q.members(), q.writeRule(), 100, QuorumTracker.NO_DEADLINE);
        assertThat(t.ack(NodeId.of("a3"), 110)).isFalse();
        assertThat(t.ack(NodeId.of("a3"), 111)).isFalse();
        assertThat(t.ack(NodeId.of("stranger"), 112)).isFalse();
        assertThat(t.isYes()).isFalse();
        assertThat(t.ack(NodeId.of("a1"), 130)).isTrue();
        assertThat(t.isYes()).isTrue();
        assertThat(t.decidedBy()).isEqualTo(NodeId.of("a1"));
        assertThat(t.waitedNanos()).isEqualTo(30);
        assertThat(t.ack(NodeId.of("a2"), 140)).isFalse(); // already complete
        QuorumSystem grid = new QuorumLayout.Grid(2, 2).resolve(nodes(4));
        QuorumTracker row = new QuorumTracker(grid.members(), grid.readRule(), 0, QuorumTracker.NO_DEADLINE);
        row.ack(NodeId.of("a1"), 1);
        assertThat(row.ack(NodeId.of("a3"), 2)).isFalse(); // one of each row is a write quorum, not a read quorum
        assertThat(row.ack(NodeId.of("a4"), 3)).isTrue(); // the second row is complete
    }
}
