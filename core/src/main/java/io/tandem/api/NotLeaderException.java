package io.tandem.api;

import io.tandem.engine.NodeId;
import java.util.Optional;

/** This node cannot order the request; retry at {@link #leaderHint()} if present. */
public final class NotLeaderException extends TandemException {
    private final NodeId leaderHint;

    public NotLeaderException(NodeId node, NodeId leaderHint) {
        super(node + " is not the leader" + (leaderHint == null ? " and knows of none" : "; try " + leaderHint));
        this.leaderHint = leaderHint;
    }

    public Optional<NodeId> leaderHint() {
        return Optional.ofNullable(leaderHint);
    }
}
