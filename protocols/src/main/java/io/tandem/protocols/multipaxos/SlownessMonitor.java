package io.tandem.protocols.multipaxos;

import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The leader's fail-slow detector (DESIGN §3 rule 5), in the manner of the Raft engine's: it exports
 * per-acceptor meters and raises rate-limited warnings through {@link Meters#slownessWarning}:
 *
 * <ul>
 *   <li>{@code outbox-over-cap}: an acceptor's window of Phase 2a messages exceeded its bound;</li>
 *   <li>{@code resend-storm}: the same slots were resent to an acceptor more than twice in a row;</li>
 *   <li>{@code single-peer-wait}: slots were chosen only once every acceptor had voted, so the last one
 *       alone decided their latency;</li>
 *   <li>{@code same-quorum}: over a whole window of chosen slots, the acceptors that voted in time were
 *       always the same minimal write quorum, so any hiccup of theirs reaches clients.</li>
 * </ul>
 *
 * A healthy group raises none; a slow minority shows up only as {@code same-quorum}.
 */
final class SlownessMonitor {
    static final String OUTBOX_OVER_CAP = "outbox-over-cap";
    static final String RESEND_STORM = "resend-storm";
    static final String SINGLE_PEER_WAIT = "single-peer-wait";
    static final String SAME_QUORUM = "same-quorum";

    private record Decision(long at, long voters) {}

    private record LinkMeters(Meters.Gauge inflight, Meters.Gauge inflightBytes, Meters.Counter resends, Meters.Counter singlePeerWaits) {}

    private final Meters meters;
    private final QuorumSystem quorums;
    private final int window;
    private final long minSpanNanos;
    private final ArrayDeque<Decision> history = new ArrayDeque<>();
    private final Map<NodeId, Long> singlePeerWaits = new TreeMap<>();
    private final Map<NodeId, LinkMeters> linkMeters = new HashMap<>();
    private final Map<NodeId, Meters.Gauge> replicaLag = new HashMap<>();
    private final Meters.Counter overdue;
    private final Meters.Counter chosen;
    private final Meters.Distribution chooseWait;
    private final Map<String, Long> warningsByKind = new TreeMap<>();

    SlownessMonitor(Meters meters, QuorumSystem quorums, int window, long minSpanNanos) {
        this.meters = meters;
        this.quorums = quorums;
        this.window = window;
        this.minSpanNanos = minSpanNanos;
        this.overdue = meters.counter("tandem.multipaxos.slot.overdue");
        this.chosen = meters.counter("tandem.multipaxos.slot.chosen");
        this.chooseWait = meters.distribution("tandem.multipaxos.slot.quorum_wait_nanos");
    }

    private LinkMeters link(NodeId id) {
        return linkMeters.computeIfAbsent(id, p -> new LinkMeters(
                meters.gauge("tandem.multipaxos.acceptor.inflight", "peer", p.value()),
                meters.gauge("tandem.multipaxos.acceptor.inflight_bytes", "peer", p.value()),
                meters.counter("tandem.multipaxos.acceptor.resends", "peer", p.value()),
                meters.counter("tandem.multipaxos.acceptor.single_peer_waits", "peer", p.value())));
    }

    /** A resend to {@code acceptor} from {@code fromSlot}; {@code sameRangeCount} counts resends in a row of that range. */
    void resent(NodeId acceptor, long fromSlot, int sameRangeCount) {
        link(acceptor).resends().increment();
        if (sameRangeCount > 2) warn(RESEND_STORM, acceptor, "slots from " + fromSlot + " were resent " + sameRangeCount + " times in a row");
    }

    void overdue(int slots) {
        if (slots > 0) overdue.increment(slots);
    }

    /**
     * Slot chosen by the write quorum {@code voters} after {@code waitedNanos}; {@code decidedBy} cast the
     * deciding vote. If no acceptor was left to spare, that acceptor alone decided when.
     */
    void slotChosen(long voters, NodeId decidedBy, long waitedNanos, long now) {
        chosen.increment();
        chooseWait.record(waitedNanos);
        int n = quorums.members().size();
        if (Long.bitCount(voters) == n && n > 2 && decidedBy != null) {
            singlePeerWaits.merge(decidedBy, 1L, Long::sum);
            link(decidedBy).singlePeerWaits().increment();
        }
        history.addLast(new Decision(now, voters));
        while (history.size() > window && now - history.peekFirst().at() > minSpanNanos) history.pollFirst();
    }

    /** Forgets the quorum history (a new leadership). */
    void reset() {
        history.clear();
        singlePeerWaits.clear();
    }

    /** Periodic sample on the leader. */
    void sample(Collection<AcceptorLink> links, int maxInflightMessages, long maxInflightBytes, Map<NodeId, Long> replicaExecuted, long chosenThrough,
                long now) {
        for (AcceptorLink l : links) {
            LinkMeters m = link(l.id);
            m.inflight().set(l.inflight.size());
            m.inflightBytes().set(l.inflightBytes);
            if (l.inflight.size() > maxInflightMessages || l.inflightBytes > maxInflightBytes) {
                warn(OUTBOX_OVER_CAP, l.id, l.inflight.size() + " messages / " + l.inflightBytes + " bytes in flight, bound "
                        + maxInflightMessages + " / " + maxInflightBytes);
            }
        }
        for (Map.Entry<NodeId, Long> e : replicaExecuted.entrySet()) {
            replicaLag.computeIfAbsent(e.getKey(), p -> meters.gauge("tandem.multipaxos.replica.lag", "peer", p.value()))
                    .set(Math.max(0, chosenThrough - e.getValue()));
        }
        for (Map.Entry<NodeId, Long> e : singlePeerWaits.entrySet()) {
            warn(SINGLE_PEER_WAIT, e.getKey(), e.getValue() + " slots were chosen only when " + e.getKey()
                    + " voted, with no acceptor to spare: the decision waited on a single peer");
        }
        singlePeerWaits.clear();
        boolean longEnough = history.size() >= window && now - history.peekFirst().at() >= minSpanNanos;
        if (!longEnough) return;
        long active = 0;
        for (Decision d : history) active |= d.voters();
        long inactive = quorums.all() & ~active;
        if (inactive != 0 && isMinimalWriteQuorum(active)) {
            for (NodeId n : quorums.membersOf(inactive)) {
                warn(SAME_QUORUM, n, "the last " + history.size() + " chosen slots (" + (now - history.peekFirst().at()) / 1_000_000 + " ms) never waited for "
                        + n + "; every decision depends on " + quorums.membersOf(active) + ", so a hiccup of any of them reaches clients");
            }
            history.clear(); // report again only after another full window
        }
    }

    private boolean isMinimalWriteQuorum(long set) {
        if (!quorums.isWriteQuorum(set)) return false;
        for (long rest = set; rest != 0; rest &= rest - 1) {
            long member = Long.lowestOneBit(rest);
            if (quorums.isWriteQuorum(set & ~member)) return false;
        }
        return true;
    }

    long warnings() {
        long n = 0;
        for (long v : warningsByKind.values()) n += v;
        return n;
    }

    Map<String, Long> warningsByKind() {
        return Collections.unmodifiableMap(warningsByKind);
    }

    private void warn(String kind, NodeId peer, String detail) {
        warningsByKind.merge(kind, 1L, Long::sum);
        meters.slownessWarning(kind, peer, detail);
    }
}
