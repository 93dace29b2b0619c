package io.tandem.protocols.raft;

/**
 * Numbers this node's heartbeat rounds and remembers when the recent ones were sent, so that a
 * late answer still gives a round-trip sample. It lives as long as the node, not a leadership:
 * round numbers only ever grow on a node, so a number is never reused, even across terms.
 */
final class HeartbeatSequence {
    /** How many recent rounds' send times are remembered. */
    private static final int SLOTS = 256;

    private long last;
    private final long[] seqAt = new long[SLOTS];
    private final long[] sentAt = new long[SLOTS];

    /** Numbers a round sent at {@code now}. */
    long next(long now) {
        long seq = ++last;
        int slot = (int) (seq % SLOTS);
        seqAt[slot] = seq;
        sentAt[slot] = now;
        return seq;
    }

    /** True if the send time of round {@code seq} is still remembered (never for a number we did not send). */
    boolean remembers(long seq) {
        return seq > 0 && seqAt[(int) (seq % SLOTS)] == seq;
    }

    /** When round {@code seq} was sent; only valid if {@link #remembers} it. */
    long sentAt(long seq) {
        return sentAt[(int) (seq % SLOTS)];
    }
}
