package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;
import io.tandem.engine.Committed;
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
     * The entries this leader appended and has not yet delivered, in index order, the first at
     * {@link #firstOwn}, each as the {@link Committed} it delivers: its own entries are delivered from them, not
     * decoded from the log's bytes again (issue 25), and built when appended, so a client command costs one object
     * here rather than a payload record kept until commit and then a {@link Committed} (alloc21). A leader never
     * changes its log in its term, so the entry at an index is the one appended there; the queue goes with this
     * state when the leadership ends.
     */
    final ArrayDeque<Committed> ownEntries = new ArrayDeque<>();
    long firstOwn;

    /** Remembers the entry appended at {@code index}, the next index after the last one remembered. */
    void appended(long index, Committed entry) {
        if (ownEntries.isEmpty()) firstOwn = index;
        else if (index != firstOwn + ownEntries.size()) { // never: a leader appends one index after another
            ownEntries.clear();
            firstOwn = index;
        }
        ownEntries.addLast(entry);
    }

    /** The entry this leader appended at {@code index}, or null; forgets it and every earlier one (delivery is in index order). */
    Committed takeOwn(long index) {
        while (!ownEntries.isEmpty() && firstOwn < index) {
            ownEntries.pollFirst();
            firstOwn++;
        }
        if (ownEntries.isEmpty() || firstOwn != index) return null;
        firstOwn++;
        return ownEntries.pollFirst();
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
