package io.tandem.protocols.multipaxos;

import io.tandem.engine.NodeId;
import io.tandem.protocols.failslow.PeerLink;

/**
 * What the leader knows about one acceptor while it runs Phase 2 (DESIGN §3 rule 2): the shared
 * {@link PeerLink} (the bounded window of Phase 2a messages sent and not yet answered, round trips,
 * the resend timer) and how far proposals were sent. An acceptor whose window is full gets nothing
 * new; since a chosen slot needs no further votes, it simply resumes at the first undecided slot once
 * it answers, so a slow acceptor never builds up a queue at the leader.
 */
final class AcceptorLink {
    final NodeId id;
    final long bit;
    final PeerLink link;
    /** Proposals up to this slot were sent (or were decided without needing this acceptor). */
    long sentThrough;
    /**
     * Every slot of this ballot from its first up to here left for this node, in an Accept or in a Chosen with its
     * value (session 21): a replica on the node holds those values, so a chosen claim is all it needs for them.
     * Soft: a lost message only sends that replica to catch-up.
     */
    long heldThrough;
    /** The highest chosen claim sent to this node (on an Accept or alone). */
    long claimedThrough;

    AcceptorLink(NodeId id, long bit, long sentThrough, long now) {
        this.id = id;
        this.bit = bit;
        this.sentThrough = sentThrough;
        this.heldThrough = sentThrough;
        this.link = new PeerLink(id, now);
    }

    void sent(long firstSlot, long lastSlot, int bytes, long now) {
        link.sent(firstSlot, lastSlot, bytes, now);
        sentThrough = Math.max(sentThrough, lastSlot);
        reached(firstSlot, lastSlot);
    }

    /** The values of slots {@code firstSlot..lastSlot} left for this node; {@link #heldThrough} grows only without a gap. */
    void reached(long firstSlot, long lastSlot) {
        if (firstSlot <= heldThrough + 1) heldThrough = Math.max(heldThrough, lastSlot);
    }

    /** The acceptor answered the Phase 2a that started at {@code firstSlot}: free its window slot, sample the round trip. */
    void answered(long firstSlot, long now) {
        link.heard(now);
        link.acknowledged(firstSlot, now);
        link.progressed(now);
    }

    /** Forgets the messages in flight (they are presumed lost) and rewinds to resend from {@code fromSlot}. */
    void rewind(long fromSlot) {
        link.clearInflight();
        sentThrough = fromSlot - 1;
    }

    @Override
    public String toString() {
        return id + "{sent=" + sentThrough + " " + link + "}";
    }
}
