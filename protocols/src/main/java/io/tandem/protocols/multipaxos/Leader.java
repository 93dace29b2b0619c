package io.tandem.protocols.multipaxos;

import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.RequestIds;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.failslow.PeerLink;
import io.tandem.protocols.failslow.QuorumTracker;
import io.tandem.protocols.failslow.SlownessDetector;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Accept;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Accepted;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Chosen;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ChosenThrough;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Decided;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Heartbeat;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.HeartbeatAck;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Nack;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Prepare;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Promise;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Propose;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ProposeBatch;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ProxyAccept;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ProposeRead;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ProposeRejected;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Recover;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ReplicaProgress;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToLeader;
import io.tandem.storage.StorageEvent;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The proposer and, once elected, the leader (spec §1.4, §1.6): it sequences commands into slots.
 *
 * <ul>
 *   <li><b>Election.</b> The active leader sends a {@link Heartbeat} every heartbeat interval. A
 *       proposer that hears none (from a ballot at least as high as any it knows) for a randomized
 *       election timeout starts Phase 1 with a fresh ballot above every ballot it has seen. It defers
 *       to higher ballots: a heartbeat, a Nack or an acceptor's answer carrying one makes it step down
 *       and wait a full randomized timeout before trying again, so proposers do not duel.</li>
 *   <li><b>Ballots are never reused.</b> The round of a new ballot is written to the meta store and
 *       Phase 1 starts only once that write is durable, so a restarted proposer always picks a higher
 *       round than any it used before (spec §6.7).</li>
 *   <li><b>Phase 1</b> covers every slot from the lowest one not known chosen (the replicas' executed
 *       prefix, reported through {@link ReplicaProgress}) at once; answers come in pages. With a read
 *       quorum of complete answers, {@link Phase1Merge} gives the value each open slot must carry
 *       (holes get no-ops), and the leader re-proposes them before anything new.</li>
 *   <li><b>Phase 2</b> runs per slot in a bounded {@link SlotWindow} (pipelining); consecutive slots
 *       travel in one Accept (batching), per acceptor within a bounded {@link AcceptorLink} window.
 *       A slot is chosen when a write quorum voted for it; the leader then tells the replicas and keeps
 *       recent chosen values to answer {@link Recover}. A replica on an acceptor's node holds the values of
 *       the Accepts its node received, so it gets only the chosen claim ({@link Accept#chosenThrough}), on
 *       the leader's next Accept to that node or, if none leaves within the linger, alone
 *       ({@link ChosenThrough}); other replicas (and values the node never got) get {@link Chosen}.</li>
 *   <li><b>Proxy leaders</b> (spec §2.1), when the deployment places them: the leader sends each
 *       run of new slots to one proxy, in stripes of consecutive slots per proxy, round-robin ({@link ProxyAccept}), and learns it chosen from
 *       the proxy's {@link Decided}, which reports several runs at once under load, so the leader
 *       handles about two messages per command (the command in, its run out); the proxy talks to the
 *       acceptors and replicas. Phase 1 stays
 *       with the leader. An undecided run is re-sent (to the next proxy) once per resend interval,
 *       so a crashed proxy costs an interval. Batches from batchers ({@link ProposeBatch}, spec
 *       §2.6) become consecutive slots, which travel as one run.</li>
 *   <li><b>Fail-slow rules</b> (DESIGN §3): decisions wait for quorums only; a slow acceptor's full
 *       window just means it gets nothing new; resends happen on the heartbeat timer, at most once
 *       per (RTT-adaptive, backed-off) interval per acceptor, only for slots that are overdue, and are
 *       counted; a {@link SlownessDetector} reports what it sees.</li>
 * </ul>
 */
class Leader {
    sealed interface Timer extends TimerKey {}

    private record ElectionTimer() implements Timer {}

    private record HeartbeatTimer() implements Timer {}

    private record CheckQuorumTimer() implements Timer {}

    private record Phase1Timer() implements Timer {}

    private record DetectorTimer() implements Timer {}

    /** Gives slots to the commands queued since the last pump and sends them; armed with no delay (see {@link #schedulePump}). */
    private record PumpTimer() implements Timer {}

    /** Sends the chosen claim alone to the nodes no Accept carried it to within the linger (see {@link #offerClaim}). */
    private record LingerTimer() implements Timer {}

    private static final Timer ELECTION = new ElectionTimer();
    private static final Timer HEARTBEAT = new HeartbeatTimer();
    private static final Timer CHECK_QUORUM = new CheckQuorumTimer();
    private static final Timer PHASE1 = new Phase1Timer();
    private static final Timer DETECTOR = new DetectorTimer();
    private static final Timer PUMP = new PumpTimer();
    private static final Timer LINGER = new LingerTimer();
    /** A {@link #PUMP} timer is armed and has not fired yet. */
    private boolean pumpDue;
    static final SlownessDetector.Vocabulary DETECTOR_VOCABULARY = new SlownessDetector.Vocabulary(
            "tandem.multipaxos.acceptor", "tandem.multipaxos.slot", "tandem.multipaxos.replica", "slots", "chosen slots", "voted");

    /** The proposer's meta namespace on the node; its key below is stored under it. */
    static final String META_NAMESPACE = "multipaxos.leader.";
    static final String ROUND_KEY = "round";

    enum Status { FOLLOWER, PREPARING, LEADING }

    /** A request the leader gave a slot (or queued), by origin and request id. */
    private record RequestKey(NodeId origin, long requestId) {}

    /** How many admitted requests the leader remembers to drop a network duplicate of one. */
    private static final int REMEMBERED_REQUESTS = 16_384;

    /** A command waiting for a slot, and who to tell if it never gets one. */
    private record Queued(NodeId origin, Value value) {}

    private final RoleContext rc;
    private final MultiPaxosConfig config;
    private final Topology topology;
    private final QuorumSystem quorums;
    private final int selfIndex;
    private final long heartbeatNanos;
    private final long electionMinNanos;
    private final long electionMaxNanos;
    private final long resendNanos;
    private final SlownessDetector detector;
    private final Meters.Counter chosenSlots;
    private final Meters.Counter phase1Started;
    private final Meters.Counter stepDowns;
    private final Meters.Counter rejected;
    private final Meters.Counter prepareResends;
    private final Meters.Counter recoverResends;
    private final Meters.Gauge roundGauge;

    private Status status = Status.FOLLOWER;
    /** The ballot we lead or prepare with; when following, the last one we used. */
    private Ballot ballot = Ballot.ZERO;
    /** The highest ballot of another proposer we know of (our own are not counted: a failed attempt must not make us ignore a live leader). */
    private Ballot highestSeen = Ballot.ZERO;
    private long durableRound;
    private long pendingRound;
    private long roundToken;
    private NodeId activeLeader;
    private long heardFromLeaderAt;
    private boolean failed;

    // Phase 1.
    private long phase1From;
    private Phase1Merge merge;
    private QuorumTracker phase1Quorum;
    /** Per acceptor: the slot its next Promise page starts at, or -1 once its answer is complete. */
    private final Map<NodeId, Long> phase1Next = new TreeMap<>();
    private final Map<NodeId, Long> phase1SentAt = new TreeMap<>();
    private long phase1StartedAt;

    // Phase 2.
    private SlotWindow window;
    private long leadingFrom;
    private final Map<NodeId, AcceptorLink> links = new TreeMap<>();
    private final ArrayDeque<Queued> queued = new ArrayDeque<>();
    /**
     * Requests admitted lately: a frontend or batcher apart from the leader reaches it over the
     * network, which may duplicate a Propose; a request gets one slot, so the copy is dropped.
     */
    private final java.util.LinkedHashMap<RequestKey, Boolean> admitted = new java.util.LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<RequestKey, Boolean> eldest) {
            return size() > REMEMBERED_REQUESTS;
        }
    };
    private long heartbeatSeq;
    // Phase 2 through proxy leaders (spec §2.1): proposals up to this slot were handed to a proxy.
    private final boolean viaProxies;
    private long proxySentThrough;
    private int nextProxy;
    /** The proxy the current stripe of consecutive slots goes to (null: pick one), and the slots it may still take. */
    private NodeId stripeProxy;
    private long stripeSlotsLeft;
    private long proxyResentAt;
    /** Per proxy: when the oldest run it was given and has not answered for was sent (absent: it owes nothing). */
    private final Map<NodeId, Long> proxyOwesSince = new TreeMap<>();

    // What the replicas have, for Phase 1's start, Chosen pushes and retransmissions.
    private final Map<NodeId, Long> replicaExecuted = new TreeMap<>();
    /** Per replica, its last report as seen here: how far behind our chosen prefix it was then, and when it came. */
    private final Map<NodeId, ReplicaReport> replicaReports = new TreeMap<>();
    private long chosenWatermark;

    // The chosen claim of this ballot (session 21; see HeldProposals for why it is safe).
    /** Every slot up to here that this leader proposed in this ballot was chosen by votes counted at this ballot. */
    private long claimThrough;
    /** The request id of the value in slot {@link #claimThrough} (DESIGN §3 rule 4: what the claim is for). */
    private long claimRequestId;
    /** False once a proposal of this ballot was settled without its votes (an acceptor's garbage-collection report): the claim then stops. */
    private boolean claimsHold;
    private boolean lingerDue;
    private ChosenThrough lastClaim;
    /** How long a claim may wait for an Accept to ride on before it leaves alone. */
    private final long lingerNanos;
    private final Meters.Counter standaloneClaims;
    /**
     * Chosen values kept to answer a replica's {@link Recover}: by slot modulo the length (at least
     * {@code retainedChosenSlots}), an entry of another slot being a miss. Chosen slots arrive in any order; a
     * ring keeps about the newest ones as the tree map this was did, without a tree entry and a boxed key per
     * slot (session 19). Only chosen values are kept, each under its own slot, so a hit is that slot's value.
     */
    private final long[] retainedSlots;
    private final Value[] retained;
    private final TreeMap<Long, Long> recoverAskedAt = new TreeMap<>();

    Leader(RoleContext rc) {
        this.rc = rc;
        this.config = rc.config;
        int retainedLength = Integer.highestOneBit(Math.max(1, config.retainedChosenSlots() - 1)) << 1;
        this.retainedSlots = new long[retainedLength];
        this.retained = new Value[retainedLength];
        this.topology = rc.topology;
        this.quorums = topology.quorums();
        this.selfIndex = topology.leaderIndex(rc.self);
        this.heartbeatNanos = config.heartbeatInterval().toNanos();
        this.electionMinNanos = config.electionTimeoutMin().toNanos();
        this.electionMaxNanos = config.electionTimeoutMax().toNanos();
        this.resendNanos = config.resendInterval().toNanos();
        // Under load an Accept leaves every drain, far more often than this; an idle leader's followers learn within it.
        this.lingerNanos = Math.max(1, Math.min(1_000_000L, heartbeatNanos / 10));
        Meters meters = rc.meters();
        this.detector = new SlownessDetector(meters, DETECTOR_VOCABULARY, config.quorumHistoryWindow(), config.detectorInterval().toNanos());
        this.chosenSlots = meters.counter("tandem.multipaxos.slot.chosen");
        this.phase1Started = meters.counter("tandem.multipaxos.phase1.started");
        this.stepDowns = meters.counter("tandem.multipaxos.leader.step_downs");
        this.rejected = meters.counter("tandem.multipaxos.proposals.rejected");
        this.prepareResends = meters.counter("tandem.multipaxos.phase1.resends");
        this.recoverResends = meters.counter("tandem.multipaxos.chosen.resends");
        this.standaloneClaims = meters.counter("tandem.multipaxos.chosen.standalone_claims");
        this.roundGauge = meters.gauge("tandem.multipaxos.ballot.round");
        this.viaProxies = topology.hasProxies();
        this.nextProxy = Math.max(0, selfIndex);
    }

    void start() {
        durableRound = recoveredRound();
        if (durableRound > 0) ballot = new Ballot(durableRound, selfIndex);
        roundGauge.set(durableRound);
        // We may have followed a live leader before a restart: wait a full timeout before disturbing it.
        heardFromLeaderAt = rc.now();
        resetElectionTimer();
        rc.schedule(config.detectorInterval().toNanos(), DETECTOR);
    }

    /**
     * The highest round this proposer ever made durable (spec §6.7): a new ballot is always above it,
     * so a restarted proposer never reuses a round its earlier life sent Phase 1 or 2 messages in. A
     * seam so tests can plant a proposer that forgets it.
     */
    long recoveredRound() {
        return rc.engine.meta().get(ROUND_KEY).map(b -> ByteBuffer.wrap(b).getLong()).orElse(0L);
    }

    // ------------------------------------------------------------------------------------------
    // Dispatch
    // ------------------------------------------------------------------------------------------

    void onMessage(NodeId from, ToLeader m) {
        if (failed) return;
        switch (m) {
            case Promise p -> onPromise(from, p);
            case Nack n -> onNack(from, n);
            case Accepted a -> onAccepted(from, a);
            case Heartbeat h -> onHeartbeat(from, h);
            case HeartbeatAck a -> onHeartbeatAck(from, a);
            case Propose p -> onPropose(from, p);
            case ProposeBatch b -> onProposeBatch(from, b);
            case Decided d -> onDecided(from, d);
            case ProposeRead p -> onProposeRead(from, p);
            case ReplicaProgress p -> onReplicaProgress(from, p);
            case Recover r -> onRecover(from, r);
        }
    }

    void onTimer(Timer t) {
        if (failed) return;
        switch (t) {
            case ElectionTimer e -> onElectionTimeout();
            case HeartbeatTimer h -> onHeartbeatTimer();
            case CheckQuorumTimer c -> onCheckQuorumTimer();
            case Phase1Timer p -> onPhase1Timer();
            case DetectorTimer d -> onDetectorTimer();
            case PumpTimer p -> onPumpTimer();
            case LingerTimer l -> onLingerTimer();
        }
    }

    void onStorageEvent(StorageEvent event) {
        switch (event) {
            case StorageEvent.MetaSaved s when s.key().equals(ROUND_KEY) -> onRoundSaved(s.token());
            case StorageEvent.StorageFailed s -> {
                stepDown(null);
                failed = true;
                rc.cancel(ELECTION);
            }
            default -> { }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Election (spec §1.6)
    // ------------------------------------------------------------------------------------------

    private void onElectionTimeout() {
        if (status != Status.FOLLOWER) return;
        if (rc.now() - heardFromLeaderAt < electionMinNanos) {
            resetElectionTimer();
            return;
        }
        startPhase1(chosenWatermark + 1);
    }

    private void resetElectionTimer() {
        rc.schedule(rc.randomBetween(electionMinNanos, electionMaxNanos), ELECTION);
    }

    /** Picks a ballot above every ballot seen and makes its round durable before using it. */
    private void startPhase1(long fromSlot) {
        phase1Started.increment();
        long round = Math.max(Math.max(highestSeen.round(), durableRound), ballot.round()) + 1;
        status = Status.PREPARING;
        ballot = new Ballot(round, selfIndex);
        phase1From = Math.max(1, fromSlot);
        merge = null;
        phase1Quorum = null;
        window = null;
        links.clear();
        cancelLeaderTimers();
        pendingRound = round;
        roundToken = rc.nextToken();
        rc.engine.meta().put(ROUND_KEY, ByteBuffer.allocate(8).putLong(round).array(), roundToken);
        phase1StartedAt = rc.now();
        rc.schedule(resendNanos, PHASE1);
    }

    private void onRoundSaved(long token) {
        if (token != roundToken) return;
        durableRound = Math.max(durableRound, pendingRound);
        roundGauge.set(durableRound);
        if (status != Status.PREPARING || ballot.round() != pendingRound) return;
        startPhase1();
    }

    /** Phase 1a: ask every acceptor for its votes from {@link #phase1From}; a read quorum of answers makes us leader. Overridable so tests can plant a leader that skips it. */
    void startPhase1() {
        merge = new Phase1Merge(phase1From);
        phase1Quorum = new QuorumTracker(quorums.members(), quorums.readRule(), rc.now(), QuorumTracker.NO_DEADLINE);
        phase1Next.clear();
        phase1SentAt.clear();
        Prepare prepare = new Prepare(ballot, phase1From);
        for (NodeId a : topology.acceptors()) {
            phase1Next.put(a, phase1From);
            phase1SentAt.put(a, rc.now());
            rc.send(a, prepare);
        }
    }

    /** Phase 1b: merge the votes; a read quorum of complete answers makes us leader. Long answers come in pages. */
    private void onPromise(NodeId from, Promise p) {
        if (status != Status.PREPARING || merge == null || !p.ballot().equals(ballot)) return;
        Long next = phase1Next.get(from);
        if (next == null || next < 0) return; // not an acceptor, or its answer is already complete
        if (!p.complete() && p.nextSlot() <= next) return; // a duplicate of a page we already followed up
        merge.add(p.gcSlot(), p.votes());
        if (!p.complete()) {
            phase1Next.put(from, p.nextSlot());
            phase1SentAt.put(from, rc.now());
            rc.send(from, new Prepare(ballot, p.nextSlot()));
            return;
        }
        phase1Next.put(from, -1L);
        if (phase1Quorum.ack(from, rc.now())) becomeLeader();
    }

    /** Resends Phase 1a to acceptors that have not answered in an interval; gives up after an election timeout. */
    private void onPhase1Timer() {
        if (status != Status.PREPARING) return;
        long now = rc.now();
        if (now - phase1StartedAt >= electionMaxNanos) {
            stepDown(null); // no quorum answered: let someone else try, or us after a randomized timeout
            return;
        }
        if (merge != null) {
            for (Map.Entry<NodeId, Long> e : phase1Next.entrySet()) {
                if (e.getValue() < 0 || now - phase1SentAt.get(e.getKey()) < resendNanos) continue;
                prepareResends.increment();
                phase1SentAt.put(e.getKey(), now);
                rc.send(e.getKey(), new Prepare(ballot, e.getValue()));
            }
        }
        rc.schedule(resendNanos, PHASE1);
    }

    /**
     * Phase 2 from the first slot Phase 1 left undecided, re-proposing the values it found safe. Without a
     * merged Phase 1 (only a test's broken leader gets here so) it starts where Phase 1 would have.
     */
    void becomeLeader() {
        long now = rc.now();
        status = Status.LEADING;
        activeLeader = rc.self;
        heardFromLeaderAt = now;
        rc.cancel(PHASE1);
        rc.cancel(ELECTION);
        long start = merge != null ? merge.startSlot() : phase1From;
        window = new SlotWindow(decisionQuorums(), config.windowSlots(), start);
        leadingFrom = start;
        if (merge != null) {
            for (Value v : merge.safeValues()) window.proposeRecovered(v, now);
        }
        chosenWatermark = Math.max(chosenWatermark, start - 1);
        claimThrough = 0;
        claimRequestId = RequestIds.BACKGROUND;
        claimsHold = !viaProxies; // with proxies the proxy that saw the votes tells the replicas
        merge = null;
        phase1Quorum = null;
        recoverAskedAt.clear();
        links.clear();
        for (NodeId a : topology.acceptors()) links.put(a, new AcceptorLink(a, quorums.bit(a), start - 1, now));
        proxySentThrough = start - 1;
        stripeProxy = null;
        proxyResentAt = now;
        proxyOwesSince.clear();
        detector.resetQuorumHistory();
        fillWindow();
        pumpAll();
        broadcastHeartbeat();
        rc.schedule(heartbeatNanos, HEARTBEAT);
        rc.schedule(electionMinNanos, CHECK_QUORUM);
    }

    /** Steps down to follower; commands that never got a slot are refused with a hint, those in flight keep an unknown outcome. */
    private void stepDown(NodeId hint) {
        if (status != Status.FOLLOWER) {
            stepDowns.increment();
            activeLeader = hint;
            for (Queued q : queued) {
                rejected.increment();
                admitted.remove(new RequestKey(q.origin(), q.value().requestId())); // never got a slot: it may come again
                rc.send(q.origin(), new ProposeRejected(q.value().requestId(), hint, false, rc.self + " is no longer the leader"));
            }
            queued.clear();
        }
        status = Status.FOLLOWER;
        window = null;
        merge = null;
        phase1Quorum = null;
        links.clear();
        cancelLeaderTimers();
        rc.cancel(PHASE1);
        detector.resetQuorumHistory();
        resetElectionTimer();
    }

    private void cancelLeaderTimers() {
        rc.cancel(HEARTBEAT);
        rc.cancel(CHECK_QUORUM);
    }

    /** A higher ballot exists: defer to its proposer and wait a full randomized timeout (no duelling). */
    private void deferTo(Ballot higher) {
        if (higher.proposer() != selfIndex) highestSeen = Ballot.max(highestSeen, higher);
        NodeId owner = topology.leaderOf(higher);
        stepDown(owner == null || owner.equals(rc.self) ? null : owner);
        heardFromLeaderAt = rc.now();
    }

    private void onNack(NodeId from, Nack n) {
        if (n.promised().proposer() != selfIndex) highestSeen = Ballot.max(highestSeen, n.promised());
        if (status != Status.FOLLOWER && n.rejected().equals(ballot) && n.promised().greaterThan(ballot)) deferTo(n.promised());
    }

    /** Another proposer leads: follow it if its ballot is at least as high as any we know. */
    private void onHeartbeat(NodeId from, Heartbeat h) {
        if (from.equals(rc.self)) return;
        chosenWatermark = Math.max(chosenWatermark, h.chosenThrough());
        if (h.ballot().lessThan(highestSeen) && status == Status.FOLLOWER) return; // a stale leader: someone newer is about
        if (status != Status.FOLLOWER) {
            if (!h.ballot().greaterThan(ballot)) return;
            deferTo(h.ballot());
        }
        highestSeen = Ballot.max(highestSeen, h.ballot());
        activeLeader = from;
        heardFromLeaderAt = rc.now();
        resetElectionTimer();
    }

    private void onHeartbeatAck(NodeId from, HeartbeatAck a) {
        AcceptorLink link = links.get(from);
        if (link != null) link.link.heard(rc.now());
        if (a.promised().proposer() != selfIndex) highestSeen = Ballot.max(highestSeen, a.promised());
        if (status == Status.LEADING && a.ballot().equals(ballot) && a.promised().greaterThan(ballot)) deferTo(a.promised());
    }

    /** Check-quorum: a leader that heard from no write quorum within the minimum election timeout steps down. */
    private void onCheckQuorumTimer() {
        if (status != Status.LEADING) return;
        long now = rc.now();
        long heard = 0;
        for (AcceptorLink l : links.values()) {
            if (now - l.link.lastHeardAt() < electionMinNanos) heard |= l.bit;
        }
        if (!quorums.isWriteQuorum(heard)) {
            stepDown(null);
            return;
        }
        rc.schedule(electionMinNanos, CHECK_QUORUM);
    }

    // ------------------------------------------------------------------------------------------
    // Commands
    // ------------------------------------------------------------------------------------------

    /** A frontend's client command; the frontend's node is its origin. */
    private void onPropose(NodeId from, Propose p) {
        admit(from, new Value.Command(from, p.requestId(), p.session(), p.payload()));
    }

    /**
     * A batcher's batch (spec §2.6): its commands get consecutive slots, so they travel as one run
     * (one Phase 2a to one proxy, one Chosen per replica). Each keeps its own request id and session:
     * exactly-once comes from the replicas' session table, not from the batch (B-2).
     */
    private void onProposeBatch(NodeId from, ProposeBatch b) {
        boolean any = false;
        for (Propose p : b.commands()) any |= queue(from, new Value.Command(from, p.requestId(), p.session(), p.payload()));
        if (any && status == Status.LEADING && fillWindow()) pumpAll();
    }

    /** A frontend's read to be ordered through the log ({@link MultiPaxosConfig.ReadPath#LOG}). */
    private void onProposeRead(NodeId from, ProposeRead p) {
        admit(from, new Value.LogRead(from, p.requestId()));
    }

    /** Queues a value for a slot if we lead (or are about to), refuses it otherwise. */
    private void admit(NodeId origin, Value value) {
        if (queue(origin, value) && status == Status.LEADING) schedulePump();
    }

    /** True: a network duplicate of an admitted request is dropped. A seam so tests can plant a leader that keeps them. */
    boolean dropsDuplicates() {
        return true;
    }

    /** Queues a value for a slot; refuses it (and returns false) if we do not lead or too many wait. */
    private boolean queue(NodeId origin, Value value) {
        RequestKey key = new RequestKey(origin, value.requestId()); // one key per command (was two: the lookup's and the put's)
        if (status != Status.FOLLOWER && dropsDuplicates() && admitted.containsKey(key)) return false;
        if (status == Status.FOLLOWER) {
            rejected.increment();
            rc.send(origin, new ProposeRejected(value.requestId(), activeLeader, false, rc.self + " is not the leader"));
            return false;
        }
        if (queued.size() >= config.maxQueuedCommands()) {
            rejected.increment();
            rc.send(origin, new ProposeRejected(value.requestId(), null, true, queued.size() + " commands wait for a slot at " + rc.self));
            return false;
        }
        queued.addLast(new Queued(origin, value));
        admitted.put(key, Boolean.TRUE);
        return true;
    }

    /**
     * Batches the commands that arrive together into one Accept per acceptor. A timer with no delay
     * fires only after the runtime has handed the node every input it drained at once (NodeRuntime
     * runs due timers after each drain of its inbox; the simulator after the current event), so under
     * load one Accept carries the whole drain, and a lone command waits for nothing: no batching delay
     * to tune. Proposing later changes no safety argument (§1.4): only when phase 2a starts.
     */
    private void schedulePump() {
        if (pumpDue) return;
        pumpDue = true;
        rc.schedule(0, PUMP);
    }

    private void onPumpTimer() {
        pumpDue = false;
        if (status == Status.LEADING && fillWindow()) pumpAll();
    }

    /** Gives queued commands slots while the window has room; true if any got one. */
    private boolean fillWindow() {
        boolean any = false;
        while (status == Status.LEADING && !queued.isEmpty() && window.hasRoom()) {
            window.propose(queued.pollFirst().value(), rc.now());
            any = true;
        }
        return any;
    }

    private void pumpAll() {
        if (viaProxies) {
            pumpProxies();
            return;
        }
        for (AcceptorLink l : links.values()) pump(l);
    }

    /**
     * Proxy leaders (spec §2.1): each run of proposals not yet handed out goes to one proxy; the window
     * bounds what is outstanding, the proxies do the fan-out. Consecutive runs go to the same proxy
     * until it took {@code proxyStripeSlots} slots (a stripe), then to the next one round-robin: a proxy
     * that holds adjacent runs announces those chosen in one drain as one Chosen per replica (see
     * {@link ProxyLeader}), where runs dealt one per proxy were every tenth slot and never adjacent.
     * Load balance is kept over stripes instead of runs. A stripe ends early at a proxy that became
     * suspect (it owes an answer for two resend intervals), so a crashed proxy gets no more of it.
     */
    private void pumpProxies() {
        SlotWindow.Run run;
        while (status == Status.LEADING && (run = window.nextRun(proxySentThrough, 0L, config.maxBatchSlots(), config.maxBatchBytes())) != null) {
            long now = rc.now();
            if (stripeProxy == null || stripeSlotsLeft <= 0 || suspect(stripeProxy, now)) {
                stripeSlotsLeft = config.proxyStripeSlots();
                stripeProxy = pickProxy(now); // a probe of a suspect proxy gets one run, not a stripe
            }
            NodeId proxy = stripeProxy;
            proxyOwesSince.putIfAbsent(proxy, now);
            rc.send(proxy, new ProxyAccept(ballot, run.firstSlot(), run.values(), run.requestId()));
            proxySentThrough = run.lastSlot();
            stripeSlotsLeft -= run.lastSlot() - run.firstSlot() + 1;
        }
    }

    /** A proxy that has owed an answer for two resend intervals may have crashed. */
    private boolean suspect(NodeId proxy, long now) {
        Long since = proxyOwesSince.get(proxy);
        return since != null && now - since >= 2 * resendNanos;
    }

    /**
     * The next proxy round-robin (per stripe), skipping one that has owed an answer for two resend intervals (it
     * may have crashed: its runs are being re-sent elsewhere). A skipped proxy gets one run again
     * after an election timeout, so one that was only cut off comes back; if every proxy is
     * suspect, they take turns anyway.
     */
    private NodeId pickProxy(long now) {
        List<NodeId> proxies = topology.proxies();
        for (int i = 0; i < proxies.size(); i++) {
            NodeId p = proxies.get(Math.floorMod(nextProxy++, proxies.size()));
            Long since = proxyOwesSince.get(p);
            if (!suspect(p, now)) return p;
            if (now - since >= electionMaxNanos) {
                proxyOwesSince.put(p, now); // a probe: one run
                stripeSlotsLeft = 1;
                return p;
            }
        }
        return proxies.get(Math.floorMod(nextProxy++, proxies.size()));
    }

    /**
     * A proxy announced runs chosen (spec §2.1): mark their slots chosen, keep their values for
     * replicas that missed the proxy's Chosen, and let queued commands in. Slots a voter reported
     * garbage-collected were chosen before (maybe with another value): they are settled without a value.
     * Only slots this leader proposed in this ballot are looked at (the window's), so a report of a
     * huge or foreign range costs nothing; a malformed report is ignored.
     */
    private void onDecided(NodeId from, Decided d) {
        if (status != Status.LEADING || !viaProxies || !d.ballot().equals(ballot)) return;
        long now = rc.now();
        proxyOwesSince.remove(from);
        boolean collected = d.gcSlot() >= window.firstUnchosen();
        if (collected) window.markChosenThrough(d.gcSlot(), now);
        List<SlotWindow.Proposal> chosen = new ArrayList<>();
        long last = window.nextSlot() - 1;
        for (int r = 0; r < d.runCount(); r++) {
            long from0 = Math.max(Math.max(d.firstSlot(r), d.gcSlot() + 1), window.firstUnchosen());
            for (long s = from0; s <= Math.min(d.lastSlot(r), last); s++) {
                SlotWindow.Proposal p = window.vote(s, quorums.all(), now);
                if (p == null) continue;
                chosenSlots.increment();
                chosen.add(p);
            }
        }
        if (!chosen.isEmpty() || collected) decided(chosen);
    }

    /**
     * Proxy retry at the leader: once per resend interval, if a proposal waited that long undecided
     * (its proxy crashed, or its messages were lost), every undecided proposal from there is handed
     * out again, to the next proxies. The same ballot and values: a proxy or acceptor that has them
     * already answers the same.
     */
    private void maybeResendViaProxies(long now) {
        if (now - proxyResentAt < resendNanos) return;
        SlotWindow.Proposal waiting = window.oldestUndecidedWithout(quorums.all(), now - resendNanos);
        if (waiting == null) return;
        proxyResentAt = now;
        proxySentThrough = waiting.slot - 1;
        stripeProxy = null; // the retry starts a stripe at the next proxy, not at the one that may have crashed
        pumpProxies();
    }

    /** Sends an acceptor what it should vote on now, within its window; never queues beyond it. */
    private void pump(AcceptorLink link) {
        while (status == Status.LEADING && !link.link.windowFull(config.maxInflightMessages(), config.maxInflightBytes())) {
            SlotWindow.Run run = window.nextRun(link.sentThrough, link.bit, config.maxBatchSlots(), config.maxBatchBytes());
            if (run == null) return;
            Accept accept = acceptFor(run);
            rc.send(link.id, accept);
            link.sent(run.firstSlot(), run.lastSlot(), run.bytes(), rc.now());
            link.claimedThrough = Math.max(link.claimedThrough, accept.chosenThrough());
        }
    }

    /** The Accept sent last, reused for the next acceptor that would get the same one (see {@link #acceptFor}). */
    private Accept lastAccept;

    /**
     * The Accept of {@code run}: the one sent last if it covers the same slots with the same values, so that
     * acceptors in step get the same instance and the transport encodes it once (issue 25: one encoding per
     * batch, not one per acceptor). Within a ballot the leader proposes one value per slot and never replaces
     * it, so the same ballot, first slot and slot count mean the same values (the first and last are compared
     * too, as a guard).
     */
    private Accept acceptFor(SlotWindow.Run run) {
        Accept last = lastAccept;
        List<Value> values = run.values();
        if (last != null && last.ballot().equals(ballot) && last.firstSlot() == run.firstSlot() && last.values().size() == values.size()
                && last.requestId() == run.requestId() && last.values().getFirst() == values.getFirst() && last.values().getLast() == values.getLast()
                && last.chosenThrough() == claimThrough) {
            return last;
        }
        lastAccept = new Accept(ballot, run.firstSlot(), values, run.requestId(), claimThrough);
        return lastAccept;
    }

    /** Phase 2b: count the votes; a write quorum chooses a slot. */
    private void onAccepted(NodeId from, Accepted a) {
        AcceptorLink link = links.get(from);
        if (viaProxies || link == null || status != Status.LEADING || !a.ballot().equals(ballot)) return;
        long now = rc.now();
        link.answered(a.firstSlot(), now);
        if (a.gcSlot() >= window.firstUnchosen() && window.markChosenThrough(a.gcSlot(), now) > 0) claimsHold = false;
        List<SlotWindow.Proposal> chosen = new ArrayList<>();
        for (long s = Math.max(a.firstSlot(), a.gcSlot() + 1); s <= a.lastSlot(); s++) {
            SlotWindow.Proposal p = window.vote(s, link.bit, now);
            if (p == null) continue;
            chosenSlots.increment();
            detector.quorumFormed(voters(p.voters), from, quorums.members().size(), now - p.proposedAt, now);
            chosen.add(p);
        }
        if (!chosen.isEmpty() || a.gcSlot() >= window.firstUnchosen()) decided(chosen);
        pump(link);
    }

    private long lastVotersMask = -1;
    private List<NodeId> lastVoters = List.of();

    /**
     * The acceptors of a voter mask, as one unmodifiable list per mask in a row: the slots of a batch are chosen by the
     * same acceptors, and {@code membersOf} built a new list per chosen slot (5 % of the leader loop's allocation,
     * session 20), each kept by the detector for its whole window (a second of slots). The detector only reads the
     * list (its contract: a collection nobody changes later), so sharing one is the same input.
     */
    private List<NodeId> voters(long mask) {
        if (mask != lastVotersMask) {
            lastVoters = List.copyOf(quorums.membersOf(mask));
            lastVotersMask = mask;
        }
        return lastVoters;
    }

    /**
     * Tells the replicas, advances the window, and lets queued commands in. The chosen claim follows the window's
     * prefix while every proposal in it was chosen by votes at this ballot; a proposal settled otherwise (its value
     * unknown here: {@code chosenElsewhere}) ends it for the ballot, and from then every replica gets values.
     */
    private void decided(List<SlotWindow.Proposal> chosen) {
        if (!viaProxies) announce(chosen); // else the proxy that saw the votes told the replicas
        long before = window.firstUnchosen();
        long claimBefore = claimThrough;
        for (SlotWindow.Proposal p : window.advance()) {
            if (p.chosenElsewhere) {
                claimsHold = false;
                continue;
            }
            retain(p.slot, p.value);
            if (claimsHold) {
                claimThrough = p.slot;
                claimRequestId = p.value.requestId();
            }
        }
        chosenWatermark = Math.max(chosenWatermark, window.firstUnchosen() - 1);
        if (claimThrough > claimBefore) offerClaim();
        if (window.firstUnchosen() > before && fillWindow()) pumpAll();
    }

    /**
     * The claim grew. The leader's own replica gets it now (a local message: no encoding, and it answers the clients
     * of this node); the others get it on the next Accept to their node, which under load leaves within the drain,
     * or alone once the linger passed ({@link #onLingerTimer}), so a replica learns in bounded time when the leader
     * goes idle. Waiting changes no safety argument: a claim is true whenever it arrives.
     */
    private void offerClaim() {
        AcceptorLink own = links.get(rc.self);
        if (own != null && topology.replicas().contains(rc.self)) sendClaim(own);
        if (!lingerDue && links.size() > (own == null ? 0 : 1)) {
            lingerDue = true;
            rc.schedule(lingerNanos, LINGER);
        }
    }

    private void onLingerTimer() {
        lingerDue = false;
        if (status != Status.LEADING) return;
        for (AcceptorLink l : links.values()) {
            if (l.claimedThrough < claimThrough && topology.replicas().contains(l.id)) {
                standaloneClaims.increment();
                sendClaim(l);
            }
        }
    }

    /** Sends the claim alone to a node: one instance while it is unchanged, so the transport encodes it once. */
    private void sendClaim(AcceptorLink l) {
        ChosenThrough m = lastClaim;
        if (m == null || m.chosenThrough() != claimThrough || !m.ballot().equals(ballot)) lastClaim = m = new ChosenThrough(ballot, claimThrough, claimRequestId);
        rc.send(l.id, m);
        l.claimedThrough = claimThrough;
    }

    /**
     * Sends the newly chosen slots to every replica that is not too far behind the most advanced one
     * (those catch up from peers). Behind the most advanced replica, not behind this slot: reports
     * are a heartbeat old, so one burst of a window's worth of slots put every replica "behind" the new
     * slots at once when the limit was the window (issue 16 finding: seeds 355, 451 and 1097 of the
     * mix with maxReplicaLagSlots == windowSlots); none got them, no peer could give them, and the
     * replicas crawled on one Recover answer per heartbeat. Measured against its peers, only a replica
     * really slower than the others is moved to catch-up, and a peer that has the slots exists. Each
     * replica's lag is taken when its report arrived ({@link ReplicaReport}), so reports made at
     * different moments are compared fairly; the least lagging replica is never left out.
     *
     * <p>Safe: Chosen pushes are soft state; a replica left out still learns every slot by catch-up
     * (peers, Recover), and one pushed to receives only chosen values, so who is left out is a matter
     * of speed only.
     */
    private void announce(List<SlotWindow.Proposal> chosen) {
        long now = rc.now();
        long least = Long.MAX_VALUE;
        for (ReplicaReport report : replicaReports.values()) least = Math.min(least, report.lag(chosenWatermark, now, electionMinNanos));
        int i = 0;
        while (i < chosen.size()) {
            long first = chosen.get(i).slot;
            List<Value> values = new ArrayList<>();
            long requestId = RequestIds.BACKGROUND;
            while (i < chosen.size() && chosen.get(i).slot == first + values.size() && values.size() < config.maxBatchSlots()) {
                Value v = chosen.get(i).value;
                values.add(v);
                if (requestId == RequestIds.BACKGROUND) requestId = v.requestId();
                i++;
            }
            long last = first + values.size() - 1;
            Chosen message = null;
            for (NodeId r : topology.replicas()) {
                ReplicaReport report = replicaReports.get(r);
                if (report != null && report.lag(chosenWatermark, now, electionMinNanos) - least > config.maxReplicaLagSlots()) continue;
                AcceptorLink node = claimsHold ? links.get(r) : null;
                if (node != null && last <= node.heldThrough) continue; // its node got these proposals: the claim will tell it
                if (message == null) message = new Chosen(first, values, requestId);
                rc.send(r, message);
                if (node != null) node.reached(first, last);
            }
        }
    }

    private void retain(long slot, Value value) {
        int at = (int) (slot & (retained.length - 1));
        retainedSlots[at] = slot;
        retained[at] = value;
    }

    private Value retained(long slot) {
        int at = (int) (slot & (retained.length - 1));
        return retainedSlots[at] == slot ? retained[at] : null;
    }

    // ------------------------------------------------------------------------------------------
    // Heartbeats and resends
    // ------------------------------------------------------------------------------------------

    private void broadcastHeartbeat() {
        Heartbeat h = new Heartbeat(ballot, window.firstUnchosen() - 1, ++heartbeatSeq);
        for (NodeId n : topology.heartbeatAudience()) rc.send(n, h);
    }

    private void onHeartbeatTimer() {
        if (status != Status.LEADING) return;
        long now = rc.now();
        broadcastHeartbeat();
        if (viaProxies) maybeResendViaProxies(now);
        else for (AcceptorLink l : links.values()) maybeResend(l, now);
        detector.overdue(window.newlyOverdue(now, config.commitDeadline().toNanos()));
        rc.schedule(heartbeatNanos, HEARTBEAT);
    }

    /**
     * The only place Phase 2a data is resent: at most once per (adaptive) interval per acceptor, and
     * only if an undecided slot has waited that long without this acceptor's vote. Messages in flight
     * for too long without such a need are just forgotten, which reopens the window without resending.
     */
    private void maybeResend(AcceptorLink link, long now) {
        long timeout = link.link.resendTimeout(resendNanos);
        if (!link.link.mayResend(now, timeout)) return;
        PeerLink.InFlight oldest = link.link.oldestInflight();
        // An acceptor not heard from (no vote, no heartbeat answer) since the oldest message of its
        // window left is stopped, unreachable or crashed: whatever we sent it is still queued on its way
        // or lost with it, so sending more would only pile up in the transport. Its full window is its
        // bound (DESIGN §3 rule 2); its next heartbeat answer proves it is back and reopens it below.
        if (oldest != null && link.link.lastHeardAt() < oldest.sentAt()) return;
        boolean stalled = oldest != null && now - Math.max(oldest.sentAt(), link.link.lastProgressAt()) >= timeout;
        SlotWindow.Proposal waiting = window.oldestUndecidedWithout(link.bit, now - timeout);
        if (waiting == null) {
            if (stalled) {
                link.link.clearInflight();
                pump(link);
            }
            return;
        }
        link.link.resending(now);
        detector.resent(link.id, waiting.slot, link.link.resentFrom(waiting.slot));
        link.rewind(waiting.slot);
        pump(link);
    }

    /**
     * The quorums whose votes choose a slot: the acceptors' write quorums (spec §2.2), any of which will
     * do, so no single acceptor decides when a slot is chosen. Overridable so tests can plant a leader
     * that waits for every acceptor.
     */
    QuorumSystem decisionQuorums() {
        return quorums;
    }

    private void onDetectorTimer() {
        if (status == Status.LEADING) {
            long maxBytes = (long) config.maxInflightBytes() + config.maxBatchBytes();
            for (AcceptorLink l : links.values()) detector.sampleLink(l.link, config.maxInflightMessages(), maxBytes, "");
            long chosenThrough = window.firstUnchosen() - 1;
            for (Map.Entry<NodeId, Long> e : replicaExecuted.entrySet()) detector.lag(e.getKey(), chosenThrough - e.getValue());
            detector.sampleQuorums(quorums.members(), quorums.writeRule(), rc.now());
        }
        rc.schedule(config.detectorInterval().toNanos(), DETECTOR);
    }

    // ------------------------------------------------------------------------------------------
    // Replicas
    // ------------------------------------------------------------------------------------------

    private void onReplicaProgress(NodeId from, ReplicaProgress p) {
        if (!topology.replicas().contains(from)) return;
        replicaExecuted.put(from, p.executedSlot());
        chosenWatermark = Math.max(chosenWatermark, p.executedSlot());
        replicaReports.put(from, new ReplicaReport(p.executedSlot(), chosenWatermark, rc.now()));
        settleExecutedSlots(p.executedSlot());
        // What every replica executed stays retained until newer slots take its place in the ring: a bounded
        // amount, and a replica that restarts behind may still get it by Recover.
    }

    /**
     * With proxy leaders the leader learns that a run was chosen from one message only, the proxy's
     * {@link Decided}; if that one is lost, its slots hold the window shut until the leader's resend
     * interval has passed and the run went round again (seeds 162 and 179 of
     * {@code d-b2-u2-reads.conf}: window 2, every lost Decided a stall of about a second). A replica
     * that executed a slot is a second witness that it is chosen (replicas execute chosen slots only).
     * The slots are settled without a value ({@code chosenElsewhere}: not retained for Recover, not
     * announced), so the leader takes nothing from the report but "this slot is decided", which is
     * true whoever's value won; only slots the leader has proposed are settled, a report beyond them
     * comes from a ballot this leader does not know about and is left to the Phase 1 and Nack paths.
     */
    private void settleExecutedSlots(long executedSlot) {
        if (status != Status.LEADING || !viaProxies) return;
        long through = Math.min(executedSlot, window.nextSlot() - 1);
        if (through < window.firstUnchosen()) return;
        window.markChosenThrough(through, rc.now());
        decided(List.of());
    }

    /**
     * A replica lacks slots {@code [from, to]}: resend what we retain, fill with no-ops the slots past
     * our proposals (a read may wait on a slot an earlier leader's proposal left voted but undecided),
     * and, if the replica keeps asking for a chosen slot nobody could give it for an election timeout,
     * recover it from the acceptors with a new Phase 1 from there (spec §2.9).
     */
    private void onRecover(NodeId from, Recover r) {
        if (status != Status.LEADING) return;
        long now = rc.now();
        List<Value> values = new ArrayList<>();
        int bytes = 0;
        for (long s = r.fromSlot(); s <= r.toSlot() && values.size() < config.maxBatchSlots(); s++) {
            Value v = retained(s);
            if (v == null || (!values.isEmpty() && bytes + v.weight() > config.maxBatchBytes())) break;
            values.add(v);
            bytes += v.weight();
        }
        if (!values.isEmpty()) {
            recoverResends.increment();
            rc.send(from, new Chosen(r.fromSlot(), values, RequestIds.BACKGROUND));
        }
        if (r.toSlot() >= window.nextSlot() && r.toSlot() - window.firstUnchosen() < 4L * config.windowSlots()) {
            while (window.nextSlot() <= r.toSlot()) window.proposeRecovered(Value.NOOP, now);
            pumpAll();
        }
        if (values.isEmpty() && r.fromSlot() < window.firstUnchosen()) {
            Long askedAt = recoverAskedAt.putIfAbsent(r.fromSlot(), now);
            while (recoverAskedAt.size() > 64) recoverAskedAt.pollFirstEntry();
            if (askedAt != null && now - askedAt >= electionMinNanos) {
                recoverAskedAt.clear();
                startPhase1(r.fromSlot());
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Read-only views (tests and simulator invariants)
    // ------------------------------------------------------------------------------------------

    Status status() {
        return status;
    }

    Ballot ballot() {
        return ballot;
    }

    /** The ballot this proposer is using on the wire (Phase 1 sent, or leading), else null. */
    Ballot ballotInUse() {
        return status == Status.LEADING || (status == Status.PREPARING && merge != null) ? ballot : null;
    }

    NodeId activeLeader() {
        return activeLeader;
    }

    /** The highest ballot of another proposer this one has seen. */
    Ballot highestSeen() {
        return highestSeen;
    }

    /**
     * A replica's last progress report and our chosen prefix when it arrived. Its lag is measured at
     * that moment, against what we knew chosen then, not against another replica's newer report:
     * replicas report once per heartbeat interval, each on its own timer, so under load their reports
     * differ by up to an interval's worth of slots while every replica is current (session 15: at
     * ~45k slots/s and 100 ms the newest and oldest reports were more than the default lag limit of
     * 4,096 slots apart; the leader stopped pushing Chosen to the replica that had reported first,
     * often its own, whose clients then waited for the catch-up timeout, 300 ms). A report older than
     * an election timeout (a replica that stopped reporting: crashed or cut off) is measured against
     * our chosen prefix now, so a silent replica still drops out of the pushes as before.
     */
    private record ReplicaReport(long executed, long chosenThen, long receivedAt) {
        long lag(long chosenNow, long now, long staleNanos) {
            long against = now - receivedAt > staleNanos ? chosenNow : chosenThen;
            return Math.max(0, against - executed);
        }
    }

    /** Every slot up to this one is known chosen. */
    long chosenWatermark() {
        return chosenWatermark;
    }

    /** The last slot each replica reported executed (its progress reports). */
    Map<NodeId, Long> replicaExecuted() {
        return Collections.unmodifiableMap(replicaExecuted);
    }

    long firstUnchosen() {
        return window == null ? -1 : window.firstUnchosen();
    }

    Map<String, Long> slownessWarningsByKind() {
        return detector.warningsByKind();
    }

    String describe() {
        StringBuilder s = new StringBuilder("leader ").append(status).append(" ballot=").append(ballot).append(" seen=").append(highestSeen)
                .append(" hint=").append(activeLeader).append(" watermark=").append(chosenWatermark).append(" queued=").append(queued.size());
        if (window != null) s.append(' ').append(window).append(" links=").append(links.values());
        return s.toString();
    }
}
