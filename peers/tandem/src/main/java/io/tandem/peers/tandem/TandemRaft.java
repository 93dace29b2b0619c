package io.tandem.peers.tandem;

/** {@code tandem-raft}: the KV server with the fail-slow tolerant Raft engine ({@code raft}). */
public final class TandemRaft extends TandemSystem {
    public TandemRaft() {
        super("tandem-raft", "raft");
    }
}
