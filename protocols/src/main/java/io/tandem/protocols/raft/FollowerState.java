package io.tandem.protocols.raft;

/**
 * A follower's state: its acknowledgements to the leader (§5.3), which only ever cover entries that
 * are durable here, because the leader counts an acknowledgement as a vote towards committing them
 * (DESIGN §3 rule 3 applies to every voter's write, not only the leader's).
 *
 * <p>An AppendEntries whose entries are not durable yet is acknowledged in parts: at once up to
 * what is durable, the rest as syncs complete ({@link #flush}). Acknowledgements are coalesced: a
 * durable point already acknowledged is never sent again, and only the latest request waits. A new
 * {@code FollowerState} starts with every new leader or term, so nothing owed to an earlier leader
 * is ever sent to a later one.
 */
final class FollowerState implements RoleState {
    /** Returned when there is nothing to acknowledge now. */
    static final long NOTHING = -1;

    /** The highest index the leader is owed an acknowledgement for once it is durable, or -1. */
    private long pendingAckIndex = -1;
    /** The request the pending acknowledgement answers (DESIGN §3 rule 4). */
    private long pendingAckRequestId;
    /** The highest match index acknowledged to this leader, or -1. */
    private long lastAckSent = -1;

    /**
     * Entries up to {@code verified} match the leader's log. Returns the match index to acknowledge
     * now (everything verified if it is durable, else the durable part if it was not acknowledged
     * yet), or {@link #NOTHING}; the rest waits for {@link #flush}.
     */
    long acknowledge(long verified, long durableIndex, long requestId) {
        if (verified <= durableIndex) return sent(verified);
        pendingAckIndex = Math.max(pendingAckIndex, verified);
        pendingAckRequestId = requestId;
        return durableIndex > lastAckSent ? sent(durableIndex) : NOTHING;
    }

    /** Durability advanced to {@code durableIndex}: the match index to acknowledge now, or {@link #NOTHING}. */
    long flush(long durableIndex) {
        if (pendingAckIndex < 0) return NOTHING;
        long ackable = Math.min(pendingAckIndex, durableIndex);
        long ack = ackable > lastAckSent ? sent(ackable) : NOTHING;
        if (durableIndex >= pendingAckIndex) pendingAckIndex = -1;
        return ack;
    }

    /** The request the acknowledgement returned by {@link #flush} answers. */
    long pendingRequestId() {
        return pendingAckRequestId;
    }

    /**
     * The log now ends at {@code lastIndex} (a conflicting suffix was removed, or a snapshot replaced
     * the log): entries past it can no longer be acknowledged, whatever was verified before.
     */
    void logCutBackTo(long lastIndex) {
        pendingAckIndex = Math.min(pendingAckIndex, lastIndex);
    }

    private long sent(long matchIndex) {
        lastAckSent = Math.max(lastAckSent, matchIndex);
        return matchIndex;
    }

    @Override
    public String toString() {
        return "follower{pendingAck=" + pendingAckIndex + " lastAck=" + lastAckSent + "}";
    }
}
