package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;

/**
 * A leadership transfer in progress (thesis §3.10), held by {@link LeaderState}: the leader stops
 * taking commands, brings {@code target} up to date, then sends it TimeoutNow, which makes it start
 * an election at once (skipping pre-vote and stickiness). The request is answered by the new
 * leader's first entry; if the target does not catch up within an election timeout the transfer is
 * refused and the leader takes commands again.
 */
final class LeadershipTransfer {
    final NodeId target;
    final long requestId;
    /** Once sent, the transfer may complete through the new leader even if this one steps down. */
    boolean timeoutNowSent;

    LeadershipTransfer(NodeId target, long requestId) {
        this.target = target;
        this.requestId = requestId;
    }

    /** True when TimeoutNow should go to {@code peer} now: it is the target and holds our whole log. */
    boolean readyToHandOver(Peer peer, long lastIndex) {
        return !timeoutNowSent && peer.id.equals(target) && peer.match == lastIndex;
    }
}
