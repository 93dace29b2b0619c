package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.RequestIds;
import io.tandem.storage.LogEntry;
import io.tandem.storage.SnapshotMeta;
import java.util.List;

/**
 * Every message between Raft engines. Each record names its handler in {@link RaftEngine}
 * ({@code onAppendEntries} for {@link AppendEntries}, ...). Messages carry the id of the client
 * request that caused them, or {@link RequestIds#BACKGROUND} for heartbeats, elections, probes,
 * resends and catch-up (DESIGN §3 rule 4).
 */
public sealed interface RaftMessage extends ProtocolMessage {
    /** The sender's current term (Raft §5.1): a higher term makes the receiver step down. */
    long term();

    @Override
    default long requestId() {
        return RequestIds.BACKGROUND;
    }

    /** Raft thesis §9.6: would you vote for me in {@code term}? The receiver changes no state. */
    record PreVoteRequest(long term, long lastLogIndex, long lastLogTerm) implements RaftMessage {}

    record PreVoteResponse(long term, boolean granted) implements RaftMessage {}

    /**
     * Raft §5.2 RequestVote. {@code leadershipTransfer} is set by a candidate that received
     * {@link TimeoutNow}; it overrides the receivers' leader stickiness (Raft thesis §3.10, §4.2.3).
     */
    record VoteRequest(long term, long lastLogIndex, long lastLogTerm, boolean leadershipTransfer) implements RaftMessage {}

    record VoteResponse(long term, boolean granted) implements RaftMessage {}

    /** Raft §5.3 AppendEntries; an empty {@code entries} list is a probe of the follower's log. */
    record AppendEntries(long term, long prevLogIndex, long prevLogTerm, List<LogEntry> entries, long leaderCommit, long requestId)
            implements RaftMessage, io.tandem.codec.SharedEncoding {}

    /**
     * The answer to {@link AppendEntries}, sent only once the follower's log is durable up to
     * {@code matchIndex}. A rejection echoes {@code prevLogIndex} and carries the conflict hints of
     * §5.3: the follower's term at {@code prevLogIndex} and the first index of that term, or term 0 and
     * the follower's last index + 1 if its log is shorter.
     */
    record AppendEntriesResponse(long term, boolean success, long matchIndex, long prevLogIndex, long conflictTerm, long conflictIndex, long requestId)
            implements RaftMessage {}

    /**
     * A leader's heartbeat (Raft §5.2), kept apart from log data so it never waits behind entries.
     * {@code commitIndex} is capped at what the follower is known to hold. {@code seq} numbers the
     * heartbeat round; acknowledging it confirms leadership for ReadIndex (Raft thesis §6.4).
     */
    record Heartbeat(long term, long commitIndex, long seq, long requestId) implements RaftMessage {}

    record HeartbeatResponse(long term, long seq, long requestId) implements RaftMessage {}

    /**
     * Raft §7 InstallSnapshot, one chunk at a time; the configuration in effect at the snapshot's
     * last entry travels with it.
     */
    record InstallSnapshot(long term, SnapshotMeta snapshot, Configuration configuration, long offset, byte[] data, boolean last)
            implements RaftMessage {}

    /** {@code nextOffset} is the next chunk the follower expects; {@code done} once the snapshot is installed. */
    record InstallSnapshotResponse(long term, long lastIncludedIndex, long nextOffset, boolean done) implements RaftMessage {}

    /**
     * Raft thesis §3.10: the leader hands over leadership; the receiver starts an election at once.
     * {@code origin}/{@code requestId} name the transfer request, which the new leader's first entry answers.
     */
    record TimeoutNow(long term, NodeId origin, long requestId) implements RaftMessage {}
}
