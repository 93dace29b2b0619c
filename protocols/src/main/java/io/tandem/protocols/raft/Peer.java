package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;
import io.tandem.storage.SnapshotMeta;
import java.util.ArrayDeque;

/**
 * What a leader knows about one follower or learner, and the follower's replication mode. All
 * state that depends on this peer's speed lives here and is bounded (DESIGN §3 rule 2): the
 * in-flight window (messages and bytes), the outstanding probe, the snapshot transfer. A peer
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

    /** An AppendEntries sent and not yet acknowledged. */
    record Inflight(long lastIndex, int bytes, long sentAt) {}

    final NodeId id;
    Mode mode = Mode.PROBE;
    /** The next entry to send. */
    long next;
    /** The highest entry known to be durable on the peer and equal to ours. */
    long match;

    final ArrayDeque<Inflight> inflight = new ArrayDeque<>();
    long inflightBytes;

    boolean probeOutstanding;
    long probePrev = -1;
    long probeSentAt;

    /** When the peer last answered anything in this term (check-quorum, resend choice). */
    long lastHeardAt;
    /** When the peer last made progress (match advanced or a probe was answered). */
    long lastProgressAt;
    long lastResendAt = Long.MIN_VALUE / 2;
    /** Highest heartbeat round the peer acknowledged in this term (ReadIndex, lease). */
    long ackedSeq;
    /** Smoothed round-trip time to this peer and its variation (RFC 6298), 0 until measured. */
    long srttNanos;
    long rttVarNanos;
    /** The peer answered something since the last resend: data may be worth sending again. */
    boolean answeredSinceResend;
    /** Resends since the peer last made progress; each one doubles the resend timeout (up to 8x). */
    int resendsWithoutProgress;
    /** Data resends in a row that started at the same index; more than two is a resend storm. */
    long lastResendFrom = -1;
    int resendsOfSameRange;

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
        this.lastHeardAt = now;
        this.lastProgressAt = now;
    }

    boolean windowFull(int maxMessages, int maxBytes) {
        return inflight.size() >= maxMessages || inflightBytes >= maxBytes;
    }

    void sent(long lastIndex, int bytes, long now) {
        inflight.addLast(new Inflight(lastIndex, bytes, now));
        inflightBytes += bytes;
    }

    /** Frees window slots of messages the follower acknowledged and samples the round-trip time. */
    void acknowledged(long matchIndex, long now) {
        Inflight newest = null;
        while (!inflight.isEmpty() && inflight.peekFirst().lastIndex() <= matchIndex) {
            newest = inflight.pollFirst();
            inflightBytes -= newest.bytes();
        }
        if (newest != null) sampleRoundTrip(now - newest.sentAt());
    }

    /** One round-trip sample (RFC 6298): a sudden slowdown raises the timeout within one sample. */
    void sampleRoundTrip(long rtt) {
        if (rtt <= 0) return;
        if (srttNanos == 0) {
            srttNanos = rtt;
            rttVarNanos = rtt / 2;
        } else {
            rttVarNanos = (3 * rttVarNanos + Math.abs(srttNanos - rtt)) / 4;
            srttNanos = (7 * srttNanos + rtt) / 8;
        }
    }

    /**
     * How long the peer may go without progress before one resend: never less than the configured
     * interval, never less than its retransmission timeout (a slow peer is not a lost message),
     * doubled for each resend that brought no progress.
     */
    long resendTimeout(long resendIntervalNanos) {
        long base = Math.max(resendIntervalNanos, srttNanos + 4 * rttVarNanos);
        return base << Math.min(resendsWithoutProgress, 3);
    }

    void clearInflight() {
        inflight.clear();
        inflightBytes = 0;
    }

    /** Back to one-at-a-time from the last known match: every message in flight is forgotten. */
    void becomeProbe() {
        mode = Mode.PROBE;
        next = match + 1;
        clearInflight();
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
        clearInflight();
        probeOutstanding = false;
        probePrev = -1;
    }

    @Override
    public String toString() {
        return id + "{" + mode + " next=" + next + " match=" + match + " inflight=" + inflight.size() + "/" + inflightBytes + "B}";
    }
}
