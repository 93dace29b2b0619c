package io.tandem.peers.tandem;

/** {@code tandem-multipaxos}: the KV server with the MultiPaxos engine ({@code multipaxos}, classic deployment). */
public final class TandemMultiPaxos extends TandemSystem {
    public TandemMultiPaxos() {
        super("tandem-multipaxos", "multipaxos");
    }
}
