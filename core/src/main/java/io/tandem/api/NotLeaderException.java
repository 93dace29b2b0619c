package io.tandem.api;

import io.tandem.engine.NodeId;
import java.util.List;
import java.util.Optional;

/**
 * This node cannot order the request and did not forward it: retry at one of
 * {@link #redirectTargets()} (best first), or wait for the group to be ready
 * ({@link ReplicatedNode#awaitReady}) when none is known.
 */
public final class NotLeaderException extends TandemException {
    private final List<NodeId> targets;

    public NotLeaderException(NodeId node, NodeId leaderHint) {
        this(node, leaderHint == null ? List.of() : List.of(leaderHint));
    }

    public NotLeaderException(NodeId node, List<NodeId> targets) {
        super(node + " cannot order the request" + (targets.isEmpty() ? " and knows no member that can" : "; try " + targets));
        this.targets = List.copyOf(targets);
    }

    /** The best member to retry at, if one is known. */
    public Optional<NodeId> leaderHint() {
        return targets.isEmpty() ? Optional.empty() : Optional.of(targets.get(0));
    }

    /** Every member that can probably order the request, best first (several for multi-leader engines). */
    public List<NodeId> redirectTargets() {
        return targets;
    }
}
