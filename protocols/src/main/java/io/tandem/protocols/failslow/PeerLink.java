package io.tandem.protocols.failslow;

import io.tandem.engine.NodeId;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * A leader's link to one peer (a follower, an acceptor, a pilot): the part of what it knows about
 * the peer that depends only on the peer's speed (DESIGN §3 rule 2), the same for every engine.
 *
 * <ul>
 *   <li>A bounded in-flight window, in messages and bytes. Callers send nothing new while
 *       {@link #windowFull} holds, so a slow peer never grows a queue at the leader; what it missed
 *       reaches it later by catch-up, which the engine owns.</li>
 *   <li>A round-trip estimate (RFC 6298: smoothed mean and variation).</li>
 *   <li>A resend timer that adapts to that estimate and backs off: at least the configured interval
 *       and at least the retransmission timeout, so a slow peer is not mistaken for a lost message,
 *       doubled for each resend that brought no progress (up to 8x). Resends of the same range in a
 *       row are counted; more than two is a resend storm ({@link SlownessDetector#RESEND_STORM}).</li>
 * </ul>
 *
 * Positions are the engine's: log indexes for Raft, slots for MultiPaxos. Pure bookkeeping: time is
 * passed in, nothing is scheduled.
 */
public final class PeerLink {
    /** A message sent and not yet answered, covering positions {@code first..last}. */
    public record InFlight(long first, long last, int bytes, long sentAt) {}

    /** How far the resend timeout backs off: 2^3 = 8 times the base. */
    private static final int MAX_BACKOFF_SHIFT = 3;

    private final NodeId peer;
    private final ArrayDeque<InFlight> inflight = new ArrayDeque<>();
    private long inflightBytes;
    private long srttNanos;
    private long rttVarNanos;
    private long lastHeardAt;
    private long lastProgressAt;
    private long lastResendAt = Long.MIN_VALUE / 2;
    private boolean answeredSinceResend;
    private int resendsWithoutProgress;
    private long lastResendFrom = -1;
    private int resendsOfSameRange;

    public PeerLink(NodeId peer, long now) {
        this.peer = peer;
        this.lastHeardAt = now;
        this.lastProgressAt = now;
    }

    public NodeId peer() {
        return peer;
    }

    // ---- the in-flight window ----

    /** True if nothing more may be sent: the window holds {@code maxMessages} or {@code maxBytes}. */
    public boolean windowFull(int maxMessages, long maxBytes) {
        return inflight.size() >= maxMessages || inflightBytes >= maxBytes;
    }

    /** True if the window holds more than its bound, which a correct sender never lets happen. */
    public boolean overCap(int maxMessages, long maxBytes) {
        return inflight.size() > maxMessages || inflightBytes > maxBytes;
    }

    public void sent(long first, long last, int bytes, long now) {
        inflight.addLast(new InFlight(first, last, bytes, now));
        inflightBytes += bytes;
    }

    /**
     * A cumulative acknowledgement (Raft's match index): frees every message that ends at or before
     * {@code through} and samples the round trip of the newest of them.
     */
    public void acknowledgedThrough(long through, long now) {
        InFlight newest = null;
        while (!inflight.isEmpty() && inflight.peekFirst().last() <= through) {
            newest = inflight.pollFirst();
            inflightBytes -= newest.bytes();
        }
        if (newest != null) sampleRoundTrip(now - newest.sentAt());
    }

    /** An answer to the one message that started at {@code first} (MultiPaxos' Phase 2b): frees it and samples its round trip. */
    public void acknowledged(long first, long now) {
        for (Iterator<InFlight> it = inflight.iterator(); it.hasNext(); ) {
            InFlight f = it.next();
            if (f.first() == first) {
                it.remove();
                inflightBytes -= f.bytes();
                sampleRoundTrip(now - f.sentAt());
                return;
            }
        }
    }

    /** Forgets the messages in flight (presumed lost or hopelessly late), freeing the window without resending anything. */
    public void clearInflight() {
        inflight.clear();
        inflightBytes = 0;
    }

    public int inflightMessages() {
        return inflight.size();
    }

    public long inflightBytes() {
        return inflightBytes;
    }

    /** The oldest message in flight, or null. */
    public InFlight oldestInflight() {
        return inflight.peekFirst();
    }

    // ---- round trips ----

    /** One round-trip sample (RFC 6298): a sudden slowdown raises the timeout within one sample. */
    public void sampleRoundTrip(long rtt) {
        if (rtt <= 0) return;
        if (srttNanos == 0) {
            srttNanos = rtt;
            rttVarNanos = rtt / 2;
        } else {
            rttVarNanos = (3 * rttVarNanos + Math.abs(srttNanos - rtt)) / 4;
            srttNanos = (7 * srttNanos + rtt) / 8;
        }
    }

    /** Smoothed round-trip time, 0 until measured. */
    public long srttNanos() {
        return srttNanos;
    }

    public long rttVarNanos() {
        return rttVarNanos;
    }

    // ---- liveness and progress ----

    /** The peer answered something. */
    public void heard(long now) {
        lastHeardAt = now;
        answeredSinceResend = true;
    }

    public long lastHeardAt() {
        return lastHeardAt;
    }

    /** The peer made progress: the no-progress wait restarts and the resend backoff is forgotten. */
    public void progressed(long now) {
        lastProgressAt = now;
        resendsWithoutProgress = 0;
        resendsOfSameRange = 0;
    }

    /** Restarts the no-progress wait without forgetting the backoff (the peer was given new work, e.g. a snapshot). */
    public void restartProgressWait(long now) {
        lastProgressAt = now;
    }

    public long lastProgressAt() {
        return lastProgressAt;
    }

    // ---- resends ----

    /**
     * How long the peer may go without progress before one resend: never less than the configured
     * interval, never less than its retransmission timeout (a slow peer is not a lost message),
     * doubled for each resend that brought no progress.
     */
    public long resendTimeout(long resendIntervalNanos) {
        long base = Math.max(resendIntervalNanos, srttNanos + 4 * rttVarNanos);
        return base << Math.min(resendsWithoutProgress, MAX_BACKOFF_SHIFT);
    }

    /** False while the previous resend is younger than {@code timeout}: at most one resend per timeout. */
    public boolean mayResend(long now, long timeout) {
        return now - lastResendAt >= timeout;
    }

    /**
     * Records a resend now and backs the timer off. Returns whether the peer answered anything since the
     * previous resend: one that did not is likely unreachable, and engines send it no data until it answers.
     */
    public boolean resending(long now) {
        boolean answered = answeredSinceResend;
        answeredSinceResend = false;
        lastResendAt = now;
        resendsWithoutProgress++;
        return answered;
    }

    /** Counts a resend of the range starting at {@code from}; returns how many resends in a row started there. */
    public int resentFrom(long from) {
        resendsOfSameRange = lastResendFrom == from ? resendsOfSameRange + 1 : 1;
        lastResendFrom = from;
        return resendsOfSameRange;
    }

    @Override
    public String toString() {
        return peer + "{inflight=" + inflight.size() + "/" + inflightBytes + "B srtt=" + srttNanos + "ns}";
    }
}
