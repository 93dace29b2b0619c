package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;
import io.tandem.protocols.failslow.PeerLink;
import io.tandem.storage.SnapshotMeta;

/**
 * What a leader knows about one follower or learner, and the follower's replication mode. All
 * state that depends on this peer's speed lives here and is bounded (DESIGN §3 rule 2): the
 * {@link PeerLink} (in-flight window in messages and bytes, round trips, resend timer), the
 * outstanding probe, the snapshot transfer. A peer
 * that cannot keep up stops receiving new data when its window is full and is moved to catch-up
 * (a probe, or a snapshot when the entries it needs are compacted) instead of growing a queue.
 */
final class Peer {
    /**
     * PROBE: one message at a time until we know where the follower's log matches ours.
     * REPLICATE: pipelined AppendEntries, bounded by the in-flight window.
     * SNAPSHOT: the follower needs compacted entries and receives a snapshot, one chunk at a time.
     */
    enum Mode { PROBE, REPLICATE, SNAPSHOT }

    final NodeId id;
    /** The in-flight window, round trips and resend timer: what depends only on the peer's speed. */
    final PeerLink link;
    Mode mode = Mode.PROBE;
    /** The next entry to send. */
    long next;
    /** The highest entry known to be durable on the peer and equal to ours. */
    long match;

    boolean probeOutstanding;
    long probePrev = -1;
    long probeSentAt;

    /** Highest heartbeat round the peer acknowledged in this term (ReadIndex, lease). */
    long ackedSeq;

    SnapshotMeta snapshot;
    Configuration snapshotConfig;
    /** Next snapshot offset the follower expects. */
    long snapshotOffset;
    boolean chunkOutstanding;
    long chunkSentAt;
    /** Token of the chunk read in progress, or 0. */
    long chunkReadToken;

    Peer(NodeId id, long next, long now) {
        this.id = id;
        this.next = next;
        this.link = new PeerLink(id, now);
    }

    /** Back to one-at-a-time from the last known match: every message in flight is forgotten. */
    void becomeProbe() {
        mode = Mode.PROBE;
        next = match + 1;
        link.clearInflight();
        probeOutstanding = false;
        probePrev = -1;
        snapshot = null;
        snapshotConfig = null;
        chunkOutstanding = false;
        chunkReadToken = 0;
    }

    void becomeReplicate() {
        mode = Mode.REPLICATE;
        next = match + 1;
        link.clearInflight();
        probeOutstanding = false;
        probePrev = -1;
    }

    @Override
    public String toString() {
        return id + "{" + mode + " next=" + next + " match=" + match + " " + link + "}";
    }
}
