package io.tandem.protocols.raft;

import io.tandem.engine.AdminRequest;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.GroupView;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.ReadPolicy;
import io.tandem.engine.Rejection;
import io.tandem.engine.SnapshotTag;
import io.tandem.engine.RequestIds;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.failslow.QuorumRule;
import io.tandem.protocols.failslow.QuorumTracker;
import io.tandem.protocols.failslow.SlownessDetector;
import io.tandem.protocols.raft.RaftMessage.AppendEntries;
import io.tandem.protocols.raft.RaftMessage.AppendEntriesResponse;
import io.tandem.protocols.raft.RaftMessage.Heartbeat;
import io.tandem.protocols.raft.RaftMessage.HeartbeatResponse;
import io.tandem.protocols.raft.RaftMessage.InstallSnapshot;
import io.tandem.protocols.raft.RaftMessage.InstallSnapshotResponse;
import io.tandem.protocols.raft.RaftMessage.PreVoteRequest;
import io.tandem.protocols.raft.RaftMessage.PreVoteResponse;
import io.tandem.protocols.raft.RaftMessage.TimeoutNow;
import io.tandem.protocols.raft.RaftMessage.VoteRequest;
import io.tandem.protocols.raft.RaftMessage.VoteResponse;
import io.tandem.storage.LogEntry;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.StorageEvent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One Raft node (Ongaro and Ousterhout, "In Search of an Understandable Consensus Algorithm",
 * sections cited as §; Ongaro's thesis cited as "thesis §"), built to tolerate slow minorities
 * (DepFast; DESIGN §3). Deterministic and single-threaded: it reads time, randomness, storage and
 * the network only through its {@link EngineContext}.
 *
 * <p>Fail-slow rules, as implemented here:
 * <ul>
 *   <li>commits wait on quorums ({@link CommitTracker}), never on a particular follower, and the
 *       leader's own write counts only once {@link StorageEvent.LogSynced} reports it;</li>
 *   <li>each follower has a bounded in-flight window ({@link Peer}); a follower that cannot keep up
 *       stops receiving data and is moved to catch-up (probe or snapshot), nothing queues up;</li>
 *   <li>responses only update progress; data is resent only by the heartbeat timer, at most once per
 *       {@link RaftConfig#resendInterval()} per follower, and every resend is counted;</li>
 *   <li>every message carries the client request that caused it, or {@link RequestIds#BACKGROUND};</li>
 *   <li>a {@link SlownessDetector} reports per-peer depth, lag, resends, single-peer waits and
 *       quorums that always contain the same members.</li>
 * </ul>
 *
 * <p>This class holds what every role has (term and vote, the log, commit and apply progress, local
 * snapshots) and the handlers. The state of the current role is one {@link RoleState} object that
 * exists only while the node has that role: {@link FollowerState}, {@link CandidateState} or
 * {@link LeaderState} (with its {@link LeaderReads}, {@link SnapshotSender} and
 * {@link LeadershipTransfer}); a handler reaches a role's state only by matching it, so a leader's
 * progress tracking is out of reach of follower code and gone after a step-down. Incoming snapshots
 * are {@link SnapshotReceiver}'s, membership rules {@link Membership}'s; a new configuration takes
 * effect in {@link #applyConfiguration}.
 *
 * <p>Public accessors ({@link #role()}, {@link #currentTerm()}, ...) are read-only views for tests and
 * simulator invariants; call them only from the engine's loop.
 */
public class RaftEngine implements Engine, io.tandem.sim.Inspectable, io.tandem.sim.MemoryAccounting {
    public enum Role { FOLLOWER, PRE_CANDIDATE, CANDIDATE, LEADER }

    private record ElectionTimer() implements TimerKey {}

    private record HeartbeatTimer() implements TimerKey {}

    private record CheckQuorumTimer() implements TimerKey {}

    private record DetectorTimer() implements TimerKey {}

    private record TransferTimer() implements TimerKey {}

    /** Sends the entries appended since the last send; armed with no delay (see {@link #scheduleReplication}). */
    private record ReplicateTimer() implements TimerKey {}

    private static final TimerKey ELECTION = new ElectionTimer();
    private static final TimerKey HEARTBEAT = new HeartbeatTimer();
    private static final TimerKey CHECK_QUORUM = new CheckQuorumTimer();
    private static final TimerKey DETECTOR = new DetectorTimer();
    private static final TimerKey TRANSFER = new TransferTimer();
    private static final TimerKey REPLICATE = new ReplicateTimer();

    static final String TERM_KEY = "raft.term";
    /** A {@link #REPLICATE} timer is armed and has not fired yet. */
    private boolean replicationDue;
    static final String BASE_KEY = "raft.base";
    /** Messages held back while the term and vote are not yet durable; more are dropped (Raft tolerates loss). */
    private static final int MAX_HELD_MESSAGES = 4096;
    private static final int MAX_COMMIT_ROUNDS = 1024;
    private static final int MAX_HEARTBEAT_ROUNDS = 64;
    static final SlownessDetector.Vocabulary DETECTOR_VOCABULARY = new SlownessDetector.Vocabulary(
            "tandem.raft.peer", "tandem.raft.commit", "tandem.raft.peer", "entries", "commit quorums", "answered");

    private record Held(NodeId to, RaftMessage message, long token) {}

    private final NodeId self;
    private final List<NodeId> members;
    private final RaftConfig config;
    private final long electionMinNanos;
    private final long electionSpreadNanos;
    private final long heartbeatNanos;
    private final long resendNanos;
    private final long leaseNanos;

    private EngineContext ctx;
    private RaftLog log;
    private SlownessDetector detector;
    private Meters.Counter clientMessages;
    private Meters.Counter backgroundMessages;
    private Meters.Counter electionsStarted;
    private Meters.Counter leaderStepDowns;
    private Meters.Counter matchContradictions;
    private Meters.Gauge termGauge;
    private Meters.Gauge commitGauge;

    // Persistent state (Raft Figure 2), written through the MetaStore before it is acted upon.
    private long currentTerm;
    private NodeId votedFor;
    private long termToken;
    private long termDurableToken;
    private final ArrayDeque<Held> held = new ArrayDeque<>();

    // The current role's state: exactly one, replaced on every role change (see RoleState).
    private RoleState state = new FollowerState();

    // Volatile state of every role.
    private NodeId leaderId;
    private long commitIndex;
    private long lastDelivered;
    private long appliedIndex;
    private long durableIndex;
    private long heardFromLeaderAt;
    /**
     * The election timer, kept lazily: {@link #electionDeadline} is when it is due, and the runtime's {@code ELECTION}
     * timer is armed for that deadline or an earlier one ({@link #electionArmed}). A leader's message moves only the
     * deadline ({@link #extendElectionTimer}); the armed timer that fires early re-arms for the rest
     * ({@link #onElectionTimeout}). Re-arming the runtime timer per AppendEntries cost a clock read, a random draw, a map
     * put and a heap entry per message that stayed in the timer heap, dead, for a whole timeout (raft20).
     */
    private long electionDeadline;
    private long electionTimeoutNanos;
    private boolean electionArmed;
    private long nextToken = 1;
    private boolean storageFailed;
    /** The configuration last applied to this engine's state ({@link #applyConfiguration}). */
    private Configuration configurationApplied;
    private final HeartbeatSequence heartbeats = new HeartbeatSequence();
    private SnapshotReceiver snapshotReceiver;

    // Local snapshots and compaction.
    private boolean snapshotInProgress;
    private long snapshotToken;
    private long lastSnapshotIndex;
    private long pendingCompactionIndex;
    private long pendingCompactionToken;
    private final List<BaseRecord> bases = new ArrayList<>();

    public RaftEngine(NodeId self, List<NodeId> members, RaftConfig config) {
        this.self = self;
        this.members = List.copyOf(members);
        this.config = config;
        this.electionMinNanos = config.electionTimeoutMin().toNanos();
        this.electionSpreadNanos = config.electionTimeoutMax().toNanos() - electionMinNanos;
        this.heartbeatNanos = config.heartbeatInterval().toNanos();
        this.resendNanos = config.resendInterval().toNanos();
        this.leaseNanos = config.leaseDuration().toNanos();
    }

    // ------------------------------------------------------------------------------------------
    // Start and recovery
    // ------------------------------------------------------------------------------------------

    @Override
    public void start(EngineContext ctx) {
        this.ctx = ctx;
        Meters meters = ctx.meters();
        detector = new SlownessDetector(meters, DETECTOR_VOCABULARY, config.quorumHistoryWindow(), config.detectorInterval().toNanos());
        clientMessages = meters.counter("tandem.raft.messages.sent", "cause", "client");
        backgroundMessages = meters.counter("tandem.raft.messages.sent", "cause", "background");
        electionsStarted = meters.counter("tandem.raft.elections");
        leaderStepDowns = meters.counter("tandem.raft.leader_step_downs");
        matchContradictions = meters.counter("tandem.raft.peer.match_contradictions");
        termGauge = meters.gauge("tandem.raft.term");
        commitGauge = meters.gauge("tandem.raft.commit_index");
        snapshotReceiver = new SnapshotReceiver(ctx.snapshots(), this::newToken);
        loadTermAndVote();
        recoverLog();
        applyConfiguration(log.configuration());
        // The view in force at what execution has already seen (views are numbered by the entry after it).
        installView(lastDelivered, log.configurationAt(lastDelivered));
        if (log.lastTerm() > currentTerm) {
            // Entries of a newer term reached the log but the term record did not: we never voted in it
            // (a vote is durable before it is sent), so adopting the term with no vote is truthful.
            currentTerm = log.lastTerm();
            votedFor = null;
            persistTermAndVote();
        }
        refreshDurableIndex();
        // We may have promised a leader, before a restart, not to vote for a while (lease reads rely on it).
        heardFromLeaderAt = ctx.nowNanos();
        resetElectionTimer();
        ctx.schedule(config.detectorInterval().toNanos(), DETECTOR);
        termGauge.set(currentTerm);
    }

    private void loadTermAndVote() {
        Optional<byte[]> stored = ctx.meta().get(TERM_KEY);
        if (stored.isEmpty()) return;
        var in = java.nio.ByteBuffer.wrap(stored.get());
        currentTerm = in.getLong();
        int nameLength = in.getShort();
        if (nameLength > 0) {
            byte[] name = new byte[nameLength];
            in.get(name);
            votedFor = NodeId.of(new String(name, java.nio.charset.StandardCharsets.US_ASCII));
        }
    }

    private void persistTermAndVote() {
        byte[] name = votedFor == null ? new byte[0] : votedFor.value().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        var out = java.nio.ByteBuffer.allocate(10 + name.length);
        out.putLong(currentTerm).putShort((short) name.length).put(name);
        termToken = nextToken++;
        ctx.meta().put(TERM_KEY, out.array(), termToken);
        termGauge.set(currentTerm);
    }

    /**
     * Rebuilds the log view after a restart. The base is the newest recorded compaction point the
     * log may have been compacted to (the storage may keep entries below it: space is reclaimed in
     * whole segments). Records above the newest snapshot belong to snapshot installs that never
     * completed and are ignored. A snapshot newer than the log (installed just before a crash, or
     * taken locally of entries whose log writes were lost) becomes the base; its configuration is
     * recorded, or, for a local snapshot, is the log's own: configuration entries are applied only
     * once durable ({@link #deliverCommitted}), so none can lie between the durable log and it.
     */
    private void recoverLog() {
        Configuration bootstrap = Configuration.ofVoters(config.initialVoters().isEmpty() ? members : config.initialVoters());
        bases.addAll(BaseRecord.decodeAll(ctx.meta().get(BASE_KEY).orElse(null)));
        var durable = ctx.log();
        Optional<SnapshotMeta> snapshot = ctx.snapshots().latest();
        long snapshotIndex = snapshot.map(SnapshotMeta::lastIncludedIndex).orElse(0L);
        long snapshotTerm = snapshot.map(SnapshotMeta::lastIncludedTerm).orElse(0L);
        BaseRecord base = bases.stream()
                .filter(b -> b.index() >= durable.firstIndex() - 1 && b.index() <= snapshotIndex)
                .max((a, b) -> Long.compare(a.index(), b.index()))
                .orElse(null);
        if (base == null) {
            if (durable.firstIndex() > 1) {
                throw new IllegalStateException("the log starts at " + durable.firstIndex() + " but no Raft base record under '" + BASE_KEY
                        + "' covers it: the meta store and the log do not belong together");
            }
            base = new BaseRecord(0, 0, bootstrap);
        }
        log = new RaftLog(durable, base.index(), base.term(), base.configuration());
        if (durable.lastIndex() < base.index()) log.installSnapshot(base.index(), base.term(), base.configuration());
        if (snapshotIndex > log.baseIndex() && log.termAt(snapshotIndex) != snapshotTerm) {
            Configuration atSnapshot = baseAt(snapshotIndex).map(BaseRecord::configuration)
                    .orElseGet(() -> log.configurationAt(Math.min(log.lastIndex(), snapshotIndex)));
            saveBase(snapshotIndex, snapshotTerm, atSnapshot);
            log.installSnapshot(snapshotIndex, snapshotTerm, atSnapshot);
        }
        // Execution restarts from the snapshot; entries after it are delivered again once known committed.
        commitIndex = snapshotIndex;
        lastDelivered = snapshotIndex;
        appliedIndex = snapshotIndex;
        lastSnapshotIndex = snapshotIndex;
    }

    private Optional<BaseRecord> baseAt(long index) {
        return bases.stream().filter(b -> b.index() == index).findFirst();
    }

    /** Records the base (index, term, configuration) a compaction or snapshot install is about to create. */
    private long saveBase(long index, long term, Configuration configuration) {
        bases.removeIf(b -> b.index() == index || b.index() < log.baseIndex());
        bases.add(new BaseRecord(index, term, configuration));
        bases.sort((a, b) -> Long.compare(a.index(), b.index()));
        // Bounded, but never the record of the base the log rests on now: while the log starts there,
        // recovery needs it (snapshot installs that never complete may add records above it meanwhile).
        while (bases.size() > 4) bases.remove(bases.getFirst().index() == log.baseIndex() ? 1 : 0);
        long token = nextToken++;
        ctx.meta().put(BASE_KEY, BaseRecord.encodeAll(bases), token);
        return token;
    }

    /** A fresh token for a storage request; one counter for all of them, so tokens never repeat. */
    private long newToken() {
        return nextToken++;
    }

    // ------------------------------------------------------------------------------------------
    // Dispatch
    // ------------------------------------------------------------------------------------------

    @Override
    public void onMessage(NodeId from, ProtocolMessage message) {
        if (storageFailed || !(message instanceof RaftMessage m)) return;
        switch (m) {
            case PreVoteRequest r -> onPreVoteRequest(from, r);
            case PreVoteResponse r -> onPreVoteResponse(from, r);
            case VoteRequest r -> onVoteRequest(from, r);
            case VoteResponse r -> onVoteResponse(from, r);
            case AppendEntries r -> onAppendEntries(from, r);
            case AppendEntriesResponse r -> onAppendEntriesResponse(from, r);
            case Heartbeat r -> onHeartbeat(from, r);
            case HeartbeatResponse r -> onHeartbeatResponse(from, r);
            case InstallSnapshot r -> onInstallSnapshot(from, r);
            case InstallSnapshotResponse r -> onInstallSnapshotResponse(from, r);
            case TimeoutNow r -> onTimeoutNow(from, r);
        }
    }

    @Override
    public void onTimer(TimerKey key) {
        if (storageFailed) return;
        switch (key) {
            case ElectionTimer t -> onElectionTimeout();
            case HeartbeatTimer t -> onHeartbeatTimer();
            case CheckQuorumTimer t -> onCheckQuorumTimer();
            case DetectorTimer t -> onDetectorTimer();
            case TransferTimer t -> onTransferTimer();
            case ReplicateTimer t -> onReplicateTimer();
            default -> { }
        }
    }

    @Override
    public void onClientRequest(ClientRequest request) {
        if (storageFailed) {
            ctx.reject(request.requestId(), new Rejection.Unavailable("storage failed on " + self));
            return;
        }
        switch (request.kind()) {
            case COMMAND -> onCommand(request);
            case READ -> onRead(request);
        }
    }

    @Override
    public void onStorageEvent(StorageEvent event) {
        switch (event) {
            case StorageEvent.LogSynced s -> onLogSynced(s);
            case StorageEvent.MetaSaved s -> onMetaSaved(s);
            case StorageEvent.SnapshotTaken s -> onSnapshotTaken(s);
            case StorageEvent.SnapshotChunkRead s -> onSnapshotChunkRead(s);
            case StorageEvent.SnapshotChunkWritten s -> onSnapshotChunkWritten(s);
            case StorageEvent.SnapshotInstalled s -> onSnapshotInstalled(s);
            case StorageEvent.SnapshotFailed s -> onSnapshotFailed(s.token());
            case StorageEvent.StorageFailed s -> onStorageFailed(s);
        }
    }

    @Override
    public void onApplied(long index) {
        appliedIndex = Math.max(appliedIndex, index);
        maybeTakeSnapshot();
    }

    // ------------------------------------------------------------------------------------------
    // Elections (§5.2, §5.4.1; pre-vote thesis §9.6; leader stickiness thesis §4.2.3)
    // ------------------------------------------------------------------------------------------

    private void onElectionTimeout() {
        electionArmed = false;
        if (state instanceof LeaderState) return;
        long rest = electionDeadline - now();
        if (rest > 0) {
            // A leader was heard since the timer was armed (extendElectionTimer): not due yet, wait for the rest.
            ctx.schedule(rest, ELECTION);
            electionArmed = true;
            return;
        }
        if (!log.configuration().isVoter(self)) { // learners and removed nodes never campaign
            resetElectionTimer();
            return;
        }
        if (config.preVote()) startPreVote();
        else startElection(null, RequestIds.BACKGROUND, false);
    }

    /** Thesis §9.6: ask whether we could win before disturbing anyone with a higher term. */
    private void startPreVote() {
        leaderId = null;
        Configuration c = log.configuration();
        CandidateState candidacy = CandidateState.preVote(QuorumTracker.kOfN(c.voters(), c.quorum(), now(), now() + electionMinNanos));
        state = candidacy;
        resetElectionTimer();
        if (candidacy.votes.ack(self, now())) {
            startElection(null, RequestIds.BACKGROUND, false);
            return;
        }
        var request = new PreVoteRequest(currentTerm + 1, log.lastIndex(), log.lastTerm());
        for (NodeId v : c.voters()) send(v, request);
    }

    /**
     * §5.2: increment the term, vote for ourselves (durably), and ask every other voter. An election
     * that a leader asked for with TimeoutNow carries the transfer ({@code transferOrigin}, null
     * otherwise), answered by our first entry if we win.
     */
    private void startElection(NodeId transferOrigin, long transferRequestId, boolean leadershipTransfer) {
        electionsStarted.increment();
        leaderId = null;
        currentTerm++;
        votedFor = self;
        persistTermAndVote();
        Configuration c = log.configuration();
        CandidateState candidacy = CandidateState.election(QuorumTracker.kOfN(c.voters(), c.quorum(), now(), now() + electionMinNanos),
                termToken, transferOrigin, transferRequestId);
        state = candidacy;
        resetElectionTimer();
        var request = new VoteRequest(currentTerm, log.lastIndex(), log.lastTerm(), leadershipTransfer);
        for (NodeId v : c.voters()) send(v, request); // held by send() until our own vote is durable
        if (termAndVoteDurable()) countSelfVote(candidacy); // otherwise onMetaSaved counts it
    }

    private void countSelfVote(CandidateState candidacy) {
        candidacy.selfVoteCounted = true;
        candidacy.votes.ack(self, now());
        if (candidacy.votes.isYes()) becomeLeader(candidacy);
    }

    /** Thesis §9.6 PreVote: granted if we would vote for the sender in its next term; no state changes. */
    private void onPreVoteRequest(NodeId from, PreVoteRequest m) {
        boolean granted = m.term() > currentTerm
                && !heardFromLiveLeader()
                && candidateUpToDate(m.lastLogIndex(), m.lastLogTerm());
        send(from, new PreVoteResponse(granted ? m.term() : currentTerm, granted));
    }

    /** Thesis §9.6: a majority of pre-votes (ours included) starts the real election. */
    private void onPreVoteResponse(NodeId from, PreVoteResponse m) {
        if (!(state instanceof CandidateState candidacy) || !candidacy.preVote) return;
        if (m.granted()) {
            if (m.term() == currentTerm + 1 && candidacy.votes.ack(from, now())) startElection(null, RequestIds.BACKGROUND, false);
        } else if (m.term() > currentTerm) {
            becomeFollower(m.term(), null);
        } else {
            candidacy.votes.refuse(from, now());
        }
    }

    /**
     * §5.2 RequestVote, §5.4.1 election restriction. A follower that heard from a live leader within
     * the minimum election timeout ignores the request unless it comes from a leadership transfer
     * (thesis §4.2.3); the vote is durable before the answer leaves (held by {@link #send}).
     */
    private void onVoteRequest(NodeId from, VoteRequest m) {
        if (m.term() < currentTerm || (!m.leadershipTransfer() && heardFromLiveLeader())) {
            send(from, new VoteResponse(currentTerm, false));
            return;
        }
        if (m.term() > currentTerm) {
            // Figure 2 (and thesis §3.4): the election timer restarts on the current leader's messages and on a
            // granted vote, not on a higher term from a candidate we may refuse; otherwise a candidate with a
            // shorter log, which can never win, keeps delaying the one member that could (seen with pre-vote
            // off: issue 16, seed 135 with --admin, nine lost elections in a row). Safe: no safety property
            // rests on timers (terms, durable votes and the election restriction do that). Keeping a running
            // timer only lets us stand sooner; we still adopt the term and may grant below (which restarts
            // it), and a winner's first AppendEntries restarts it too. Only a leader stepping down has no
            // timer running, and starts one.
            becomeFollowerKeepingTimer(m.term(), !(state instanceof LeaderState) && !refusedCandidateRestartsTimer());
        }
        boolean granted = (votedFor == null || votedFor.equals(from)) && candidateUpToDate(m.lastLogIndex(), m.lastLogTerm());
        if (granted && votedFor == null) {
            votedFor = from;
            persistTermAndVote();
        }
        if (granted) resetElectionTimer();
        send(from, new VoteResponse(currentTerm, granted));
    }

    /** §5.2: votes from a majority of the voters of our configuration make us leader (§5.1: a higher term makes us follow). */
    private void onVoteResponse(NodeId from, VoteResponse m) {
        if (m.term() > currentTerm) {
            becomeFollower(m.term(), null);
            return;
        }
        if (!(state instanceof CandidateState candidacy) || candidacy.preVote || m.term() != currentTerm) return;
        if (!m.granted()) {
            candidacy.votes.refuse(from, now());
            return;
        }
        candidacy.votes.ack(from, now());
        // A leader's own term must be durable before it acts: otherwise it could vote again in it after a crash.
        if (candidacy.votes.isYes() && candidacy.selfVoteCounted) becomeLeader(candidacy);
    }

    /** Thesis §3.10: the leader asks us to start an election now, skipping pre-vote and stickiness. */
    private void onTimeoutNow(NodeId from, TimeoutNow m) {
        if (m.term() != currentTerm || !(state instanceof FollowerState) || !from.equals(leaderId) || !log.configuration().isVoter(self)) return;
        startElection(m.origin(), m.requestId(), true);
    }

    private boolean heardFromLiveLeader() {
        return state instanceof LeaderState || now() - heardFromLeaderAt < electionMinNanos;
    }

    /** Whether a candidate's higher term restarts our election timer even if we refuse it; false (Figure 2); a broken twin says true. */
    boolean refusedCandidateRestartsTimer() {
        return false;
    }

    /** {@link #becomeFollower} for a higher term heard from a candidate; a running election timer (follower or candidate) is kept. */
    private void becomeFollowerKeepingTimer(long term, boolean timerRunning) {
        if (!timerRunning) {
            becomeFollower(term, null);
            return;
        }
        currentTerm = term;
        votedFor = null;
        persistTermAndVote();
        state = new FollowerState();
        leaderId = null;
    }

    /**
     * Follows {@code leader} (null if unknown) in {@code term}. A new term or a new leader starts a
     * new {@link FollowerState}, so no acknowledgement owed to an earlier leader reaches a later one;
     * a leader's state is dropped here ({@link #leaderStepDown}).
     */
    private void becomeFollower(long term, NodeId leader) {
        LeaderState wasLeader = state instanceof LeaderState l ? l : null;
        boolean newTerm = term > currentTerm;
        if (newTerm) {
            currentTerm = term;
            votedFor = null;
            persistTermAndVote();
        }
        boolean newLeader = leader != null && !leader.equals(leaderId);
        if (newTerm || newLeader || !(state instanceof FollowerState)) state = new FollowerState();
        leaderId = leader;
        if (wasLeader != null) leaderStepDown(wasLeader);
        resetElectionTimer();
    }

    /**
     * Accepts {@code from} as the leader of {@code term} (§5.1, §5.2) after an AppendEntries, heartbeat
     * or snapshot, and returns our follower state for it; null if we refuse (we lead this term ourselves).
     */
    private FollowerState acceptLeader(NodeId from, long term) {
        if (state instanceof LeaderState && term == currentTerm) return null; // two leaders in one term: refuse; the invariants report it
        if (term > currentTerm || !(state instanceof FollowerState) || !from.equals(leaderId)) becomeFollower(term, from);
        heardFromLeaderAt = now();
        extendElectionTimer(heardFromLeaderAt);
        return (FollowerState) state; // becomeFollower made us a follower if we were not one
    }

    /** Starts a new election timeout with a fresh random length (§5.2: randomised so that split votes are rare). */
    private void resetElectionTimer() {
        long spread = electionSpreadNanos > 0 ? ctx.random().nextLong(electionSpreadNanos) : 0;
        electionTimeoutNanos = electionMinNanos + spread;
        electionDeadline = now() + electionTimeoutNanos;
        ctx.schedule(electionTimeoutNanos, ELECTION);
        electionArmed = true;
    }

    /**
     * Restarts the election timeout at {@code now} (a message from the leader, Figure 2) with the length drawn when
     * the timer was last reset: only the deadline moves, later, and the armed timer re-arms for the rest when it fires.
     * Safe: no safety property rests on timers; a follower still stands a full timeout after the leader's last
     * message, and the length is still drawn at random per term, leader change and election (resetElectionTimer).
     */
    private void extendElectionTimer(long now) {
        if (!electionArmed) {
            resetElectionTimer();
            return;
        }
        electionDeadline = Math.max(electionDeadline, now + electionTimeoutNanos);
    }

    private void cancelElectionTimer() {
        ctx.cancel(ELECTION);
        electionArmed = false;
    }

    // ------------------------------------------------------------------------------------------
    // Leadership
    // ------------------------------------------------------------------------------------------

    private void becomeLeader(CandidateState candidacy) {
        leaderId = self;
        cancelElectionTimer();
        long now = now();
        CommitTracker commits = new CommitTracker(log.configuration().voters(), config.commitDeadline().toNanos(), MAX_COMMIT_ROUNDS, this::commitQuorum);
        // §5.4.2 / §8: the leader commits a no-op of its term (appended below at termStart) so that earlier
        // entries commit and reads know the commit index.
        long termStart = log.lastIndex() + 1;
        LeaderState leader = new LeaderState(commits, termStart, new LeaderReads(MAX_HEARTBEAT_ROUNDS),
                new SnapshotSender(ctx.snapshots(), log, config.snapshotChunkBytes(), this::newToken));
        state = leader;
        for (NodeId n : log.configuration().members()) {
            if (n.equals(self)) continue;
            leader.peers.put(n, new Peer(n, log.lastIndex() + 1, now));
        }
        commits.ack(self, durableIndex, now);
        detector.resetQuorumHistory();
        NodeId origin = candidacy.transferOrigin;
        appendAsLeader(leader, new EntryPayload.Noop(origin, origin == null ? RequestIds.BACKGROUND : candidacy.transferRequestId));
        broadcastHeartbeat(leader, RequestIds.BACKGROUND);
        ctx.schedule(heartbeatNanos, HEARTBEAT);
        ctx.schedule(electionMinNanos, CHECK_QUORUM);
    }

    /** Leadership ended: waiting reads are redirected, timers stop, and {@code leader} is no longer reachable. */
    private void leaderStepDown(LeaderState leader) {
        leaderStepDowns.increment();
        ctx.cancel(HEARTBEAT);
        ctx.cancel(CHECK_QUORUM);
        ctx.cancel(TRANSFER);
        Rejection notLeader = Rejection.Redirect.to(leaderId);
        for (LeaderReads.PendingRead r : leader.reads.drain()) ctx.reject(r.requestId(), notLeader);
        // A transfer whose TimeoutNow went out may still complete through the new leader's first entry.
        LeadershipTransfer transfer = leader.transfer;
        if (transfer != null && !transfer.timeoutNowSent) ctx.reject(transfer.requestId, new Rejection.Unavailable("leadership was lost during the transfer"));
        leader.transfer = null;
        // A handler still holding this state after the step-down (it stepped down midway) finds no followers to send to.
        leader.peers.clear();
        detector.resetQuorumHistory();
    }

    /** Appends an entry of the current term to the leader's log and starts its quorum wait. */
    private void appendAsLeader(LeaderState leader, EntryPayload payload) {
        long index = log.lastIndex() + 1;
        appendAsLeader(leader, index, EntryPayload.encode(payload), EntryPayload.toCommitted(index, payload), payload);
    }

    /**
     * A client command, appended without a payload record in between (alloc21): its entry bytes are encoded from the
     * request's fields and its {@link Committed} is what delivery hands over when it commits.
     */
    private void appendCommandAsLeader(LeaderState leader, ClientRequest r) {
        long index = log.lastIndex() + 1;
        byte[] bytes = EntryPayload.encodeCommand(self, r.requestId(), r.session(), r.payload());
        appendAsLeader(leader, index, bytes, new Committed(index, self, r.requestId(), r.session(), r.payload()), null);
    }

    /** {@code payload}: the entry's payload, or null for a client command. */
    private void appendAsLeader(LeaderState leader, long index, byte[] bytes, Committed committed, EntryPayload payload) {
        log.append(new LogEntry(index, currentTerm, bytes));
        leader.appended(index, committed);
        leader.uncommittedBytes += bytes.length;
        if (payload instanceof EntryPayload.ConfigChange) applyConfiguration(log.configuration());
        if (payload == null || payload instanceof EntryPayload.Command) {
            // Its quorum wait starts with the batch (onReplicateTimer): one commit round per batch, not per command.
            leader.unproposedThrough = index;
            scheduleReplication();
        } else {
            leader.unproposedThrough = 0; // this entry's round covers every command before it
            handleCompleted(leader, leader.commits.propose(index, now()));
            for (Peer p : leader.peers.values()) replicate(leader, p);
        }
    }

    /**
     * Batches the client commands that arrive together into one AppendEntries per follower. A timer
     * with no delay fires only after the runtime has handed the engine every input it drained at once
     * (NodeRuntime runs due timers after each drain of its inbox; the simulator after the current
     * event), so under load one message carries every command of a drain, and a lone command waits
     * for nothing: the batch adapts to the load with no batching delay to tune. Sending later is
     * always safe in Raft (§5.3: followers accept any prefix in order); only the message count
     * changes.
     */
    private void scheduleReplication() {
        if (replicationDue) return;
        replicationDue = true;
        ctx.schedule(0, REPLICATE);
    }

    /**
     * The end of a batch of commands: one commit round (quorum wait) for all of them, then one
     * AppendEntries per follower. Starting the round here rather than per command is safe because no
     * follower can acknowledge an entry before it is sent (below), and the leader's own durable write,
     * if it was reported meanwhile, is counted when the round is created (CommitTracker counts every
     * voter whose match already covers the round); it saves a quorum tracker per command (issue 25).
     */
    private void onReplicateTimer() {
        replicationDue = false;
        if (!(state instanceof LeaderState leader)) return;
        long target = leader.unproposedThrough;
        if (target != 0) {
            leader.unproposedThrough = 0;
            handleCompleted(leader, leader.commits.propose(target, now()));
            if (state != leader) return; // committing stepped us down (a configuration without us)
        }
        for (Peer p : leader.peers.values()) replicate(leader, p);
    }

    private void onHeartbeatTimer() {
        if (!(state instanceof LeaderState leader)) return;
        long now = now();
        leader.reads.expire(now, electionMinNanos);
        broadcastHeartbeat(leader, RequestIds.BACKGROUND);
        for (Peer p : leader.peers.values()) maybeResend(leader, p, now);
        detector.overdue(leader.commits.newlyOverdue(now).size());
        ctx.schedule(heartbeatNanos, HEARTBEAT);
    }

    /** Thesis §6.2 check-quorum: a leader that cannot reach a majority steps down, so clients find the real one. */
    private void onCheckQuorumTimer() {
        if (!(state instanceof LeaderState leader)) return;
        if (config.checkQuorum()) {
            Configuration c = log.configuration();
            QuorumTracker reachable = QuorumTracker.kOfN(c.voters(), c.quorum(), now(), now());
            reachable.ack(self, now());
            for (NodeId v : c.voters()) {
                Peer p = leader.peers.get(v);
                if (p != null && now() - p.link.lastHeardAt() < electionMinNanos) reachable.ack(v, now());
            }
            if (!reachable.isYes()) {
                becomeFollower(currentTerm, null);
                return;
            }
        }
        ctx.schedule(electionMinNanos, CHECK_QUORUM);
    }

    // ------------------------------------------------------------------------------------------
    // Replication (§5.3) with pipelining, batching and bounded per-follower windows
    // ------------------------------------------------------------------------------------------

    /** Sends {@code p} what it should get now; never queues beyond the window. */
    private void replicate(LeaderState leader, Peer p) {
        switch (p.mode) {
            case SNAPSHOT -> { }
            case PROBE -> {
                if (!p.probeOutstanding) sendAppend(leader, p, true, true);
            }
            case REPLICATE -> {
                while (p.mode == Peer.Mode.REPLICATE && p.next <= log.lastIndex() && windowOpen(p)) {
                    sendAppend(leader, p, false, true);
                }
            }
        }
        maybeSendTimeoutNow(leader, p);
    }

    /**
     * DESIGN §3 rule 2: room in {@code p}'s bounded in-flight window. A follower whose window is full gets
     * nothing new; it catches up once it answers. Overridable so tests can plant an unbounded queue.
     */
    boolean windowOpen(Peer p) {
        return !p.link.windowFull(config.maxInflightMessages(), config.maxInflightBytes());
    }

    /**
     * How many of {@code voters} voters a commit waits for: a majority (§5.3), the leader's own durable
     * write counting as one vote (DESIGN §3 rule 3). Any majority will do, so no single follower decides
     * when an entry commits. Overridable so tests can plant a wrong quorum.
     */
    int commitQuorum(int voters) {
        return QuorumTracker.majority(voters);
    }

    /**
     * Called after a follower's acknowledgement was counted by the commit rounds. Does nothing: §5.4.2
     * (Figure 8) forbids committing an entry of an earlier term by counting its replicas, and the
     * rounds only cover entries of the leader's term. Overridable so tests can plant that bug.
     */
    void acknowledgementCounted(LeaderState leader) {}

    /**
     * §5.2 "before responding to RPCs": true once the current term and vote are on disk. Until then
     * messages are held and our own vote is not counted, so a crash cannot make us vote twice in a
     * term. Overridable so tests can plant a vote that is acted upon before it is durable.
     */
    boolean termAndVoteDurable() {
        return termToken <= termDurableToken;
    }

    /**
     * Sends one AppendEntries from {@code p.next}. A probe is the only message in flight and carries
     * entries only if {@code withEntries} (an unresponsive follower gets empty probes, so no data is
     * sent twice into the void). Falls back to a snapshot if the entries are compacted.
     */
    private void sendAppend(LeaderState leader, Peer p, boolean probe, boolean withEntries) {
        long prev = p.next - 1;
        if (prev < log.baseIndex()) {
            leader.snapshots.start(p, now());
            return;
        }
        AppendEntries again = probe || !withEntries ? null : sentAgain(leader, prev);
        List<LogEntry> entries = again != null ? again.entries() : withEntries ? batchFrom(p.next) : List.of();
        int bytes = 0;
        for (int i = 0; i < entries.size(); i++) bytes += entries.get(i).payload().length;
        long requestId = probe || entries.isEmpty() ? RequestIds.BACKGROUND : EntryPayload.requestIdOf(entries.getFirst().payload());
        send(p.id, again != null ? again : appendFor(leader, prev, entries, requestId));
        long now = now();
        if (probe) {
            p.probeOutstanding = true;
            p.probePrev = prev;
            p.probeSentAt = now;
        } else {
            p.link.sent(prev + 1, prev + entries.size(), bytes, now);
            p.next = prev + entries.size() + 1;
        }
    }

    /**
     * The AppendEntries for these values: the one sent last if it has them all, so that followers in step get the
     * same instance and the transport encodes it once (issue 25: one encoding per batch, not one per follower).
     * Equal term, previous index, entry count and commit index mean equal entries: a leader never changes its own
     * log within its term (it only appends), so the same index range holds the same entries.
     */
    private AppendEntries appendFor(LeaderState leader, long prev, List<LogEntry> entries, long requestId) {
        AppendEntries last = leader.lastAppend;
        if (last != null && last.term() == currentTerm && last.prevLogIndex() == prev && last.entries().size() == entries.size()
                && last.leaderCommit() == commitIndex && last.requestId() == requestId) {
            return last;
        }
        AppendEntries m = new AppendEntries(currentTerm, prev, log.termAt(prev), entries, commitIndex, requestId);
        leader.lastAppend = m;
        return m;
    }

    /**
     * The AppendEntries sent last, if it is exactly what {@link #batchFrom}{@code (prev + 1)} and {@link #appendFor}
     * would build now, else null (wire22: the second follower of a batch no longer rebuilds the entry list only for
     * {@code appendFor} to find the message it already has). Exact because the message was built by this code from
     * {@code batchFrom(prev + 1)} in the current term, it ends at the log's last index (nothing was appended since,
     * and a leader never changes its log within its term, so the same entries are there), and {@code batchFrom} is a
     * function of those entries and the fixed batch limits; the commit index and request id are compared as
     * {@code appendFor} does.
     */
    private AppendEntries sentAgain(LeaderState leader, long prev) {
        AppendEntries last = leader.lastAppend;
        if (last == null || last.term() != currentTerm || last.prevLogIndex() != prev || last.leaderCommit() != commitIndex) return null;
        List<LogEntry> entries = last.entries();
        if (entries.isEmpty() || entries.getLast().index() != log.lastIndex()) return null;
        return last.requestId() == EntryPayload.requestIdOf(entries.getFirst().payload()) ? last : null;
    }

    private List<LogEntry> batchFrom(long from) {
        long last = log.lastIndex();
        if (from > last) return List.of();
        List<LogEntry> batch = new ArrayList<>((int) Math.min(config.maxBatchEntries(), last - from + 1)); // sized once: no regrowth per batch
        long bytes = 0;
        for (long i = from; i <= last && batch.size() < config.maxBatchEntries(); i++) {
            LogEntry e = log.entry(i);
            if (!batch.isEmpty() && bytes + e.payload().length > config.maxBatchBytes()) break;
            batch.add(e);
            bytes += e.payload().length;
        }
        return batch;
    }

    /**
     * §5.3 AppendEntries on the receiver: reject on a term or log mismatch (with conflict hints),
     * otherwise remove conflicting entries, append, advance the commit index, and acknowledge once the
     * entries are durable.
     */
    private void onAppendEntries(NodeId from, AppendEntries m) {
        FollowerState follower = m.term() < currentTerm ? null : acceptLeader(from, m.term());
        if (follower == null) {
            send(from, new AppendEntriesResponse(currentTerm, false, 0, m.prevLogIndex(), 0, 0, m.requestId()));
            return;
        }
        long verified = m.prevLogIndex() + m.entries().size();
        long prev = m.prevLogIndex();
        List<LogEntry> entries = m.entries();
        if (prev < commitIndex) {
            // Everything up to our commit index is committed, hence equal to the leader's log (§5.4.3).
            int skip = (int) Math.min(entries.size(), commitIndex - prev);
            entries = entries.subList(skip, entries.size());
            prev += skip;
            if (entries.isEmpty()) {
                acknowledge(follower, from, verified, m.requestId());
                return;
            }
        } else if (prev > log.lastIndex()) {
            send(from, new AppendEntriesResponse(currentTerm, false, 0, m.prevLogIndex(), 0, log.lastIndex() + 1, m.requestId()));
            return;
        } else if (!prevEntryMatches(prev, m.prevLogTerm())) {
            long conflictTerm = log.termAt(prev);
            send(from, new AppendEntriesResponse(currentTerm, false, 0, m.prevLogIndex(), conflictTerm,
                    log.firstIndexOfTerm(conflictTerm, prev), m.requestId()));
            return;
        }
        for (LogEntry e : entries) {
            long index = e.index();
            if (index <= log.lastIndex()) {
                if (log.termAt(index) == e.term()) continue; // already have it (a duplicate or an overlapping batch)
                if (index <= commitIndex) {
                    throw new IllegalStateException(self + ": leader " + from + " of term " + m.term() + " conflicts with committed entry " + index);
                }
                log.truncateSuffix(index);
                refreshDurableIndex();
                follower.logCutBackTo(index - 1);
                configurationMayHaveChanged(); // a truncated configuration entry no longer counts
            }
            log.append(e);
            if (EntryPayload.isConfigChange(e.payload())) configurationMayHaveChanged();
        }
        advanceCommit(followerCommit(m.leaderCommit(), verified));
        acknowledge(follower, from, verified, m.requestId());
    }

    /** Answers success for entries up to {@code verified} once they are durable; partial progress is acknowledged as it becomes durable. */
    private void acknowledge(FollowerState follower, NodeId leader, long verified, long requestId) {
        refreshDurableIndex();
        long ack = follower.acknowledge(verified, acknowledgeableIndex(), requestId);
        if (ack != FollowerState.NOTHING) sendAck(leader, ack, requestId);
    }

    /**
     * The highest index a follower may acknowledge: what is durable, since the leader counts the
     * acknowledgement as a vote towards committing (§5.3, DESIGN §6). Overridable so tests can plant
     * a follower that acknowledges entries its disk has not synced.
     */
    /**
     * §5.4.1 election restriction: a vote (or pre-vote) only for a candidate whose log is at least as
     * up-to-date as ours, so every leader holds every committed entry. Overridable so tests can plant
     * a voter that skips the check.
     */
    boolean candidateUpToDate(long lastLogIndex, long lastLogTerm) {
        return log.isUpToDate(lastLogIndex, lastLogTerm);
    }

    /**
     * §5.3 consistency check: entries are appended only after the entry before them, by index and
     * term, matches the leader's. Overridable so tests can plant a follower that skips it.
     */
    boolean prevEntryMatches(long prevIndex, long prevTerm) {
        return log.termAt(prevIndex) == prevTerm;
    }

    /**
     * §7 InstallSnapshot, receiver step 6: the entries after the snapshot are kept only if our entry at
     * its last index has its term; otherwise they may be a deposed leader's suffix that the snapshot's
     * history replaced, and the whole log is discarded (step 7). Overridable so tests can plant a
     * follower that keeps a conflicting suffix above an installed snapshot.
     */
    boolean logContinuesSnapshot(long lastIncludedIndex, long lastIncludedTerm) {
        return log.termAt(lastIncludedIndex) == lastIncludedTerm;
    }

    /**
     * §5.3 (Figure 2, AppendEntries step 5): a follower commits up to the leader's commit index but
     * never past the last entry this message verified, since entries after it may be a stale
     * suffix. Overridable so tests can plant a follower that trusts the leader's index alone.
     */
    long followerCommit(long leaderCommit, long verifiedIndex) {
        return Math.min(leaderCommit, verifiedIndex);
    }

    /**
     * A leadership transfer ends the lease at once and for good (thesis §3.10, §6.4.1): the target's
     * TimeoutNow election overrides the followers' promise not to vote, so a new leader can commit
     * while the old lease would still run. Overridable so tests can plant a transfer that keeps it.
     */
    boolean transferEndsLease() {
        return true;
    }

    /**
     * Whether this leader may serve reads (thesis §6.4): only once an entry of its own term committed.
     * Until then its commit index may lag what an earlier leader committed and acknowledged (a new
     * leader holds every committed entry, §5.4, but learns that they committed only by committing one
     * of its own term), so a read at it could miss an acknowledged write. Overridable so tests can
     * plant a leader that reads before.
     */
    boolean readableInTerm(LeaderState leader) {
        return leader.termCommitted(commitIndex);
    }

    long acknowledgeableIndex() {
        return durableIndex;
    }

    private void sendAck(NodeId leader, long matchIndex, long requestId) {
        send(leader, new AppendEntriesResponse(currentTerm, true, matchIndex, matchIndex, 0, 0, requestId));
    }

    private void flushPendingAck() {
        if (!(state instanceof FollowerState follower) || leaderId == null) return;
        long ack = follower.flush(durableIndex);
        if (ack != FollowerState.NOTHING) sendAck(leaderId, ack, follower.pendingRequestId());
    }

    /**
     * The leader's side of §5.3: a success advances the follower's match (and frees window slots); a
     * rejection that answers the current probe or pipeline moves the follower to probing at the
     * hinted index. Stale and duplicated answers are ignored, so they never cause resends.
     */
    private void onAppendEntriesResponse(NodeId from, AppendEntriesResponse m) {
        if (m.term() > currentTerm) {
            becomeFollower(m.term(), null);
            return;
        }
        if (!(state instanceof LeaderState leader) || m.term() < currentTerm) return;
        Peer p = leader.peers.get(from);
        if (p == null) return;
        long now = now();
        p.link.heard(now);
        if (m.success()) {
            if (m.matchIndex() > p.match) {
                p.match = m.matchIndex();
                madeProgress(p, now);
                handleCompleted(leader, leader.commits.ack(p.id, p.match, now));
                acknowledgementCounted(leader);
            }
            switch (p.mode) {
                case PROBE -> {
                    if (p.probeOutstanding && m.matchIndex() >= p.probePrev) p.link.sampleRoundTrip(now - p.probeSentAt);
                    p.becomeReplicate();
                    madeProgress(p, now);
                }
                case REPLICATE -> {
                    p.link.acknowledgedThrough(p.match, now);
                    if (p.next <= p.match) p.next = p.match + 1;
                }
                case SNAPSHOT -> { }
            }
            if (state == leader) replicate(leader, p); // the commit may have removed us (onConfigurationCommitted)
            return;
        }
        if (m.prevLogIndex() < p.match || p.mode == Peer.Mode.SNAPSHOT) return; // stale: we know a later match point
        if (p.mode == Peer.Mode.PROBE && m.prevLogIndex() != p.probePrev) return; // answers an older probe
        long next = log.nextIndexAfterConflict(m.prevLogIndex(), m.conflictTerm(), m.conflictIndex(), p.match);
        if (p.mode == Peer.Mode.PROBE) p.link.sampleRoundTrip(now - p.probeSentAt);
        p.becomeProbe();
        p.next = next;
        if (next - 1 < m.prevLogIndex()) {
            madeProgress(p, now);
            replicate(leader, p); // each answer moves the probe strictly back, so answers alone cannot loop
        } else {
            // The follower contradicts an index it acknowledged (its durable log lost entries): only the
            // resend timer probes again, once per interval, instead of a ping-pong at network speed.
            matchContradictions.increment();
        }
    }

    /**
     * The only place data is resent: from the heartbeat timer, to a follower that made no progress for
     * a resend interval, at most once per interval. If the follower answered nothing since the previous
     * resend it gets an empty probe; data follows once it answers.
     */
    private void maybeResend(LeaderState leader, Peer p, long now) {
        long timeout = p.link.resendTimeout(resendNanos);
        if (!p.link.mayResend(now, timeout)) return;
        boolean stalled = switch (p.mode) {
            case REPLICATE -> p.link.oldestInflight() != null && now - Math.max(p.link.lastProgressAt(), p.link.oldestInflight().sentAt()) >= timeout;
            case PROBE -> !p.probeOutstanding || now - p.probeSentAt >= timeout;
            // A chunk read can fail (the snapshot was replaced), so a pending read does not count as progress.
            case SNAPSHOT -> now - Math.max(p.link.lastProgressAt(), p.chunkSentAt) >= timeout;
        };
        if (!stalled) return;
        boolean responsive = p.link.resending(now);
        if (p.mode == Peer.Mode.SNAPSHOT) {
            detector.resent(p.id, p.snapshotOffset, 0);
            leader.snapshots.resend(p, now);
            return;
        }
        p.becomeProbe();
        if (responsive) {
            detector.resent(p.id, p.next, p.link.resentFrom(p.next));
        } else {
            detector.resent(p.id, p.next, 0);
        }
        sendAppend(leader, p, true, responsive);
    }

    private static void madeProgress(Peer p, long now) {
        p.link.progressed(now);
    }

    /** Commits what completed quorums cover (§5.3, §5.4.2). */
    private void handleCompleted(LeaderState leader, List<CommitTracker.Completed> completed) {
        if (completed.isEmpty()) return;
        int voters = log.configuration().voters().size();
        for (CommitTracker.Completed c : completed) {
            // A round decided when it was created waited for nobody.
            if (c.incremental()) detector.quorumFormed(c.responders(), c.decidedBy(), voters, c.waitedNanos(), now());
        }
        advanceCommit(leader.commits.committedIndex());
    }

    void advanceCommit(long index) {
        long newCommit = Math.min(index, log.lastIndex());
        if (newCommit <= commitIndex) return;
        commitIndex = newCommit;
        commitGauge.set(commitIndex);
        deliverCommitted();
        if (!(state instanceof LeaderState leader)) return;
        if (leader.termCommitted(commitIndex) && leader.reads.termCommitted(commitIndex) && !leader.reads.readRoundOutstanding()) {
            broadcastHeartbeat(leader, leader.reads.firstWaitingRequestId());
        }
        if (commitIndex >= log.configurationIndex()) onConfigurationCommitted(leader);
    }

    /**
     * Each configuration, once committed and delivered, is a view for channel receivers (DESIGN §2.1),
     * numbered after its entry; on a restart or a snapshot install, the one in force at that point.
     */
    private void installView(long index, Configuration c) {
        ctx.installView(new GroupView(index + 1, c.members()));
    }

    /** Hands newly committed entries to execution in index order. */
    private void deliverCommitted() {
        // The storage is restoring the state machine from a received snapshot: what we delivered now would be
        // overwritten (onSnapshotInstalled continues from the snapshot's index).
        if (snapshotReceiver.installPending()) return;
        while (lastDelivered < commitIndex) {
            long index = lastDelivered + 1;
            if (index <= log.baseIndex()) { // covered by an installed snapshot
                lastDelivered = log.baseIndex();
                continue;
            }
            byte[] payload = log.entry(index).payload();
            // A configuration entry is applied only once it is durable here, so a snapshot never covers
            // a configuration the restarted node could not find again (see recoverLog).
            if (EntryPayload.isConfigChange(payload) && index > durableIndex) return;
            Committed committed = null;
            if (state instanceof LeaderState leader && index >= leader.termStartIndex) {
                leader.uncommittedBytes -= payload.length;
                committed = leader.takeOwn(index); // what it appended there: no decode (issue 25)
            }
            // A follower's command (or one of an earlier term) is handed over as a range of the log's entry;
            // anything else is decoded.
            if (committed == null) committed = EntryPayload.committed(index, payload);
            ctx.deliver(committed);
            // A configuration entry (rare) is decoded for its view; the delivered Committed carries none.
            if (EntryPayload.isConfigChange(payload) && EntryPayload.decode(payload) instanceof EntryPayload.ConfigChange c) installView(index, c.configuration());
            lastDelivered = index;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Client requests
    // ------------------------------------------------------------------------------------------

    private void onCommand(ClientRequest r) {
        if (!(state instanceof LeaderState leader)) {
            ctx.reject(r.requestId(), Rejection.Redirect.to(leaderId));
            return;
        }
        Optional<AdminRequest> admin = RaftAdmin.decode(r.payload());
        if (admin.isPresent()) {
            changeMembershipOrLeadership(leader, r.requestId(), admin.get());
            return;
        }
        if (leader.transfer != null) {
            ctx.reject(r.requestId(), new Rejection.Unavailable("leadership is being transferred to " + leader.transfer.target));
            return;
        }
        if (log.lastIndex() - commitIndex >= config.maxUncommittedEntries() || leader.uncommittedBytes >= config.maxUncommittedBytes()) {
            ctx.reject(r.requestId(), new Rejection.Overloaded((log.lastIndex() - commitIndex) + " entries / " + leader.uncommittedBytes
                    + " bytes wait for a quorum"));
            return;
        }
        appendCommandAsLeader(leader, r);
    }

    /** Serves a read as its policy asks (thesis §6.4); overridable so tests can plant a read that skips the read index. */
    void onRead(ClientRequest r) {
        switch (r.readPolicy()) {
            case ReadPolicy.Stale s -> ctx.serveRead(r.requestId(), s.minIndex());
            case ReadPolicy.Lease l -> {
                if (state instanceof LeaderState leader && leaseValid(leader)) ctx.serveRead(r.requestId(), commitIndex);
                else readIndex(r.requestId()); // no valid lease: fall back to a confirmed read
            }
            case ReadPolicy.Linearizable l -> readIndex(r.requestId());
        }
    }

    /**
     * A leader lease (thesis §6.4.1): followers refuse votes for {@code electionTimeoutMin} after they
     * heard from us, so no other leader can exist until then, less the allowed clock drift, counted
     * from when the heartbeat a quorum acknowledged was sent. A transfer ends the lease at once,
     * because TimeoutNow overrides the followers' refusal.
     */
    private boolean leaseValid(LeaderState leader) {
        return (leader.transfer == null || !transferEndsLease()) && readableInTerm(leader) && leader.reads.leaseRunning(now());
    }

    /**
     * Thesis §6.4 ReadIndex: the read index is the commit index once the leader committed an entry of
     * its term; leadership is confirmed by a quorum acknowledging a heartbeat sent after the read
     * arrived. Reads share heartbeat rounds ({@link LeaderReads}); no log entry is written.
     */
    private void readIndex(long requestId) {
        if (!(state instanceof LeaderState leader)) {
            ctx.reject(requestId, Rejection.Redirect.to(leaderId));
            return;
        }
        if (leader.reads.pending() >= config.maxPendingReads()) {
            ctx.reject(requestId, new Rejection.Overloaded(leader.reads.pending() + " reads wait for leadership confirmation"));
            return;
        }
        if (!readableInTerm(leader)) {
            leader.reads.awaitTermCommit(requestId);
            return;
        }
        Configuration c = log.configuration();
        if (c.voters().size() == 1 && c.isVoter(self)) {
            ctx.serveRead(requestId, commitIndex);
            return;
        }
        leader.reads.awaitRound(requestId, commitIndex);
        if (!leader.reads.readRoundOutstanding()) broadcastHeartbeat(leader, requestId);
    }

    /** Sends the next heartbeat round to every peer; reads waiting for a round ride on it. */
    private void broadcastHeartbeat(LeaderState leader, long requestId) {
        long seq = heartbeats.next(now());
        leader.reads.roundSent(seq, now());
        for (Peer p : leader.peers.values()) send(p.id, new Heartbeat(currentTerm, Math.min(commitIndex, p.match), seq, requestId));
        confirmHeartbeatRounds(leader);
    }

    /** §5.2 heartbeat on the follower: it is a live leader; the commit index it carries is known to be in our log. */
    private void onHeartbeat(NodeId from, Heartbeat m) {
        if (m.term() < currentTerm || acceptLeader(from, m.term()) == null) {
            send(from, new HeartbeatResponse(currentTerm, m.seq(), m.requestId()));
            return;
        }
        advanceCommit(Math.min(m.commitIndex(), log.lastIndex()));
        send(from, new HeartbeatResponse(currentTerm, m.seq(), m.requestId()));
    }

    /** Confirms leadership for heartbeat rounds (thesis §6.4); never triggers a data send (DepFast pattern A). */
    private void onHeartbeatResponse(NodeId from, HeartbeatResponse m) {
        if (m.term() > currentTerm) {
            becomeFollower(m.term(), null);
            return;
        }
        if (!(state instanceof LeaderState leader) || m.term() < currentTerm) return;
        Peer p = leader.peers.get(from);
        if (p == null) return;
        long now = now();
        p.link.heard(now);
        if (m.seq() > p.ackedSeq && heartbeats.remembers(m.seq())) p.link.sampleRoundTrip(now - heartbeats.sentAt(m.seq()));
        p.ackedSeq = Math.max(p.ackedSeq, m.seq());
        confirmHeartbeatRounds(leader);
    }

    /** Serves the reads of every round a quorum acknowledged, and starts a round for reads left waiting. */
    private void confirmHeartbeatRounds(LeaderState leader) {
        List<LeaderReads.PendingRead> served = leader.reads.confirm(seq -> roundAcknowledged(leader, seq), leaseNanos);
        if (served == null) return;
        for (LeaderReads.PendingRead r : served) ctx.serveRead(r.requestId(), r.readIndex());
        if (leader.reads.readsWaitForRound() && !leader.reads.readRoundOutstanding()) broadcastHeartbeat(leader, leader.reads.firstWaitingRequestId());
    }

    private boolean roundAcknowledged(LeaderState leader, long seq) {
        Configuration c = log.configuration();
        QuorumTracker q = QuorumTracker.kOfN(c.voters(), c.quorum(), now(), now());
        q.ack(self, now());
        for (NodeId v : c.voters()) {
            Peer p = leader.peers.get(v);
            if (p != null && p.ackedSeq >= seq) q.ack(v, now());
        }
        return q.isYes();
    }

    // ------------------------------------------------------------------------------------------
    // Membership changes (thesis §4.1, §4.2.1) and leadership transfer (thesis §3.10)
    // ------------------------------------------------------------------------------------------

    /** Every admin request is supported; only the leader runs it (a follower rejects it with its leader hint). */
    @Override
    public boolean onAdmin(long requestId, AdminRequest request) {
        if (storageFailed) ctx.reject(requestId, new Rejection.Unavailable("storage failed on " + self));
        else if (!(state instanceof LeaderState leader)) ctx.reject(requestId, Rejection.Redirect.to(leaderId));
        else changeMembershipOrLeadership(leader, requestId, request);
        return true;
    }

    private void changeMembershipOrLeadership(LeaderState leader, long requestId, AdminRequest command) {
        if (command instanceof AdminRequest.TransferLeadership t) {
            startTransfer(leader, requestId, t.node());
            return;
        }
        Optional<String> refusal = Membership.refusal(commitIndex, leader.termStartIndex, log.configurationIndex(), leader.transfer != null);
        if (refusal.isPresent()) {
            ctx.reject(requestId, new Rejection.Unavailable(refusal.get()));
            return;
        }
        Peer learner = leader.peers.get(command.node());
        Membership.Proposal proposal = Membership.propose(log.configuration(), command, learner == null ? -1 : learner.match, commitIndex);
        if (proposal.next() == null) {
            ctx.reject(requestId, new Rejection.Unavailable(proposal.problem()));
            return;
        }
        appendAsLeader(leader, new EntryPayload.ConfigChange(self, requestId, proposal.next()));
    }

    /**
     * The one place where a new configuration takes effect on this node's state. Thesis §4.1: a
     * server uses the latest configuration in its log, committed or not, so this runs when the
     * engine starts and whenever that changes: a configuration entry appended (by the leader, or
     * from it), a conflicting suffix holding one truncated (which reverts to the configuration
     * before it), a snapshot installed. Elections, votes and quorum checks read the configuration
     * from the log each time; the state to adjust is the leader's: it starts replicating to new
     * members and counts its pending commit rounds with the new voters. Members it removed keep
     * receiving entries until the change commits ({@link #onConfigurationCommitted}). The entry that
     * set it is at {@code log.configurationIndex()} (the snapshot base if none is in the log).
     */
    private void applyConfiguration(Configuration configuration) {
        configurationApplied = configuration;
        if (state instanceof LeaderState leader) {
            for (NodeId n : configuration.members()) {
                if (!n.equals(self) && !leader.peers.containsKey(n)) leader.peers.put(n, new Peer(n, log.lastIndex(), now()));
            }
            detector.resetQuorumHistory();
            handleCompleted(leader, leader.commits.reconfigure(configuration.voters(), now()));
        }
    }

    /** Applies the log's configuration if it is not the one in effect (after a change to the log that may carry one). */
    private void configurationMayHaveChanged() {
        if (!log.configuration().equals(configurationApplied)) applyConfiguration(log.configuration());
    }

    /** Once the configuration entry commits, members it removed stop receiving entries; a removed leader steps down. */
    private void onConfigurationCommitted(LeaderState leader) {
        Configuration c = log.configuration();
        leader.peers.keySet().removeIf(n -> !c.contains(n));
        if (!c.isVoter(self)) {
            Membership.handoverTarget(c, leader.peers.values(), log.lastIndex())
                    .ifPresent(p -> send(p.id, new TimeoutNow(currentTerm, null, RequestIds.BACKGROUND)));
            becomeFollower(currentTerm, null);
        }
    }

    private void startTransfer(LeaderState leader, long requestId, NodeId target) {
        if (leader.transfer != null) {
            ctx.reject(requestId, new Rejection.Unavailable("a leadership transfer to " + leader.transfer.target + " is in progress"));
            return;
        }
        if (target.equals(self)) { // already the leader: answer when an entry of this term commits
            appendAsLeader(leader, new EntryPayload.Noop(self, requestId));
            return;
        }
        if (!log.configuration().isVoter(target) || !leader.peers.containsKey(target)) {
            ctx.reject(requestId, new Rejection.Unavailable(target + " is not a voter: " + log.configuration()));
            return;
        }
        leader.transfer = new LeadershipTransfer(target, requestId);
        if (transferEndsLease()) leader.reads.endLease();
        ctx.schedule(electionMinNanos, TRANSFER);
        replicate(leader, leader.peers.get(target));
    }

    private void maybeSendTimeoutNow(LeaderState leader, Peer p) {
        LeadershipTransfer transfer = leader.transfer;
        if (transfer == null || !transfer.readyToHandOver(p, log.lastIndex())) return;
        transfer.timeoutNowSent = true;
        send(p.id, new TimeoutNow(currentTerm, self, transfer.requestId));
    }

    private void onTransferTimer() {
        if (!(state instanceof LeaderState leader) || leader.transfer == null) return;
        if (!leader.transfer.timeoutNowSent) {
            ctx.reject(leader.transfer.requestId, new Rejection.Unavailable(leader.transfer.target + " did not catch up within an election timeout"));
        }
        leader.transfer = null;
    }

    // ------------------------------------------------------------------------------------------
    // Snapshots (§7) and log compaction
    // ------------------------------------------------------------------------------------------

    private void maybeTakeSnapshot() {
        if (snapshotInProgress || appliedIndex - lastSnapshotIndex < config.snapshotThreshold()) return;
        snapshotInProgress = true;
        snapshotToken = nextToken++;
        ctx.takeSnapshot(snapshotToken);
    }

    private void onSnapshotTaken(StorageEvent.SnapshotTaken s) {
        if (s.token() == snapshotToken) snapshotInProgress = false;
        long index = s.snapshot().lastIncludedIndex();
        lastSnapshotIndex = Math.max(lastSnapshotIndex, index);
        // Keep some entries behind the snapshot so a slightly lagging follower catches up from the log.
        long compactTo = index - config.logRetentionEntries();
        if (pendingCompactionToken != 0 || compactTo <= log.baseIndex() || !log.has(compactTo)) return;
        pendingCompactionIndex = compactTo;
        pendingCompactionToken = saveBase(compactTo, log.termAt(compactTo), log.configurationAt(compactTo));
    }

    private void onBaseSaved(long token) {
        if (token == pendingCompactionToken) {
            pendingCompactionToken = 0;
            if (pendingCompactionIndex > log.baseIndex() && log.has(pendingCompactionIndex)) log.compactPrefix(pendingCompactionIndex);
        }
        snapshotReceiver.baseSaved(token, lastDelivered);
    }

    /** §7 on the leader: a chunk the storage read for a follower goes out ({@link SnapshotSender}). */
    private void onSnapshotChunkRead(StorageEvent.SnapshotChunkRead s) {
        if (!(state instanceof LeaderState leader)) return;
        Peer p = leader.snapshots.chunkRead(s, leader.peers, now());
        if (p != null) send(p.id, new InstallSnapshot(currentTerm, s.snapshot(), p.snapshotConfig, s.offset(), s.data(), s.last()));
    }

    /** §7 InstallSnapshot on the receiver: chunks are written in order; the last one installs the snapshot ({@link SnapshotReceiver}). */
    private void onInstallSnapshot(NodeId from, InstallSnapshot m) {
        long index = m.snapshot().lastIncludedIndex();
        if (m.term() < currentTerm || acceptLeader(from, m.term()) == null) {
            send(from, new InstallSnapshotResponse(currentTerm, index, 0, false));
            return;
        }
        if (index <= commitIndex) { // we already hold everything it covers
            send(from, new InstallSnapshotResponse(currentTerm, index, 0, true));
            return;
        }
        InstallSnapshotResponse answer = snapshotReceiver.offer(m, currentTerm, this::saveBase);
        if (answer != null) send(from, answer);
    }

    /**
     * Snapshot identity. {@link SnapshotMeta} is a record with an array component, so its
     * {@code equals} compares array references and fails for a copy that came over the wire.
     */
    static boolean sameSnapshot(SnapshotMeta a, SnapshotMeta b) {
        return a != null && b != null && a.lastIncludedIndex() == b.lastIncludedIndex() && a.lastIncludedTerm() == b.lastIncludedTerm()
                && a.sizeBytes() == b.sizeBytes() && a.crc32c() == b.crc32c();
    }

    private void onSnapshotChunkWritten(StorageEvent.SnapshotChunkWritten s) {
        InstallSnapshotResponse next = snapshotReceiver.chunkWritten(s, currentTerm);
        if (next != null && leaderId != null) send(leaderId, next);
    }

    private void onSnapshotInstalled(StorageEvent.SnapshotInstalled s) {
        SnapshotReceiver.Receiving r = snapshotReceiver.installed(s);
        if (r == null) return;
        long index = r.meta.lastIncludedIndex();
        if (index > commitIndex) {
            log.installSnapshot(index, r.meta.lastIncludedTerm(), r.configuration, logContinuesSnapshot(index, r.meta.lastIncludedTerm()));
            refreshDurableIndex();
            if (state instanceof FollowerState follower) follower.logCutBackTo(log.lastIndex());
            commitIndex = index;
            lastDelivered = Math.max(lastDelivered, index);
            installView(index, r.configuration);
            appliedIndex = Math.max(appliedIndex, index);
            lastSnapshotIndex = Math.max(lastSnapshotIndex, index);
            commitGauge.set(commitIndex);
            configurationMayHaveChanged();
        } else {
            // Our commit index passed the snapshot while it was installed (a heartbeat carried it), so the log
            // already holds it and what follows; but the storage restored the state machine to the snapshot,
            // so execution continues right after it. Nothing beyond it was delivered: deliveries wait while
            // an install is pending, and a last chunk is never written below what was delivered.
            lastDelivered = Math.max(lastDelivered, index);
            appliedIndex = Math.max(appliedIndex, index);
            lastSnapshotIndex = Math.max(lastSnapshotIndex, index);
        }
        if (leaderId != null) send(leaderId, new InstallSnapshotResponse(currentTerm, index, 0, true));
        deliverCommitted(); // deliveries held while the install was pending
    }

    /** §7 on the leader: the next chunk is read once the previous one is written; a done snapshot sets the match index. */
    private void onInstallSnapshotResponse(NodeId from, InstallSnapshotResponse m) {
        if (m.term() > currentTerm) {
            becomeFollower(m.term(), null);
            return;
        }
        if (!(state instanceof LeaderState leader) || m.term() < currentTerm) return;
        Peer p = leader.peers.get(from);
        if (p == null) return;
        long now = now();
        p.link.heard(now);
        if (m.done()) {
            if (m.lastIncludedIndex() > p.match) {
                p.match = m.lastIncludedIndex();
                handleCompleted(leader, leader.commits.ack(p.id, p.match, now));
            }
            if (p.mode == Peer.Mode.SNAPSHOT && state == leader) {
                p.becomeReplicate();
                madeProgress(p, now);
                replicate(leader, p);
            }
            return;
        }
        leader.snapshots.chunkAnswered(p, m, now);
    }

    // ------------------------------------------------------------------------------------------
    // Storage completions
    // ------------------------------------------------------------------------------------------

    /**
     * "Durability may have advanced". The event's own value may predate a truncation, so the
     * storage's exact {@code durableIndex()} is what counts: a sync reported before a truncation must
     * not make the entries that replaced the truncated ones look durable.
     */
    private void onLogSynced(StorageEvent.LogSynced s) {
        refreshDurableIndex();
        if (state instanceof LeaderState leader) handleCompleted(leader, leader.commits.ack(self, durableIndex, now()));
        else flushPendingAck();
        deliverCommitted(); // a configuration entry may have been waiting to become durable
    }

    private void refreshDurableIndex() {
        durableIndex = Math.min(ctx.log().durableIndex(), log.lastIndex());
    }

    private void onMetaSaved(StorageEvent.MetaSaved s) {
        switch (s.key()) {
            case TERM_KEY -> {
                termDurableToken = Math.max(termDurableToken, s.token());
                while (!held.isEmpty() && held.peekFirst().token() <= termDurableToken) {
                    Held h = held.pollFirst();
                    transmit(h.to(), h.message());
                }
                if (state instanceof CandidateState candidacy && !candidacy.preVote && !candidacy.selfVoteCounted
                        && termDurableToken >= candidacy.candidacyToken) {
                    countSelfVote(candidacy);
                }
            }
            case BASE_KEY -> onBaseSaved(s.token());
            default -> { }
        }
    }

    /**
     * A snapshot transfer or capture failed without harming local storage: a follower's transfer
     * starts again (the resend timer restarts it from the newest snapshot), a receiver forgets the
     * partial snapshot (the next chunk makes the leader start over), a local snapshot is retried.
     */
    private void onSnapshotFailed(long token) {
        if (token == snapshotToken) snapshotInProgress = false;
        if (state instanceof LeaderState leader) leader.snapshots.readFailed(token, leader.peers);
        snapshotReceiver.writeFailed(token);
    }

    /**
     * A failed log or meta write means we can no longer promise anything: stop taking part (the
     * runtime stops the node too). Failed snapshot transfers arrive as SnapshotFailed instead.
     */
    private void onStorageFailed(StorageEvent.StorageFailed s) {
        storageFailed = true;
        if (state instanceof LeaderState) becomeFollower(currentTerm, null);
        cancelElectionTimer();
        held.clear();
    }

    // ------------------------------------------------------------------------------------------
    // Sending and time
    // ------------------------------------------------------------------------------------------

    /** Sends a message once the term and vote it may depend on are durable (§5.2: "before responding to RPCs"). */
    private void send(NodeId to, RaftMessage m) {
        if (to.equals(self)) return;
        if (!termAndVoteDurable()) {
            if (held.size() >= MAX_HELD_MESSAGES) held.pollFirst();
            held.addLast(new Held(to, m, termToken));
            return;
        }
        transmit(to, m);
    }

    private void transmit(NodeId to, RaftMessage m) {
        (m.requestId() == RequestIds.BACKGROUND ? backgroundMessages : clientMessages).increment();
        ctx.send(to, m);
    }

    private long now() {
        return ctx.nowNanos();
    }

    private void onDetectorTimer() {
        if (state instanceof LeaderState leader) {
            Configuration c = log.configuration();
            long lastIndex = log.lastIndex();
            long maxBytes = (long) config.maxInflightBytes() + config.maxBatchBytes();
            for (Peer p : leader.peers.values()) {
                detector.lag(p.id, lastIndex - p.match);
                detector.sampleLink(p.link, config.maxInflightMessages(), maxBytes, ", lag " + (lastIndex - p.match) + " entries");
            }
            detector.sampleQuorums(c.voters(), QuorumRule.atLeast(c.quorum()), now());
        }
        ctx.schedule(config.detectorInterval().toNanos(), DETECTOR);
    }

    // ------------------------------------------------------------------------------------------
    // Status (engine-neutral, DESIGN §2.1) and read-only views (tests and simulator invariants)
    // ------------------------------------------------------------------------------------------

    /**
     * Role in Raft's words mapped to the neutral ones (a pre-candidate is a candidate; a follower
     * outside the voters is a learner or not a member), the term as epoch, the current configuration,
     * and on the leader each peer's distance from the end of its log.
     */
    /**
     * A snapshot at {@code index} records the term of that entry (§7, lastIncludedTerm): the log
     * matching check of a later AppendEntries at index + 1 compares against it. The entry is in the
     * log or is the base of the log, because execution only ever reaches committed indexes.
     */
    @Override
    public SnapshotTag snapshotTag(long index) {
        return SnapshotTag.epoch(Math.max(0, log.termAt(index)));
    }

    @Override
    public EngineStatus status() {
        Role role = role();
        if (log == null) return new EngineStatus(EngineStatus.Role.FOLLOWER, null, currentTerm, List.of(), List.of(), commitIndex, appliedIndex, Map.of());
        Configuration c = log.configuration();
        EngineStatus.Role neutral = switch (role) {
            case LEADER -> EngineStatus.Role.LEADER;
            case PRE_CANDIDATE, CANDIDATE -> EngineStatus.Role.CANDIDATE;
            case FOLLOWER -> c.isVoter(self) ? EngineStatus.Role.FOLLOWER : c.isLearner(self) ? EngineStatus.Role.LEARNER : EngineStatus.Role.NOT_MEMBER;
        };
        Map<NodeId, Long> lag = new TreeMap<>();
        if (role == Role.LEADER) matchIndexes().forEach((peer, match) -> lag.put(peer, Math.max(0, log.lastIndex() - match)));
        return new EngineStatus(neutral, role == Role.LEADER ? self : leaderId, currentTerm, c.voters(), c.learners(), commitIndex, appliedIndex, lag);
    }

    public NodeId self() {
        return self;
    }

    /** The role, read off the role state this node holds. */
    public Role role() {
        return switch (state) {
            case FollowerState f -> Role.FOLLOWER;
            case CandidateState c -> c.preVote ? Role.PRE_CANDIDATE : Role.CANDIDATE;
            case LeaderState l -> Role.LEADER;
        };
    }

    public long currentTerm() {
        return currentTerm;
    }

    public NodeId votedFor() {
        return votedFor;
    }

    public NodeId leaderId() {
        return leaderId;
    }

    public long commitIndex() {
        return commitIndex;
    }

    public long lastIndex() {
        return log == null ? 0 : log.lastIndex();
    }

    /** The first index still held as a log entry (entries before it are in a snapshot). */
    public long firstIndex() {
        return log == null ? 1 : log.firstIndex();
    }

    /** The term of entry {@code index}, or -1 if it is not held (compacted or beyond the end). */
    public long termAt(long index) {
        return log == null ? -1 : log.termAt(index);
    }

    /** The raw payload of entry {@code index} (which must be held). */
    public byte[] payloadAt(long index) {
        return log.entry(index).payload();
    }

    /** The snapshot base: entries up to it are only in a snapshot. */
    public long baseIndex() {
        return log == null ? 0 : log.baseIndex();
    }

    public Configuration configuration() {
        return log.configuration();
    }

    /** The leader's view of each follower's match index (empty unless leader). */
    public Map<NodeId, Long> matchIndexes() {
        Map<NodeId, Long> m = new TreeMap<>();
        if (state instanceof LeaderState leader) {
            for (Peer p : leader.peers.values()) m.put(p.id, p.match);
        }
        return Collections.unmodifiableMap(m);
    }

    /** The leader's view of each follower's in-flight messages (empty unless leader). */
    public Map<NodeId, Integer> inflightMessages() {
        Map<NodeId, Integer> m = new TreeMap<>();
        if (state instanceof LeaderState leader) {
            for (Peer p : leader.peers.values()) m.put(p.id, p.link.inflightMessages());
        }
        return Collections.unmodifiableMap(m);
    }

    /**
     * What this node holds in memory for replication, by its own accounting, with the bounds the
     * configuration puts on each part (see {@link RetainedMemory}). A scan of the retained log: meant
     * for status, metrics and tests, not for every event.
     */
    public RetainedMemory retainedMemory() {
        int inflightMessages = 0;
        long inflightBytes = 0;
        int pendingReads = 0;
        if (state instanceof LeaderState leader) {
            for (Peer p : leader.peers.values()) {
                inflightMessages += p.link.inflightMessages();
                inflightBytes += p.link.inflightBytes();
            }
            pendingReads = leader.reads.pending();
        }
        return log == null ? new RetainedMemory(0, 0, inflightMessages, inflightBytes, held.size(), pendingReads)
                : new RetainedMemory(log.retainedEntries(), log.retainedBytes(), inflightMessages, inflightBytes, held.size(), pendingReads);
    }

    /** {@link #retainedMemory()} in the simulator's terms (the performance simulator samples the leader's). */
    @Override
    public io.tandem.sim.MemoryAccounting.Held heldForReplication() {
        RetainedMemory m = retainedMemory();
        return new io.tandem.sim.MemoryAccounting.Held(m.logEntries(), m.logBytes(), m.inflightMessages(), m.inflightBytes());
    }

    /** True if this node still serves reads from its lease at this instant. */
    public boolean holdsLease() {
        return state instanceof LeaderState leader && leaseValid(leader);
    }

    /** Slowness warnings this engine raised. */
    public long slownessWarnings() {
        return detector == null ? 0 : detector.warnings();
    }

    /** Slowness warnings this engine raised, by kind ({@code outbox-over-cap}, {@code same-quorum}, ...). */
    public Map<String, Long> slownessWarningsByKind() {
        return detector == null ? Map.of() : detector.warningsByKind();
    }

    public RaftConfig config() {
        return config;
    }

    /** One line of state for failure reports. */
    @Override
    public String inspect() {
        StringBuilder s = new StringBuilder().append(self).append(' ').append(role()).append(" term=").append(currentTerm)
                .append(" leader=").append(leaderId).append(" commit=").append(commitIndex)
                .append(" last=").append(lastIndex()).append('@').append(log == null ? 0 : log.lastTerm())
                .append(" base=").append(baseIndex()).append(" applied=").append(appliedIndex).append(" durable=").append(durableIndex);
        if (log != null) s.append(' ').append(log.configuration());
        if (state instanceof LeaderState leader) s.append(" peers=").append(leader.peers.values());
        return s.toString();
    }

    @Override
    public String toString() {
        return inspect();
    }
}
