package io.tandem.protocols.raft;

import io.tandem.engine.AdminRequest;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.GroupView;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.ReadPolicy;
import io.tandem.engine.Rejection;
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
import java.util.Set;
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
 * <p>Public accessors ({@link #role()}, {@link #currentTerm()}, ...) are read-only views for tests and
 * simulator invariants; call them only from the engine's loop.
 */
public class RaftEngine implements Engine, io.tandem.sim.Inspectable {
    public enum Role { FOLLOWER, PRE_CANDIDATE, CANDIDATE, LEADER }

    private record ElectionTimer() implements TimerKey {}

    private record HeartbeatTimer() implements TimerKey {}

    private record CheckQuorumTimer() implements TimerKey {}

    private record DetectorTimer() implements TimerKey {}

    private record TransferTimer() implements TimerKey {}

    private static final TimerKey ELECTION = new ElectionTimer();
    private static final TimerKey HEARTBEAT = new HeartbeatTimer();
    private static final TimerKey CHECK_QUORUM = new CheckQuorumTimer();
    private static final TimerKey DETECTOR = new DetectorTimer();
    private static final TimerKey TRANSFER = new TransferTimer();

    static final String TERM_KEY = "raft.term";
    static final String BASE_KEY = "raft.base";
    /** Messages held back while the term and vote are not yet durable; more are dropped (Raft tolerates loss). */
    private static final int MAX_HELD_MESSAGES = 4096;
    private static final int MAX_COMMIT_ROUNDS = 1024;
    private static final int MAX_HEARTBEAT_ROUNDS = 64;
    static final SlownessDetector.Vocabulary DETECTOR_VOCABULARY = new SlownessDetector.Vocabulary(
            "tandem.raft.peer", "tandem.raft.commit", "tandem.raft.peer", "entries", "commit quorums", "answered");

    private record Held(NodeId to, RaftMessage message, long token) {}

    private record PendingRead(long requestId, long readIndex) {}

    /** A heartbeat broadcast; once a quorum acknowledged it, its reads are served and the lease extended. */
    private record HeartbeatRound(long seq, long sentAt, List<PendingRead> reads) {}

    private static final class Transfer {
        final NodeId target;
        final long requestId;
        boolean timeoutNowSent;

        Transfer(NodeId target, long requestId) {
            this.target = target;
            this.requestId = requestId;
        }
    }

    /** A snapshot arriving from the leader, chunk by chunk. */
    private static final class Receiving {
        final SnapshotMeta meta;
        final Configuration configuration;
        long expectedOffset;
        long configToken;
        boolean configSaved;
        boolean writeInFlight;
        long writeToken;
        int writeLength;
        InstallSnapshot heldLastChunk;
        boolean installing;

        Receiving(SnapshotMeta meta, Configuration configuration) {
            this.meta = meta;
            this.configuration = configuration;
        }
    }

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

    // Volatile state.
    private Role role = Role.FOLLOWER;
    private NodeId leaderId;
    private long commitIndex;
    private long lastDelivered;
    private long appliedIndex;
    private long durableIndex;
    private long heardFromLeaderAt;
    private long nextToken = 1;
    private boolean storageFailed;

    // Candidate state.
    private QuorumTracker votes;
    private long candidacyToken;
    private boolean selfVoteCounted;
    private NodeId transferOrigin;
    private long transferRequestId;

    // Leader state.
    private final Map<NodeId, Peer> peers = new TreeMap<>();
    private CommitTracker commits;
    private long termStartIndex;
    private long uncommittedBytes;
    private long heartbeatSeq;
    private final ArrayDeque<HeartbeatRound> heartbeatRounds = new ArrayDeque<>();
    /** When recent heartbeat rounds were sent, so late answers still give round-trip samples. */
    private static final int HEARTBEAT_RTT_SLOTS = 256;
    private final long[] heartbeatSeqAt = new long[HEARTBEAT_RTT_SLOTS];
    private final long[] heartbeatSentAt = new long[HEARTBEAT_RTT_SLOTS];
    private final List<PendingRead> readsAwaitingTermCommit = new ArrayList<>();
    private final List<PendingRead> readsAwaitingRound = new ArrayList<>();
    private long leaseExpiresAt;
    private Transfer transfer;
    private final Map<Long, NodeId> chunkReads = new TreeMap<>();

    // Follower state: acknowledgements wait until the acknowledged entries are durable.
    private long pendingAckIndex = -1;
    private long pendingAckRequestId;
    private long lastAckSent = -1;
    private Receiving receiving;

    // Snapshots and compaction.
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
        loadTermAndVote();
        recoverLog();
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
        while (bases.size() > 4) bases.removeFirst();
        long token = nextToken++;
        ctx.meta().put(BASE_KEY, BaseRecord.encodeAll(bases), token);
        return token;
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
        if (role == Role.LEADER) return;
        if (!log.configuration().isVoter(self)) { // learners and removed nodes never campaign
            resetElectionTimer();
            return;
        }
        transferOrigin = null;
        if (config.preVote()) startPreVote();
        else startElection(false);
    }

    /** Thesis §9.6: ask whether we could win before disturbing anyone with a higher term. */
    private void startPreVote() {
        role = Role.PRE_CANDIDATE;
        leaderId = null;
        Configuration c = log.configuration();
        votes = QuorumTracker.kOfN(c.voters(), c.quorum(), now(), now() + electionMinNanos);
        resetElectionTimer();
        if (votes.ack(self, now())) {
            startElection(false);
            return;
        }
        var request = new PreVoteRequest(currentTerm + 1, log.lastIndex(), log.lastTerm());
        for (NodeId v : c.voters()) send(v, request);
    }

    /** §5.2: increment the term, vote for ourselves (durably), and ask every other voter. */
    private void startElection(boolean leadershipTransfer) {
        electionsStarted.increment();
        role = Role.CANDIDATE;
        leaderId = null;
        currentTerm++;
        votedFor = self;
        persistTermAndVote();
        candidacyToken = termToken;
        selfVoteCounted = false;
        Configuration c = log.configuration();
        votes = QuorumTracker.kOfN(c.voters(), c.quorum(), now(), now() + electionMinNanos);
        resetElectionTimer();
        var request = new VoteRequest(currentTerm, log.lastIndex(), log.lastTerm(), leadershipTransfer);
        for (NodeId v : c.voters()) send(v, request); // held by send() until our own vote is durable
        if (termAndVoteDurable()) countSelfVote(); // otherwise onMetaSaved counts it
    }

    private void countSelfVote() {
        selfVoteCounted = true;
        votes.ack(self, now());
        if (votes.isYes()) becomeLeader();
    }

    /** Thesis §9.6 PreVote: granted if we would vote for the sender in its next term; no state changes. */
    private void onPreVoteRequest(NodeId from, PreVoteRequest m) {
        boolean granted = m.term() > currentTerm
                && !heardFromLiveLeader()
                && log.isUpToDate(m.lastLogIndex(), m.lastLogTerm());
        send(from, new PreVoteResponse(granted ? m.term() : currentTerm, granted));
    }

    /** Thesis §9.6: a majority of pre-votes (ours included) starts the real election. */
    private void onPreVoteResponse(NodeId from, PreVoteResponse m) {
        if (role != Role.PRE_CANDIDATE) return;
        if (m.granted()) {
            if (m.term() == currentTerm + 1 && votes.ack(from, now())) startElection(false);
        } else if (m.term() > currentTerm) {
            becomeFollower(m.term(), null);
        } else {
            votes.refuse(from, now());
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
        if (m.term() > currentTerm) becomeFollower(m.term(), null);
        boolean granted = (votedFor == null || votedFor.equals(from)) && log.isUpToDate(m.lastLogIndex(), m.lastLogTerm());
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
        if (role != Role.CANDIDATE || m.term() != currentTerm) return;
        if (!m.granted()) {
            votes.refuse(from, now());
            return;
        }
        votes.ack(from, now());
        // A leader's own term must be durable before it acts: otherwise it could vote again in it after a crash.
        if (votes.isYes() && selfVoteCounted) becomeLeader();
    }

    /** Thesis §3.10: the leader asks us to start an election now, skipping pre-vote and stickiness. */
    private void onTimeoutNow(NodeId from, TimeoutNow m) {
        if (m.term() != currentTerm || role != Role.FOLLOWER || !from.equals(leaderId) || !log.configuration().isVoter(self)) return;
        transferOrigin = m.origin();
        transferRequestId = m.requestId();
        startElection(true);
    }

    private boolean heardFromLiveLeader() {
        return role == Role.LEADER || now() - heardFromLeaderAt < electionMinNanos;
    }

    private void becomeFollower(long term, NodeId leader) {
        boolean wasLeader = role == Role.LEADER;
        if (term > currentTerm) {
            currentTerm = term;
            votedFor = null;
            persistTermAndVote();
            lastAckSent = -1;
            pendingAckIndex = -1;
        }
        role = Role.FOLLOWER;
        if (leader != null && !leader.equals(leaderId)) {
            lastAckSent = -1;
            pendingAckIndex = -1;
        }
        leaderId = leader;
        votes = null;
        transferOrigin = null;
        if (wasLeader) leaderStepDown();
        resetElectionTimer();
    }

    /** Accepts {@code from} as the leader of {@code term} (§5.1, §5.2) after an AppendEntries, heartbeat or snapshot. */
    private boolean acceptLeader(NodeId from, long term) {
        if (role == Role.LEADER && term == currentTerm) return false; // two leaders in one term: refuse; the invariants report it
        if (term > currentTerm || role != Role.FOLLOWER || !from.equals(leaderId)) becomeFollower(term, from);
        heardFromLeaderAt = now();
        resetElectionTimer();
        return true;
    }

    private void resetElectionTimer() {
        long spread = electionSpreadNanos > 0 ? ctx.random().nextLong(electionSpreadNanos) : 0;
        ctx.schedule(electionMinNanos + spread, ELECTION);
    }

    // ------------------------------------------------------------------------------------------
    // Leadership
    // ------------------------------------------------------------------------------------------

    private void becomeLeader() {
        role = Role.LEADER;
        leaderId = self;
        votes = null;
        ctx.cancel(ELECTION);
        long now = now();
        peers.clear();
        for (NodeId n : log.configuration().members()) {
            if (n.equals(self)) continue;
            Peer p = new Peer(n, log.lastIndex() + 1, now);
            peers.put(n, p);
        }
        commits = new CommitTracker(log.configuration().voters(), config.commitDeadline().toNanos(), MAX_COMMIT_ROUNDS, this::commitQuorum);
        commits.ack(self, durableIndex, now);
        uncommittedBytes = 0;
        leaseExpiresAt = 0;
        detector.resetQuorumHistory();
        // §5.4.2 / §8: commit an entry of our own term so that earlier entries commit and reads know the commit index.
        termStartIndex = appendAsLeader(new EntryPayload.Noop(transferOrigin, transferOrigin == null ? RequestIds.BACKGROUND : transferRequestId));
        transferOrigin = null;
        broadcastHeartbeat(RequestIds.BACKGROUND);
        ctx.schedule(heartbeatNanos, HEARTBEAT);
        ctx.schedule(electionMinNanos, CHECK_QUORUM);
    }

    private void leaderStepDown() {
        leaderStepDowns.increment();
        ctx.cancel(HEARTBEAT);
        ctx.cancel(CHECK_QUORUM);
        ctx.cancel(TRANSFER);
        Rejection notLeader = Rejection.Redirect.to(leaderId);
        for (PendingRead r : readsAwaitingTermCommit) ctx.reject(r.requestId(), notLeader);
        for (PendingRead r : readsAwaitingRound) ctx.reject(r.requestId(), notLeader);
        for (HeartbeatRound round : heartbeatRounds) {
            for (PendingRead r : round.reads()) ctx.reject(r.requestId(), notLeader);
        }
        readsAwaitingTermCommit.clear();
        readsAwaitingRound.clear();
        heartbeatRounds.clear();
        // A transfer whose TimeoutNow went out may still complete through the new leader's first entry.
        if (transfer != null && !transfer.timeoutNowSent) ctx.reject(transfer.requestId, new Rejection.Unavailable("leadership was lost during the transfer"));
        transfer = null;
        peers.clear();
        chunkReads.clear();
        commits = null;
        leaseExpiresAt = 0;
        detector.resetQuorumHistory();
    }

    /** Appends an entry of the current term to the leader's log and starts its quorum wait. */
    private long appendAsLeader(EntryPayload payload) {
        long index = log.lastIndex() + 1;
        byte[] bytes = EntryPayload.encode(payload);
        log.append(new LogEntry(index, currentTerm, bytes));
        uncommittedBytes += bytes.length;
        if (payload instanceof EntryPayload.ConfigChange) onLeaderConfigurationAppended();
        handleCompleted(commits.propose(index, now()));
        for (Peer p : peers.values()) replicate(p);
        return index;
    }

    private void onLeaderConfigurationAppended() {
        Configuration c = log.configuration();
        for (NodeId n : c.members()) {
            if (!n.equals(self) && !peers.containsKey(n)) peers.put(n, new Peer(n, log.lastIndex(), now()));
        }
        detector.resetQuorumHistory();
        handleCompleted(commits.reconfigure(c.voters(), now()));
    }

    private void onHeartbeatTimer() {
        if (role != Role.LEADER) return;
        long now = now();
        expireHeartbeatRounds(now);
        broadcastHeartbeat(RequestIds.BACKGROUND);
        for (Peer p : peers.values()) maybeResend(p, now);
        detector.overdue(commits.newlyOverdue(now).size());
        ctx.schedule(heartbeatNanos, HEARTBEAT);
    }

    /** Thesis §6.2 check-quorum: a leader that cannot reach a majority steps down, so clients find the real one. */
    private void onCheckQuorumTimer() {
        if (role != Role.LEADER) return;
        if (config.checkQuorum()) {
            Configuration c = log.configuration();
            QuorumTracker reachable = QuorumTracker.kOfN(c.voters(), c.quorum(), now(), now());
            reachable.ack(self, now());
            for (NodeId v : c.voters()) {
                Peer p = peers.get(v);
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
    private void replicate(Peer p) {
        switch (p.mode) {
            case SNAPSHOT -> { }
            case PROBE -> {
                if (!p.probeOutstanding) sendAppend(p, true, true);
            }
            case REPLICATE -> {
                while (p.mode == Peer.Mode.REPLICATE && p.next <= log.lastIndex() && windowOpen(p)) {
                    sendAppend(p, false, true);
                }
            }
        }
        maybeSendTimeoutNow(p);
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
    private void sendAppend(Peer p, boolean probe, boolean withEntries) {
        long prev = p.next - 1;
        if (prev < log.baseIndex()) {
            startSnapshot(p);
            return;
        }
        List<LogEntry> entries = withEntries ? batchFrom(p.next) : List.of();
        int bytes = 0;
        for (LogEntry e : entries) bytes += e.payload().length;
        long requestId = probe || entries.isEmpty() ? RequestIds.BACKGROUND : EntryPayload.requestIdOf(entries.getFirst().payload());
        send(p.id, new AppendEntries(currentTerm, prev, log.termAt(prev), entries, commitIndex, requestId));
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

    private List<LogEntry> batchFrom(long from) {
        long last = log.lastIndex();
        if (from > last) return List.of();
        List<LogEntry> batch = new ArrayList<>();
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
        if (m.term() < currentTerm || !acceptLeader(from, m.term())) {
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
                acknowledge(from, verified, m.requestId());
                return;
            }
        } else if (prev > log.lastIndex()) {
            send(from, new AppendEntriesResponse(currentTerm, false, 0, m.prevLogIndex(), 0, log.lastIndex() + 1, m.requestId()));
            return;
        } else if (log.termAt(prev) != m.prevLogTerm()) {
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
                pendingAckIndex = Math.min(pendingAckIndex, index - 1);
            }
            log.append(e);
        }
        advanceCommit(Math.min(m.leaderCommit(), verified));
        acknowledge(from, verified, m.requestId());
    }

    /** Answers success for entries up to {@code verified} once they are durable; partial progress is acknowledged as it becomes durable. */
    private void acknowledge(NodeId leader, long verified, long requestId) {
        refreshDurableIndex();
        if (verified <= durableIndex) {
            sendAck(leader, verified, requestId);
        } else {
            pendingAckIndex = Math.max(pendingAckIndex, verified);
            pendingAckRequestId = requestId;
            if (durableIndex > lastAckSent) sendAck(leader, durableIndex, requestId);
        }
    }

    private void sendAck(NodeId leader, long matchIndex, long requestId) {
        lastAckSent = Math.max(lastAckSent, matchIndex);
        send(leader, new AppendEntriesResponse(currentTerm, true, matchIndex, matchIndex, 0, 0, requestId));
    }

    private void flushPendingAck() {
        if (pendingAckIndex < 0 || leaderId == null || role != Role.FOLLOWER) return;
        long ackable = Math.min(pendingAckIndex, durableIndex);
        if (ackable > lastAckSent) sendAck(leaderId, ackable, pendingAckRequestId);
        if (durableIndex >= pendingAckIndex) pendingAckIndex = -1;
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
        Peer p = peers.get(from);
        if (role != Role.LEADER || m.term() < currentTerm || p == null) return;
        long now = now();
        p.link.heard(now);
        if (m.success()) {
            if (m.matchIndex() > p.match) {
                p.match = m.matchIndex();
                madeProgress(p, now);
                handleCompleted(commits.ack(p.id, p.match, now));
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
            if (role == Role.LEADER) replicate(p);
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
            replicate(p); // each answer moves the probe strictly back, so answers alone cannot loop
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
    private void maybeResend(Peer p, long now) {
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
            chunkReads.remove(p.chunkReadToken);
            p.chunkReadToken = 0;
            Optional<SnapshotMeta> latest = ctx.snapshots().latest();
            if (latest.isPresent() && !sameSnapshot(latest.get(), p.snapshot)) {
                startSnapshot(p); // a newer snapshot replaced the one we were sending
            } else {
                p.chunkOutstanding = false;
                readChunk(p);
            }
            return;
        }
        p.becomeProbe();
        if (responsive) {
            detector.resent(p.id, p.next, p.link.resentFrom(p.next));
        } else {
            detector.resent(p.id, p.next, 0);
        }
        sendAppend(p, true, responsive);
    }

    private static void madeProgress(Peer p, long now) {
        p.link.progressed(now);
    }

    /** Commits what completed quorums cover (§5.3, §5.4.2). */
    private void handleCompleted(List<CommitTracker.Completed> completed) {
        if (completed.isEmpty()) return;
        int voters = log.configuration().voters().size();
        for (CommitTracker.Completed c : completed) {
            // A round decided when it was created waited for nobody.
            if (c.incremental()) detector.quorumFormed(c.responders(), c.decidedBy(), voters, c.waitedNanos(), now());
        }
        advanceCommit(commits.committedIndex());
    }

    private void advanceCommit(long index) {
        long newCommit = Math.min(index, log.lastIndex());
        if (newCommit <= commitIndex) return;
        commitIndex = newCommit;
        commitGauge.set(commitIndex);
        deliverCommitted();
        if (role != Role.LEADER) return;
        if (commitIndex >= termStartIndex && !readsAwaitingTermCommit.isEmpty()) {
            for (PendingRead r : readsAwaitingTermCommit) readsAwaitingRound.add(new PendingRead(r.requestId(), commitIndex));
            readsAwaitingTermCommit.clear();
            if (!readRoundOutstanding()) broadcastHeartbeat(readsAwaitingRound.getFirst().requestId());
        }
        if (commitIndex >= log.configurationIndex()) onConfigurationCommitted();
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
            if (role == Role.LEADER && index >= termStartIndex) uncommittedBytes -= payload.length;
            EntryPayload entry = EntryPayload.decode(payload);
            ctx.deliver(EntryPayload.toCommitted(index, entry));
            if (entry instanceof EntryPayload.ConfigChange c) installView(index, c.configuration());
            lastDelivered = index;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Client requests
    // ------------------------------------------------------------------------------------------

    private void onCommand(ClientRequest r) {
        if (role != Role.LEADER) {
            ctx.reject(r.requestId(), Rejection.Redirect.to(leaderId));
            return;
        }
        Optional<AdminRequest> admin = RaftAdmin.decode(r.payload());
        if (admin.isPresent()) {
            changeMembershipOrLeadership(r.requestId(), admin.get());
            return;
        }
        if (transfer != null) {
            ctx.reject(r.requestId(), new Rejection.Unavailable("leadership is being transferred to " + transfer.target));
            return;
        }
        if (log.lastIndex() - commitIndex >= config.maxUncommittedEntries() || uncommittedBytes >= config.maxUncommittedBytes()) {
            ctx.reject(r.requestId(), new Rejection.Overloaded((log.lastIndex() - commitIndex) + " entries / " + uncommittedBytes
                    + " bytes wait for a quorum"));
            return;
        }
        appendAsLeader(new EntryPayload.Command(self, r.requestId(), r.session(), r.payload()));
    }

    /** Serves a read as its policy asks (thesis §6.4); overridable so tests can plant a read that skips the read index. */
    void onRead(ClientRequest r) {
        switch (r.readPolicy()) {
            case ReadPolicy.Stale s -> ctx.serveRead(r.requestId(), s.minIndex());
            case ReadPolicy.Lease l -> {
                if (role == Role.LEADER && leaseValid()) ctx.serveRead(r.requestId(), commitIndex);
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
    private boolean leaseValid() {
        return transfer == null && commitIndex >= termStartIndex && now() < leaseExpiresAt;
    }

    /**
     * Thesis §6.4 ReadIndex: the read index is the commit index once the leader committed an entry of
     * its term; leadership is confirmed by a quorum acknowledging a heartbeat sent after the read
     * arrived. Reads share heartbeat rounds; no log entry is written.
     */
    private void readIndex(long requestId) {
        if (role != Role.LEADER) {
            ctx.reject(requestId, Rejection.Redirect.to(leaderId));
            return;
        }
        if (pendingReads() >= config.maxPendingReads()) {
            ctx.reject(requestId, new Rejection.Overloaded(pendingReads() + " reads wait for leadership confirmation"));
            return;
        }
        if (commitIndex < termStartIndex) {
            readsAwaitingTermCommit.add(new PendingRead(requestId, 0));
            return;
        }
        Configuration c = log.configuration();
        if (c.voters().size() == 1 && c.isVoter(self)) {
            ctx.serveRead(requestId, commitIndex);
            return;
        }
        readsAwaitingRound.add(new PendingRead(requestId, commitIndex));
        if (!readRoundOutstanding()) broadcastHeartbeat(requestId);
    }

    private int pendingReads() {
        int n = readsAwaitingTermCommit.size() + readsAwaitingRound.size();
        for (HeartbeatRound round : heartbeatRounds) n += round.reads().size();
        return n;
    }

    private boolean readRoundOutstanding() {
        for (HeartbeatRound round : heartbeatRounds) {
            if (!round.reads().isEmpty()) return true;
        }
        return false;
    }

    /** Sends heartbeat round {@code seq+1} to every peer; reads waiting for a round ride on it. */
    private void broadcastHeartbeat(long requestId) {
        long seq = ++heartbeatSeq;
        int slot = (int) (seq % HEARTBEAT_RTT_SLOTS);
        heartbeatSeqAt[slot] = seq;
        heartbeatSentAt[slot] = now();
        List<PendingRead> reads = readsAwaitingRound.isEmpty() ? List.of() : new ArrayList<>(readsAwaitingRound);
        readsAwaitingRound.clear();
        heartbeatRounds.addLast(new HeartbeatRound(seq, now(), reads));
        while (heartbeatRounds.size() > MAX_HEARTBEAT_ROUNDS) readsAwaitingRound.addAll(heartbeatRounds.pollFirst().reads());
        for (Peer p : peers.values()) send(p.id, new Heartbeat(currentTerm, Math.min(commitIndex, p.match), seq, requestId));
        confirmHeartbeatRounds();
    }

    /** §5.2 heartbeat on the follower: it is a live leader; the commit index it carries is known to be in our log. */
    private void onHeartbeat(NodeId from, Heartbeat m) {
        if (m.term() < currentTerm || !acceptLeader(from, m.term())) {
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
        Peer p = peers.get(from);
        if (role != Role.LEADER || m.term() < currentTerm || p == null) return;
        long now = now();
        p.link.heard(now);
        int slot = (int) (m.seq() % HEARTBEAT_RTT_SLOTS);
        if (m.seq() > p.ackedSeq && heartbeatSeqAt[slot] == m.seq()) p.link.sampleRoundTrip(now - heartbeatSentAt[slot]);
        p.ackedSeq = Math.max(p.ackedSeq, m.seq());
        confirmHeartbeatRounds();
    }

    private void confirmHeartbeatRounds() {
        HeartbeatRound confirmed = null;
        for (HeartbeatRound round : heartbeatRounds) {
            if (roundAcknowledged(round.seq())) confirmed = round;
        }
        if (confirmed == null) return;
        leaseExpiresAt = Math.max(leaseExpiresAt, confirmed.sentAt() + leaseNanos);
        while (!heartbeatRounds.isEmpty() && heartbeatRounds.peekFirst().seq() <= confirmed.seq()) {
            for (PendingRead r : heartbeatRounds.pollFirst().reads()) ctx.serveRead(r.requestId(), r.readIndex());
        }
        if (!readsAwaitingRound.isEmpty() && !readRoundOutstanding()) broadcastHeartbeat(readsAwaitingRound.getFirst().requestId());
    }

    private boolean roundAcknowledged(long seq) {
        Configuration c = log.configuration();
        QuorumTracker q = QuorumTracker.kOfN(c.voters(), c.quorum(), now(), now());
        q.ack(self, now());
        for (NodeId v : c.voters()) {
            Peer p = peers.get(v);
            if (p != null && p.ackedSeq >= seq) q.ack(v, now());
        }
        return q.isYes();
    }

    /** Rounds no quorum acknowledged within an election timeout are dropped; their reads try again on the next round. */
    private void expireHeartbeatRounds(long now) {
        while (!heartbeatRounds.isEmpty() && now - heartbeatRounds.peekFirst().sentAt() >= electionMinNanos) {
            readsAwaitingRound.addAll(heartbeatRounds.pollFirst().reads());
        }
    }

    // ------------------------------------------------------------------------------------------
    // Membership changes (thesis §4.1, §4.2.1) and leadership transfer (thesis §3.10)
    // ------------------------------------------------------------------------------------------

    /** Every admin request is supported; only the leader runs it (a follower rejects it with its leader hint). */
    @Override
    public boolean onAdmin(long requestId, AdminRequest request) {
        if (storageFailed) ctx.reject(requestId, new Rejection.Unavailable("storage failed on " + self));
        else if (role != Role.LEADER) ctx.reject(requestId, Rejection.Redirect.to(leaderId));
        else changeMembershipOrLeadership(requestId, request);
        return true;
    }

    private void changeMembershipOrLeadership(long requestId, AdminRequest command) {
        if (command instanceof AdminRequest.TransferLeadership t) {
            startTransfer(requestId, t.node());
            return;
        }
        Optional<String> refusal = membershipRefusal();
        if (refusal.isPresent()) {
            ctx.reject(requestId, new Rejection.Unavailable(refusal.get()));
            return;
        }
        Configuration c = log.configuration();
        NodeId node = command.node();
        Configuration next = null;
        String problem = null;
        switch (command) {
            case AdminRequest.AddLearner a -> {
                if (c.contains(node)) problem = node + " is already a member: " + c;
                else next = c.withLearner(node);
            }
            case AdminRequest.Promote p -> {
                Peer learner = peers.get(node);
                if (!c.isLearner(node)) problem = node + " is not a learner: " + c;
                else if (learner == null || learner.match < commitIndex) problem = node + " has not caught up (match " + (learner == null ? 0 : learner.match) + " < commit " + commitIndex + ")";
                else next = c.withPromoted(node);
            }
            case AdminRequest.Remove rm -> {
                if (!c.contains(node)) problem = node + " is not a member: " + c;
                else if (c.without(node).voters().isEmpty()) problem = "removing " + node + " would leave no voter";
                else next = c.without(node);
            }
            case AdminRequest.TransferLeadership t -> throw new IllegalStateException("handled above");
        }
        if (next == null) {
            ctx.reject(requestId, new Rejection.Unavailable(problem));
            return;
        }
        appendAsLeader(new EntryPayload.ConfigChange(self, requestId, next));
    }

    private Optional<String> membershipRefusal() {
        if (commitIndex < termStartIndex) return Optional.of("the leader has not yet committed an entry of its term");
        if (log.configurationIndex() > commitIndex) return Optional.of("another membership change is not yet committed");
        if (transfer != null) return Optional.of("a leadership transfer is in progress");
        return Optional.empty();
    }

    /** Once the configuration entry commits, members it removed stop receiving entries; a removed leader steps down. */
    private void onConfigurationCommitted() {
        Configuration c = log.configuration();
        peers.keySet().removeIf(n -> !c.contains(n));
        if (!c.isVoter(self)) {
            // Hand over at once to the most up-to-date voter rather than wait for an election timeout.
            peers.values().stream().filter(p -> c.isVoter(p.id) && p.match == log.lastIndex()).findFirst()
                    .ifPresent(p -> send(p.id, new TimeoutNow(currentTerm, null, RequestIds.BACKGROUND)));
            becomeFollower(currentTerm, null);
        }
    }

    private void startTransfer(long requestId, NodeId target) {
        if (transfer != null) {
            ctx.reject(requestId, new Rejection.Unavailable("a leadership transfer to " + transfer.target + " is in progress"));
            return;
        }
        if (target.equals(self)) { // already the leader: answer when an entry of this term commits
            appendAsLeader(new EntryPayload.Noop(self, requestId));
            return;
        }
        if (!log.configuration().isVoter(target) || !peers.containsKey(target)) {
            ctx.reject(requestId, new Rejection.Unavailable(target + " is not a voter: " + log.configuration()));
            return;
        }
        transfer = new Transfer(target, requestId);
        leaseExpiresAt = 0;
        ctx.schedule(electionMinNanos, TRANSFER);
        replicate(peers.get(target));
    }

    private void maybeSendTimeoutNow(Peer p) {
        if (transfer == null || transfer.timeoutNowSent || !p.id.equals(transfer.target) || p.match != log.lastIndex()) return;
        transfer.timeoutNowSent = true;
        send(p.id, new TimeoutNow(currentTerm, self, transfer.requestId));
    }

    private void onTransferTimer() {
        if (transfer == null) return;
        if (!transfer.timeoutNowSent) {
            ctx.reject(transfer.requestId, new Rejection.Unavailable(transfer.target + " did not catch up within an election timeout"));
        }
        transfer = null;
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
        if (receiving != null && token == receiving.configToken) {
            receiving.configSaved = true;
            if (receiving.heldLastChunk != null) {
                InstallSnapshot last = receiving.heldLastChunk;
                receiving.heldLastChunk = null;
                writeChunk(last);
            }
        }
    }

    private void startSnapshot(Peer p) {
        Optional<SnapshotMeta> latest = ctx.snapshots().latest();
        p.link.clearInflight();
        p.probeOutstanding = false;
        p.mode = Peer.Mode.SNAPSHOT;
        p.link.restartProgressWait(now());
        if (latest.isEmpty() || latest.get().lastIncludedIndex() < log.baseIndex()) {
            // Cannot happen while compaction only follows snapshots; the resend timer retries.
            p.snapshot = null;
            return;
        }
        p.snapshot = latest.get();
        p.snapshotConfig = log.configurationAt(p.snapshot.lastIncludedIndex());
        p.snapshotOffset = 0;
        p.chunkOutstanding = false;
        readChunk(p);
    }

    /** Snapshot data is read by the storage, off the loop; one chunk per follower at a time. */
    private void readChunk(Peer p) {
        if (p.snapshot == null) {
            startSnapshot(p);
            return;
        }
        long token = nextToken++;
        p.chunkReadToken = token;
        chunkReads.put(token, p.id);
        ctx.snapshots().readChunk(p.snapshot, p.snapshotOffset, config.snapshotChunkBytes(), token);
    }

    private void onSnapshotChunkRead(StorageEvent.SnapshotChunkRead s) {
        NodeId id = chunkReads.remove(s.token());
        Peer p = id == null ? null : peers.get(id);
        if (role != Role.LEADER || p == null || p.mode != Peer.Mode.SNAPSHOT || p.chunkReadToken != s.token()) return;
        p.chunkReadToken = 0;
        p.chunkOutstanding = true;
        p.chunkSentAt = now();
        send(p.id, new InstallSnapshot(currentTerm, s.snapshot(), p.snapshotConfig, s.offset(), s.data(), s.last()));
    }

    /** §7 InstallSnapshot on the receiver: chunks are written in order; the last one installs the snapshot. */
    private void onInstallSnapshot(NodeId from, InstallSnapshot m) {
        long index = m.snapshot().lastIncludedIndex();
        if (m.term() < currentTerm || !acceptLeader(from, m.term())) {
            send(from, new InstallSnapshotResponse(currentTerm, index, 0, false));
            return;
        }
        if (index <= commitIndex) { // we already hold everything it covers
            send(from, new InstallSnapshotResponse(currentTerm, index, 0, true));
            return;
        }
        if (receiving == null || !sameSnapshot(receiving.meta, m.snapshot())) {
            if (m.offset() != 0) {
                send(from, new InstallSnapshotResponse(currentTerm, index, 0, false));
                return;
            }
            receiving = new Receiving(m.snapshot(), m.configuration());
            // The configuration must be on disk before the snapshot can be: a restart needs both.
            receiving.configToken = saveBase(index, m.snapshot().lastIncludedTerm(), m.configuration());
        }
        if (receiving.installing || receiving.writeInFlight || receiving.heldLastChunk != null) return; // busy with this chunk
        if (m.offset() != receiving.expectedOffset) {
            send(from, new InstallSnapshotResponse(currentTerm, index, receiving.expectedOffset, false));
            return;
        }
        if (m.last() && !receiving.configSaved) {
            receiving.heldLastChunk = m;
            return;
        }
        writeChunk(m);
    }

    /**
     * Snapshot identity. {@link SnapshotMeta} is a record with an array component, so its
     * {@code equals} compares array references and fails for a copy that came over the wire.
     */
    static boolean sameSnapshot(SnapshotMeta a, SnapshotMeta b) {
        return a != null && b != null && a.lastIncludedIndex() == b.lastIncludedIndex() && a.lastIncludedTerm() == b.lastIncludedTerm()
                && a.sizeBytes() == b.sizeBytes() && a.crc32c() == b.crc32c();
    }

    private void writeChunk(InstallSnapshot m) {
        receiving.writeInFlight = true;
        receiving.writeToken = nextToken++;
        receiving.writeLength = m.data().length;
        ctx.snapshots().writeChunk(m.snapshot(), m.offset(), m.data(), m.last(), receiving.writeToken);
    }

    private void onSnapshotChunkWritten(StorageEvent.SnapshotChunkWritten s) {
        if (receiving == null || s.token() != receiving.writeToken) return;
        receiving.writeInFlight = false;
        receiving.expectedOffset = s.offset() + receiving.writeLength;
        if (s.last()) {
            receiving.installing = true;
        } else if (leaderId != null) {
            send(leaderId, new InstallSnapshotResponse(currentTerm, receiving.meta.lastIncludedIndex(), receiving.expectedOffset, false));
        }
    }

    private void onSnapshotInstalled(StorageEvent.SnapshotInstalled s) {
        if (receiving == null || !sameSnapshot(receiving.meta, s.snapshot())) return;
        Receiving r = receiving;
        receiving = null;
        long index = r.meta.lastIncludedIndex();
        if (index > commitIndex) {
            log.installSnapshot(index, r.meta.lastIncludedTerm(), r.configuration);
            refreshDurableIndex();
            pendingAckIndex = Math.min(pendingAckIndex, log.lastIndex());
            commitIndex = index;
            lastDelivered = Math.max(lastDelivered, index);
            installView(index, r.configuration);
            appliedIndex = Math.max(appliedIndex, index);
            lastSnapshotIndex = Math.max(lastSnapshotIndex, index);
            commitGauge.set(commitIndex);
        }
        if (leaderId != null) send(leaderId, new InstallSnapshotResponse(currentTerm, index, 0, true));
    }

    /** §7 on the leader: the next chunk is read once the previous one is written; a done snapshot sets the match index. */
    private void onInstallSnapshotResponse(NodeId from, InstallSnapshotResponse m) {
        if (m.term() > currentTerm) {
            becomeFollower(m.term(), null);
            return;
        }
        Peer p = peers.get(from);
        if (role != Role.LEADER || m.term() < currentTerm || p == null) return;
        long now = now();
        p.link.heard(now);
        if (m.done()) {
            if (m.lastIncludedIndex() > p.match) {
                p.match = m.lastIncludedIndex();
                handleCompleted(commits.ack(p.id, p.match, now));
            }
            if (p.mode == Peer.Mode.SNAPSHOT && role == Role.LEADER) {
                p.becomeReplicate();
                madeProgress(p, now);
                replicate(p);
            }
            return;
        }
        if (p.mode != Peer.Mode.SNAPSHOT || p.snapshot == null || m.lastIncludedIndex() != p.snapshot.lastIncludedIndex()) return;
        if (m.nextOffset() == p.snapshotOffset && (p.chunkReadToken != 0 || p.chunkOutstanding)) return; // duplicate answer
        if (p.chunkOutstanding) p.link.sampleRoundTrip(now - p.chunkSentAt);
        madeProgress(p, now);
        p.snapshotOffset = m.nextOffset();
        p.chunkOutstanding = false;
        readChunk(p);
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
        if (role == Role.LEADER) handleCompleted(commits.ack(self, durableIndex, now()));
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
                if (role == Role.CANDIDATE && !selfVoteCounted && termDurableToken >= candidacyToken) countSelfVote();
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
        NodeId id = chunkReads.remove(token);
        Peer p = id == null ? null : peers.get(id);
        if (p != null && p.chunkReadToken == token) abandonTransfer(p);
        if (receiving != null && token == receiving.writeToken) receiving = null;
    }

    private static void abandonTransfer(Peer p) {
        p.chunkReadToken = 0;
        p.chunkOutstanding = false;
        p.snapshot = null; // the next attempt starts from the newest snapshot
    }

    /**
     * A failed log or meta write means we can no longer promise anything: stop taking part (the
     * runtime stops the node too). Failed snapshot transfers arrive as SnapshotFailed instead.
     */
    private void onStorageFailed(StorageEvent.StorageFailed s) {
        storageFailed = true;
        if (role == Role.LEADER) becomeFollower(currentTerm, null);
        ctx.cancel(ELECTION);
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
        if (role == Role.LEADER) {
            Configuration c = log.configuration();
            long lastIndex = log.lastIndex();
            long maxBytes = (long) config.maxInflightBytes() + config.maxBatchBytes();
            for (Peer p : peers.values()) {
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
    @Override
    public EngineStatus status() {
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

    public Role role() {
        return role;
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
        for (Peer p : peers.values()) m.put(p.id, p.match);
        return Collections.unmodifiableMap(m);
    }

    /** The leader's view of each follower's in-flight messages (empty unless leader). */
    public Map<NodeId, Integer> inflightMessages() {
        Map<NodeId, Integer> m = new TreeMap<>();
        for (Peer p : peers.values()) m.put(p.id, p.link.inflightMessages());
        return Collections.unmodifiableMap(m);
    }

    /** True if this node still serves reads from its lease at this instant. */
    public boolean holdsLease() {
        return role == Role.LEADER && leaseValid();
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
        StringBuilder s = new StringBuilder().append(self).append(' ').append(role).append(" term=").append(currentTerm)
                .append(" leader=").append(leaderId).append(" commit=").append(commitIndex)
                .append(" last=").append(lastIndex()).append('@').append(log == null ? 0 : log.lastTerm())
                .append(" base=").append(baseIndex()).append(" applied=").append(appliedIndex).append(" durable=").append(durableIndex);
        if (log != null) s.append(' ').append(log.configuration());
        if (role == Role.LEADER) s.append(" peers=").append(peers.values());
        return s.toString();
    }

    @Override
    public String toString() {
        return inspect();
    }
}
