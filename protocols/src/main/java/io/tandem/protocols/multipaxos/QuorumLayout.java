package io.tandem.protocols.multipaxos;

import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.List;

/**
 * How the acceptors form quorums, as configuration ({@link MultiPaxosConfig#acceptorQuorums()}); the
 * acceptors themselves come from the deployment ({@link Topology}), so a layout is resolved into a
 * {@link QuorumSystem} once the members are known.
 */
public sealed interface QuorumLayout {
    /** Majorities of the acceptors: the classic deployment, tolerates (n-1)/2 crashed acceptors. */
    record Majority() implements QuorumLayout {
        @Override
        public QuorumSystem resolve(List<NodeId> acceptors) {
            return QuorumSystem.majority(acceptors);
        }
    }

    /** Flexible Paxos with counting quorums of {@code readSize} and {@code writeSize} acceptors. */
    record Threshold(int readSize, int writeSize) implements QuorumLayout {
        @Override
        public QuorumSystem resolve(List<NodeId> acceptors) {
            return QuorumSystem.threshold(acceptors, readSize, writeSize);
        }
    }

    /**
     * The acceptors, in member order, fill a grid of {@code rows} rows row by row (spec §2.2):
     * rows are read quorums, transversals write quorums.
     */
    record Grid(int rows, int columns) implements QuorumLayout {
        public Grid {
            if (rows < 1 || columns < 1) throw new IllegalArgumentException("a grid needs rows and columns >= 1, was " + rows + "x" + columns);
        }

        @Override
        public QuorumSystem resolve(List<NodeId> acceptors) {
            if (acceptors.size() != rows * columns) {
                throw new IllegalArgumentException("a " + rows + "x" + columns + " grid needs " + rows * columns + " acceptors, the deployment has " + acceptors.size());
            }
            List<List<NodeId>> grid = new ArrayList<>();
            for (int r = 0; r < rows; r++) grid.add(List.copyOf(acceptors.subList(r * columns, (r + 1) * columns)));
            return QuorumSystem.grid(grid);
        }
    }

    QuorumLayout MAJORITY = new Majority();

    QuorumSystem resolve(List<NodeId> acceptors);
}
