package io.tandem.peers.tandem;

import io.tandem.kv.net.NodeStatus;
import io.tandem.peers.driver.Role;

/** {@code tandem-raft}: the KV server with the fail-slow tolerant Raft engine ({@code raft}). */
public final class TandemRaft extends TandemSystem {
    public TandemRaft() {
        super("tandem-raft", "raft");
    }

    /** The server reports the Raft engine's role: LEADER, FOLLOWER, or a candidate (pre-vote or vote) between them. */
    @Override
    Role roleOf(NodeStatus status) {
        return switch (status.role()) {
            case "LEADER" -> Role.LEADER;
            case "FOLLOWER" -> Role.FOLLOWER;
            default -> Role.OTHER;
        };
    }
}
