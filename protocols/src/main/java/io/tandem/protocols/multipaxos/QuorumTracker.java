package io.tandem.protocols.multipaxos;

import io.tandem.engine.NodeId;

/**
 * A wait for a read or write quorum of acceptors (DESIGN §3 rule 1, DepFast's QuorumEvent): it
 * completes as soon as the acceptors that answered contain a quorum of the {@link QuorumSystem},
 * whoever they are, so no single acceptor can hold it up unless the quorum system says every
 * acceptor is needed. Pure bookkeeping: time is passed in.
 */
final class QuorumTracker {
    enum Kind { READ, WRITE }

    private final QuorumSystem quorums;
    private final Kind kind;
    private final long createdAt;
    private long acks;
    private long decidedAt = -1;
    private NodeId decidedBy;

    QuorumTracker(QuorumSystem quorums, Kind kind, long createdAt) {
        this.quorums = quorums;
        this.kind = kind;
        this.createdAt = createdAt;
    }

    /** Records an answer; returns true if it is the one that completed the quorum. Non-members and repeats change nothing. */
    boolean ack(NodeId acceptor, long now) {
        long bit = quorums.bit(acceptor);
        if (bit == 0 || (acks & bit) != 0) return false;
        acks |= bit;
        if (decidedAt < 0 && (kind == Kind.READ ? quorums.isReadQuorum(acks) : quorums.isWriteQuorum(acks))) {
            decidedAt = now;
            decidedBy = acceptor;
            return true;
        }
        return false;
    }

    boolean isComplete() {
        return decidedAt >= 0;
    }

    boolean hasAcked(NodeId acceptor) {
        return (acks & quorums.bit(acceptor)) != 0;
    }

    long acks() {
        return acks;
    }

    long createdAt() {
        return createdAt;
    }

    NodeId decidedBy() {
        return decidedBy;
    }

    /** Nanoseconds from creation to completion, or -1 while pending. */
    long waitedNanos() {
        return decidedAt < 0 ? -1 : decidedAt - createdAt;
    }

    @Override
    public String toString() {
        return kind + (isComplete() ? " complete " : " pending ") + quorums.membersOf(acks);
    }
}
