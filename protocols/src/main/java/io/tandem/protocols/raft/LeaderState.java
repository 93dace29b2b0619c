package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.TreeMap;

/**
 * A leader's state for one term, created when the node becomes leader and dropped when it steps
 * down, so nothing of it can outlive the leadership or be reached by follower code:
 * <ul>
 *   <li>{@link #peers}: per follower and learner replication progress, each with its bounded
 *       in-flight window (§5.3; DESIGN §3 rule 2);</li>
 *   <li>{@link #commits}: the commit path as quorum rounds (§5.3, §5.4.2; DESIGN §3 rule 1);</li>
 *   <li>{@link #termStartIndex}: the index of the no-op this leader appended (§8): until it commits,
 *       the leader knows neither the commit index nor a read index, and changes no membership;</li>
 *   <li>{@link #uncommittedBytes}: admission control over what waits for a quorum;</li>
 *   <li>{@link #reads}: ReadIndex and lease bookkeeping (thesis §6.4);</li>
 *   <li>{@link #snapshots}: snapshot transfers to followers (§7);</li>
 *   <li>{@link #transfer}: a leadership transfer in progress (thesis §3.10), or null.</li>
 * </ul>
 */
final class LeaderState implements RoleState {
    final Map<NodeId, Peer> peers = new TreeMap<>();
    final CommitTracker commits;
    final long termStartIndex;
    long uncommittedBytes;
    /**
     * The last command appended since the newest commit round was proposed, 0 if none: commands wait
     * for their quorum from the end of their batch (see RaftEngine#onReplicateTimer).
     */
    long unproposedThrough;
    final LeaderReads reads;
    final SnapshotSender snapshots;
    LeadershipTransfer transfer;
    /** The AppendEntries sent last, reused for the next follower that would get the same one (see RaftEngine.appendFor). */
    RaftMessage.AppendEntries lastAppend;
    /**
     * The payloads this leader appended and has not yet delivered, in index order, the first at
     * {@link #firstOwnPayload}: its own entries are delivered from them, not decoded from the log's bytes
     * again (issue 25). A leader never changes its log in its term, so the payload at an index is the
     * entry there; the queue goes with this state when the leadership ends.
     */
    final ArrayDeque<EntryPayload> ownPayloads = new ArrayDeque<>();
    long firstOwnPayload;

    /** Remembers the payload appended at {@code index}, the next index after the last one remembered. */
    void appended(long index, EntryPayload payload) {
        if (ownPayloads.isEmpty()) firstOwnPayload = index;
        else if (index != firstOwnPayload + ownPayloads.size()) { // never: a leader appends one index after another
            ownPayloads.clear();
            firstOwnPayload = index;
        }
        ownPayloads.addLast(payload);
    }

    /** The payload this leader appended at {@code index}, or null; forgets it and every earlier one (delivery is in index order). */
    EntryPayload takeOwnPayload(long index) {
        while (!ownPayloads.isEmpty() && firstOwnPayload < index) {
            ownPayloads.pollFirst();
            firstOwnPayload++;
        }
        if (ownPayloads.isEmpty() || firstOwnPayload != index) return null;
        firstOwnPayload++;
        return ownPayloads.pollFirst();
    }

    LeaderState(CommitTracker commits, long termStartIndex, LeaderReads reads, SnapshotSender snapshots) {
        this.commits = commits;
        this.termStartIndex = termStartIndex;
        this.reads = reads;
        this.snapshots = snapshots;
    }

    /** True once an entry of this leader's term committed (§5.4.2, thesis §6.4). */
    boolean termCommitted(long commitIndex) {
        return commitIndex >= termStartIndex;
    }

    @Override
    public String toString() {
        return "leader{termStart=" + termStartIndex + " peers=" + peers.values() + "}";
    }
}
