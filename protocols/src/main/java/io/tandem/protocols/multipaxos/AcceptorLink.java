package io.tandem.protocols.multipaxos;

import io.tandem.engine.NodeId;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * What the leader knows about one acceptor while it runs Phase 2 (DESIGN §3 rule 2): the bounded
 * window of Phase 2a messages sent and not yet answered, how far proposals were sent, when it last
 * answered, and its round-trip time. An acceptor whose window is full gets nothing new; since a
 * chosen slot needs no further votes, it simply resumes at the first undecided slot once it
 * answers, so a slow acceptor never builds up a queue at the leader.
 */
final class AcceptorLink {
    record Inflight(long firstSlot, long lastSlot, int bytes, long sentAt) {}

    final NodeId id;
    final long bit;
    final ArrayDeque<Inflight> inflight = new ArrayDeque<>();
    long inflightBytes;
    /** Proposals up to this slot were sent (or were decided without needing this acceptor). */
    long sentThrough;
    long lastHeardAt;
    long lastProgressAt;
    long lastResendAt = Long.MIN_VALUE / 2;
    long srttNanos;
    long rttVarNanos;
    /** Resends since the acceptor last answered a Phase 2a; each doubles the resend timeout (up to 8x). */
    int resendsWithoutProgress;
    long lastResendFrom = -1;
    int resendsOfSameRange;

    AcceptorLink(NodeId id, long bit, long sentThrough, long now) {
        this.id = id;
        this.bit = bit;
        this.sentThrough = sentThrough;
        this.lastHeardAt = now;
        this.lastProgressAt = now;
    }

    boolean windowFull(int maxMessages, int maxBytes) {
        return inflight.size() >= maxMessages || inflightBytes >= maxBytes;
    }

    void sent(long firstSlot, long lastSlot, int bytes, long now) {
        inflight.addLast(new Inflight(firstSlot, lastSlot, bytes, now));
        inflightBytes += bytes;
        sentThrough = Math.max(sentThrough, lastSlot);
    }

    /** The acceptor answered the Phase 2a that started at {@code firstSlot}: free its window slot, sample the round trip. */
    void answered(long firstSlot, long now) {
        lastHeardAt = now;
        for (Iterator<Inflight> it = inflight.iterator(); it.hasNext(); ) {
            Inflight f = it.next();
            if (f.firstSlot() == firstSlot) {
                it.remove();
                inflightBytes -= f.bytes();
                sampleRoundTrip(now - f.sentAt());
                break;
            }
        }
        lastProgressAt = now;
        resendsWithoutProgress = 0;
        resendsOfSameRange = 0;
    }

    /** One round-trip sample (RFC 6298). */
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

    /** At least the configured interval and the retransmission timeout, doubled per fruitless resend. */
    long resendTimeout(long resendIntervalNanos) {
        long base = Math.max(resendIntervalNanos, srttNanos + 4 * rttVarNanos);
        return base << Math.min(resendsWithoutProgress, 3);
    }

    /** Forgets the messages in flight (presumed lost or hopelessly late), freeing the window without resending anything. */
    void forgetInflight() {
        inflight.clear();
        inflightBytes = 0;
    }

    /** Forgets the messages in flight (they are presumed lost) and rewinds to resend from {@code fromSlot}. */
    void rewind(long fromSlot) {
        inflight.clear();
        inflightBytes = 0;
        sentThrough = fromSlot - 1;
    }

    @Override
    public String toString() {
        return id + "{sent=" + sentThrough + " inflight=" + inflight.size() + "/" + inflightBytes + "B}";
    }
}
