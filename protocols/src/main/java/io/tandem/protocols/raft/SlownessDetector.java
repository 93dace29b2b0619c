package io.tandem.protocols.raft;

import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The leader's fail-slow detector (DESIGN §3 rule 5, DepFast's three pattern detectors). It reads
 * the engine's own bookkeeping, exports it as meters, and raises rate-limited warnings through
 * {@link Meters#slownessWarning}:
 *
 * <ul>
 *   <li>{@code outbox-over-cap}: a peer's in-flight window exceeded its bound (backlog, pattern B);</li>
 *   <li>{@code resend-storm}: the same entries were resent to a peer more than twice (pattern A);</li>
 *   <li>{@code single-peer-wait}: commit quorums completed only when every voter answered, so one
 *       peer decided their latency (a wait that is not quorum-tolerant);</li>
 *   <li>{@code same-quorum}: over a whole window of commit quorums, n-k voters never took part, so
 *       every commit depends on the same k members and any hiccup of theirs reaches clients
 *       (transient susceptibility, pattern C).</li>
 * </ul>
 *
 * A healthy group raises none of them; a group with a slow minority raises only {@code same-quorum},
 * as DepFast's detector does.
 */
final class SlownessDetector {
    static final String OUTBOX_OVER_CAP = "outbox-over-cap";
    static final String RESEND_STORM = "resend-storm";
    static final String SINGLE_PEER_WAIT = "single-peer-wait";
    static final String SAME_QUORUM = "same-quorum";

    /** The members that formed one commit quorum, and when. */
    private record Quorum(long at, List<NodeId> responders) {}

    private final Meters meters;
    private final int window;
    private final long minSpanNanos;
    private final ArrayDeque<Quorum> quorumHistory = new ArrayDeque<>();
    private final Map<NodeId, Long> singlePeerWaits = new TreeMap<>();
    private final Map<NodeId, PeerMeters> peerMeters = new HashMap<>();
    private final Meters.Counter overdueCommits;
    private final Meters.Counter clientMessages;
    private final Meters.Counter backgroundMessages;
    private final Meters.Distribution commitWait;
    private long warnings;
    private final Map<String, Long> warningsByKind = new TreeMap<>();

    private record PeerMeters(Meters.Gauge inflight, Meters.Gauge inflightBytes, Meters.Gauge lag, Meters.Counter resends,
                              Meters.Counter singlePeerWaits) {}

    /**
     * @param window       commit quorums a same-quorum verdict needs at least
     * @param minSpanNanos and the time they must span at least: a member left out for a moment (one
     *                     lost message) is not "always left out", however many commits that moment holds
     */
    SlownessDetector(Meters meters, int window, long minSpanNanos) {
        this.meters = meters;
        this.window = window;
        this.minSpanNanos = minSpanNanos;
        this.overdueCommits = meters.counter("tandem.raft.commit.overdue");
        this.clientMessages = meters.counter("tandem.raft.messages.sent", "cause", "client");
        this.backgroundMessages = meters.counter("tandem.raft.messages.sent", "cause", "background");
        this.commitWait = meters.distribution("tandem.raft.commit.quorum_wait_nanos");
    }

    private PeerMeters peer(NodeId id) {
        return peerMeters.computeIfAbsent(id, p -> new PeerMeters(
                meters.gauge("tandem.raft.peer.inflight", "peer", p.value()),
                meters.gauge("tandem.raft.peer.inflight_bytes", "peer", p.value()),
                meters.gauge("tandem.raft.peer.lag", "peer", p.value()),
                meters.counter("tandem.raft.peer.resends", "peer", p.value()),
                meters.counter("tandem.raft.peer.single_peer_waits", "peer", p.value())));
    }

    /** Warnings raised by this detector since the engine started. */
    long warnings() {
        return warnings;
    }

    Map<String, Long> warningsByKind() {
        return java.util.Collections.unmodifiableMap(warningsByKind);
    }

    void messageSent(long requestId) {
        (requestId == 0 ? backgroundMessages : clientMessages).increment();
    }

    /** A resend to {@code peer} starting at {@code fromIndex}; {@code sameRangeCount} counts resends in a row of that range. */
    void resent(NodeId peer, long fromIndex, int sameRangeCount) {
        peer(peer).resends().increment();
        if (sameRangeCount > 2) {
            warn(RESEND_STORM, peer, "entries from " + fromIndex + " were resent " + sameRangeCount + " times in a row");
        }
    }

    void commitOverdue(long target) {
        overdueCommits.increment();
    }

    /** A commit quorum of {@code votersCount} voters completed. In groups of one or two every commit needs every voter, which is inherent. */
    void commitCompleted(CommitTracker.Completed c, int votersCount, long now) {
        if (!c.incremental()) return; // decided when created: nobody was waited for
        commitWait.record(c.waitedNanos());
        if (c.spareMembers() == 0 && votersCount > 2 && c.decidedBy() != null) {
            // Every voter had to answer: the last one alone decided when the commit happened.
            singlePeerWaits.merge(c.decidedBy(), 1L, Long::sum);
            peer(c.decidedBy()).singlePeerWaits().increment();
        }
        quorumHistory.addLast(new Quorum(now, c.responders()));
        // Keep at least `window` quorums and at least `minSpanNanos` of them.
        while (quorumHistory.size() > window && now - quorumHistory.peekFirst().at() > minSpanNanos) quorumHistory.pollFirst();
    }

    /** Forgets quorum history, e.g. when leadership or membership changed. */
    void resetQuorumHistory() {
        quorumHistory.clear();
        singlePeerWaits.clear();
    }

    /** Periodic sample on the leader: meters per peer and the rules above. */
    void sample(Collection<Peer> peers, long lastIndex, int maxInflightMessages, long maxInflightBytes, Set<NodeId> voters, int required, long now) {
        for (Peer p : peers) {
            PeerMeters m = peer(p.id);
            m.inflight().set(p.inflight.size());
            m.inflightBytes().set(p.inflightBytes);
            m.lag().set(Math.max(0, lastIndex - p.match));
            if (p.inflight.size() > maxInflightMessages || p.inflightBytes > maxInflightBytes) {
                warn(OUTBOX_OVER_CAP, p.id, p.inflight.size() + " messages / " + p.inflightBytes + " bytes in flight, bound "
                        + maxInflightMessages + " / " + maxInflightBytes + ", lag " + (lastIndex - p.match) + " entries");
            }
        }
        for (Map.Entry<NodeId, Long> e : singlePeerWaits.entrySet()) {
            warn(SINGLE_PEER_WAIT, e.getKey(), e.getValue() + " commit quorums completed only when " + e.getKey()
                    + " answered, with no member to spare: the commit waited on a single peer");
        }
        singlePeerWaits.clear();
        boolean longEnough = quorumHistory.size() >= window && now - quorumHistory.peekFirst().at() >= minSpanNanos;
        if (longEnough && voters.size() > required) {
            Map<NodeId, Integer> contributions = new TreeMap<>();
            for (NodeId v : voters) contributions.put(v, 0);
            for (Quorum q : quorumHistory) {
                for (NodeId n : q.responders()) contributions.computeIfPresent(n, (k, c) -> c + 1);
            }
            List<NodeId> inactive = contributions.entrySet().stream().filter(e -> e.getValue() == 0).map(Map.Entry::getKey).toList();
            if (!inactive.isEmpty() && inactive.size() == voters.size() - required) {
                List<NodeId> active = contributions.entrySet().stream().filter(e -> e.getValue() > 0).map(Map.Entry::getKey).toList();
                for (NodeId n : inactive) {
                    warn(SAME_QUORUM, n, "the last " + quorumHistory.size() + " commit quorums (" + (now - quorumHistory.peekFirst().at()) / 1_000_000
                            + " ms) never included " + n
                            + "; every commit depends on " + active + ", so a hiccup of any of them reaches clients");
                }
                quorumHistory.clear(); // report again only after another full window
            }
        }
    }

    private void warn(String kind, NodeId peer, String detail) {
        warnings++;
        warningsByKind.merge(kind, 1L, Long::sum);
        meters.slownessWarning(kind, peer, detail);
    }
}
