package io.tandem.protocols.failslow;

import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A leader's fail-slow detector (DESIGN §3 rule 5, DepFast's three pattern detectors), for every
 * engine. It reads the engine's own bookkeeping ({@link PeerLink}s and the quorums its
 * {@link QuorumTracker}s formed), exports it as meters, and raises warnings through
 * {@link Meters#slownessWarning} (which rate-limits the log):
 *
 * <ul>
 *   <li>{@code outbox-over-cap}: a peer's in-flight window exceeded its bound (backlog, pattern B);</li>
 *   <li>{@code resend-storm}: the same range was resent to a peer more than twice in a row (pattern A);</li>
 *   <li>{@code single-peer-wait}: quorums completed only when every member answered, so the last one
 *       alone decided their latency (a wait that is not quorum-tolerant);</li>
 *   <li>{@code same-quorum}: over a whole window of quorums, the members that took part always made up
 *       the same minimal quorum, so every decision depends on them and any hiccup of theirs reaches
 *       clients (transient susceptibility, pattern C).</li>
 * </ul>
 *
 * A healthy group raises none of them; a group with a slow minority raises only {@code same-quorum},
 * as DepFast's detector does. Time is passed in; the engine samples on its own timer.
 */
public final class SlownessDetector {
    public static final String OUTBOX_OVER_CAP = "outbox-over-cap";
    public static final String RESEND_STORM = "resend-storm";
    public static final String SINGLE_PEER_WAIT = "single-peer-wait";
    public static final String SAME_QUORUM = "same-quorum";
    /** Every warning kind this detector raises. */
    public static final Set<String> KINDS = Set.of(OUTBOX_OVER_CAP, RESEND_STORM, SINGLE_PEER_WAIT, SAME_QUORUM);

    /**
     * What an engine calls things, for meter names and warning texts.
     *
     * @param peerMeters     prefix of per-peer meters: {@code .inflight}, {@code .inflight_bytes}, {@code .resends},
     *                       {@code .single_peer_waits} (e.g. {@code tandem.raft.peer})
     * @param decisionMeters prefix of decision meters: {@code .overdue}, {@code .quorum_wait_nanos} (e.g. {@code tandem.raft.commit})
     * @param lagMeters      prefix of the {@code .lag} gauge (e.g. {@code tandem.raft.peer})
     * @param positions      what a resent range holds (e.g. "entries", "slots")
     * @param decisions      what one formed quorum decides (e.g. "commit quorums", "chosen slots")
     * @param answering      how a member takes part in one (e.g. "answered", "voted")
     */
    public record Vocabulary(String peerMeters, String decisionMeters, String lagMeters, String positions, String decisions, String answering) {}

    /** The members that formed one quorum, and when. */
    private record Formed(long at, Collection<NodeId> members) {}

    private record PeerMeters(Meters.Gauge inflight, Meters.Gauge inflightBytes, Meters.Counter resends, Meters.Counter singlePeerWaits) {}

    private final Meters meters;
    private final Vocabulary words;
    private final int window;
    private final long minSpanNanos;
    private final ArrayDeque<Formed> history = new ArrayDeque<>();
    private final Map<NodeId, Long> singlePeerWaits = new TreeMap<>();
    private final Map<NodeId, PeerMeters> peerMeters = new HashMap<>();
    private final Map<NodeId, Meters.Gauge> lag = new HashMap<>();
    private final Meters.Counter overdue;
    private final Meters.Distribution quorumWait;
    private final Map<String, Long> warningsByKind = new TreeMap<>();
    private long warnings;

    /**
     * @param window       quorums a same-quorum verdict needs at least
     * @param minSpanNanos and the time they must span at least: a member left out for a moment (one
     *                     lost message) is not "always left out", however many decisions that moment holds
     */
    public SlownessDetector(Meters meters, Vocabulary words, int window, long minSpanNanos) {
        this.meters = meters;
        this.words = words;
        this.window = window;
        this.minSpanNanos = minSpanNanos;
        this.overdue = meters.counter(words.decisionMeters() + ".overdue");
        this.quorumWait = meters.distribution(words.decisionMeters() + ".quorum_wait_nanos");
    }

    private PeerMeters peer(NodeId id) {
        return peerMeters.computeIfAbsent(id, p -> new PeerMeters(
                meters.gauge(words.peerMeters() + ".inflight", "peer", p.value()),
                meters.gauge(words.peerMeters() + ".inflight_bytes", "peer", p.value()),
                meters.counter(words.peerMeters() + ".resends", "peer", p.value()),
                meters.counter(words.peerMeters() + ".single_peer_waits", "peer", p.value())));
    }

    /** Warnings raised by this detector since the engine started. */
    public long warnings() {
        return warnings;
    }

    public Map<String, Long> warningsByKind() {
        return Collections.unmodifiableMap(warningsByKind);
    }

    /** A resend to {@code peer} from {@code from}; {@code sameRangeCount} counts resends in a row of that range (0: not a data resend). */
    public void resent(NodeId peer, long from, int sameRangeCount) {
        peer(peer).resends().increment();
        if (sameRangeCount > 2) {
            warn(RESEND_STORM, peer, words.positions() + " from " + from + " were resent " + sameRangeCount + " times in a row");
        }
    }

    /** {@code count} waits passed their deadline undecided. */
    public void overdue(long count) {
        if (count > 0) overdue.increment(count);
    }

    /**
     * A quorum formed from {@code members} after {@code waitedNanos}; {@code decidedBy} gave the deciding
     * answer. If the quorum took every one of the {@code groupSize} members, that last member alone decided
     * when. In groups of one or two every quorum needs every member, which is inherent, not a symptom.
     * The detector keeps {@code members} for a window of decisions: pass a collection nobody changes later.
     */
    public void quorumFormed(Collection<NodeId> members, NodeId decidedBy, int groupSize, long waitedNanos, long now) {
        quorumWait.record(waitedNanos);
        if (members.size() >= groupSize && groupSize > 2 && decidedBy != null) {
            singlePeerWaits.merge(decidedBy, 1L, Long::sum);
            peer(decidedBy).singlePeerWaits().increment();
        }
        history.addLast(new Formed(now, members));
        // Keep at least `window` quorums and at least `minSpanNanos` of them.
        while (history.size() > window && now - history.peekFirst().at() > minSpanNanos) history.pollFirst();
    }

    /** Forgets the quorum history, e.g. when leadership or membership changed. */
    public void resetQuorumHistory() {
        history.clear();
        singlePeerWaits.clear();
    }

    /** Samples one link's window into meters; warns if it holds more than its bound. {@code context} ends the warning text. */
    public void sampleLink(PeerLink link, int maxMessages, long maxBytes, String context) {
        PeerMeters m = peer(link.peer());
        m.inflight().set(link.inflightMessages());
        m.inflightBytes().set(link.inflightBytes());
        if (link.overCap(maxMessages, maxBytes)) {
            warn(OUTBOX_OVER_CAP, link.peer(), link.inflightMessages() + " messages / " + link.inflightBytes() + " bytes in flight, bound "
                    + maxMessages + " / " + maxBytes + context);
        }
    }

    /** How far {@code peer} is behind, in the engine's positions. */
    public void lag(NodeId peer, long behind) {
        lag.computeIfAbsent(peer, p -> meters.gauge(words.lagMeters() + ".lag", "peer", p.value())).set(Math.max(0, behind));
    }

    /**
     * The quorum rules, on the leader's detector timer: single-peer waits seen since the last sample,
     * and whether the quorums of the last window all came from one minimal quorum of {@code group}
     * under {@code rule}.
     */
    public void sampleQuorums(Collection<NodeId> group, QuorumRule rule, long now) {
        for (Map.Entry<NodeId, Long> e : singlePeerWaits.entrySet()) {
            warn(SINGLE_PEER_WAIT, e.getKey(), e.getValue() + " " + words.decisions() + " completed only when " + e.getKey() + " "
                    + words.answering() + ", with no member to spare: the wait depended on a single peer");
        }
        singlePeerWaits.clear();
        boolean longEnough = history.size() >= window && now - history.peekFirst().at() >= minSpanNanos;
        if (!longEnough) return;
        Set<NodeId> active = new TreeSet<>();
        for (Formed f : history) active.addAll(f.members());
        active.retainAll(group);
        Set<NodeId> inactive = new TreeSet<>(group);
        inactive.removeAll(active);
        if (!inactive.isEmpty() && rule.isMinimalQuorum(active)) {
            for (NodeId n : inactive) {
                warn(SAME_QUORUM, n, "the last " + history.size() + " " + words.decisions() + " (" + (now - history.peekFirst().at()) / 1_000_000
                        + " ms) never waited for " + n + "; every one depends on " + active + ", so a hiccup of any of them reaches clients");
            }
            history.clear(); // report again only after another full window
        }
    }

    private void warn(String kind, NodeId peer, String detail) {
        warnings++;
        warningsByKind.merge(kind, 1L, Long::sum);
        meters.slownessWarning(kind, peer, detail);
    }
}
