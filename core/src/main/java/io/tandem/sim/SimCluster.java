package io.tandem.sim;

import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import java.util.List;
import java.util.Optional;

/** The read-only view of a running simulation that invariants check. */
public interface SimCluster {
    List<NodeId> members();

    /** Virtual time since the start of the run, in nanoseconds. */
    long nowNanos();

    /** False while the node is crashed. */
    boolean isUp(NodeId node);

    boolean isPaused(NodeId node);

    /** The node's current engine instance; empty while it is crashed. */
    Optional<Engine> engine(NodeId node);

    default <T> Optional<T> engine(NodeId node, Class<T> type) {
        return engine(node).filter(type::isInstance).map(type::cast);
    }

    /** The highest index the node's execution has applied (volatile: reset to the snapshot on restart). */
    long appliedIndex(NodeId node);

    /** Every view the node installed so far, over all its incarnations, in order (a restart starts again from its first view). */
    List<io.tandem.engine.GroupView> views(NodeId node);
}
