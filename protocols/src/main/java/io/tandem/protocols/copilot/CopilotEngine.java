package io.tandem.protocols.copilot;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.copilot.CopilotMessage.Accept;
import io.tandem.protocols.copilot.CopilotMessage.AcceptReply;
import io.tandem.protocols.copilot.CopilotMessage.Ball;
import io.tandem.protocols.copilot.CopilotMessage.Commit;
import io.tandem.protocols.copilot.CopilotMessage.CommitQuery;
import io.tandem.protocols.copilot.CopilotMessage.FastAccept;
import io.tandem.protocols.copilot.CopilotMessage.FastAcceptReply;
import io.tandem.protocols.copilot.CopilotMessage.Prepare;
import io.tandem.protocols.copilot.CopilotMessage.PrepareReply;
import io.tandem.protocols.copilot.CopilotMessage.SnapshotChunk;
import io.tandem.protocols.copilot.CopilotMessage.SnapshotChunkRequest;
import io.tandem.protocols.copilot.CopilotMessage.SnapshotOffer;
import io.tandem.protocols.copilot.CopilotMessage.StartView;
import io.tandem.protocols.copilot.CopilotMessage.ViewChange;
import io.tandem.protocols.copilot.CopilotMessage.ViewChangeReply;
import io.tandem.protocols.failslow.SlownessDetector;
import io.tandem.engine.SnapshotTag;
import io.tandem.sim.Inspectable;
import io.tandem.storage.DurableLog;
import io.tandem.storage.LogEntry;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.StorageEvent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One member of a Copilot group (Ngo, Sen, Lloyd, OSDI 2020; implementation notes in copilot.md). Every
 * member is an acceptor and learner of both logs and executes their combined order; the pilot of each
 * log's current view (at first member 0 for log 0 and member 1 for log 1) also orders commands into it
 * with a {@link Pilot} and takes over the other log's blocking slots with {@link Takeovers}.
 *
 * <p>A pilot that is slow or briefly down is masked by the other one (takeovers); a pilot that stays
 * silent for the view-change timeout is replaced by {@link PilotElection}, which moves its log to a
 * new view with a new pilot that recovers the log's in-flight slots. A restarted pilot recovers its
 * own unfinished slots by takeover.
 *
 * <p>Durability: every change of a slot's promise or vote is appended to the durable log
 * ({@link SlotRecord}) and no answer that depends on it leaves this member before it is durable. A
 * pilot's own FastAccept and Accept are the exception, as a Raft leader's entries are: they leave at
 * once, in parallel with the pilot's own write, and the pilot counts its own vote only once that is
 * durable ({@link #reserve}: a restarted pilot never reuses a slot and never contradicts a vote it
 * may have lost).
 * A restart starts from the newest snapshot ({@link Checkpoint}: both cursors and the session table),
 * replays the log and re-executes the combined order from the snapshot on.
 *
 * <p>Snapshots and log compaction ({@link SnapshotTransfer}, {@link #compact}): every
 * {@code snapshotThreshold} executed slots the state machine is snapshotted at a slot boundary, and
 * once it is stored both logs are dropped below the snapshot's cursors less {@code logRetentionSlots}
 * (from memory; the durable log keeps only what a restart from that snapshot needs). Why no takeover,
 * recovery or election ever needs a compacted slot: a slot is compacted only below this member's
 * execution cursor, so it is committed and executed here; and a member answers any phase message
 * about a compacted slot (FastAccept, Accept, Prepare) with an offer of its snapshot, never with a
 * promise or a vote. So compaction can only take a member out of the answering set of a recovery,
 * never make it answer wrongly: any majority of answers still meets every quorum that chose a value
 * in a member that still holds its vote or the commit (Paxos' intersection, unchanged), and a
 * proposer that gets no majority because too many members compacted a slot is behind them all and
 * installs a snapshot, after which the slot is below its own cursor and never blocks it again. The
 * compatibility check (§3.4) must still see the compacted entries of the other log: it treats a
 * proposal whose dependency does not reach them as incompatible ({@link CopilotRules#compatible}).
 */
public final class CopilotEngine implements Engine, Inspectable {
    // ---- timers ----
    record CatchUpTick() implements TimerKey {}

    record TakeoverCheck() implements TimerKey {}

    record DetectorTick() implements TimerKey {}

    /** Every member's view of each log (§3.10): the view promised (refusing older ballots), the view established, its start slot. */
    final int[] promisedView = {0, 1};
    final int[] establishedView = {0, 1};
    final long[] startSlot = {0, 0};

    /**
     * Per log: the highest own slot whose phase messages this member, as that log's pilot, may send
     * before its vote is durable ({@link SlotRecord.Reservation}, appended), the highest whose
     * reservation is durable, and the durable-log index of the newest reservation record.
     */
    private final long[] reserved = {-1, -1}, reservedDurable = {-1, -1}, reservationIndex = {-1, -1};
    /** A reservation covers this many slots beyond the one that asked for it, renewed at half of it. */
    static final long RESERVATION_SLOTS = 32;

    /** Work that may run only once the durable log holds everything appended before it was queued. */
    private record Deferred(long durableIndex, Runnable action) {}

    final NodeId self;
    final List<NodeId> members;
    final int selfIndex;
    final int n;
    final CopilotConfig config;
    final CopilotRules rules;
    private final boolean observed;

    EngineContext ctx;
    @SuppressWarnings("unchecked")
    private final Map<Long, Slot>[] slots = new Map[] {new HashMap<Long, Slot>(), new HashMap<Long, Slot>()};
    /** The highest slot of each log this member knows exists, from any message (§3.3: the source of initial dependencies). */
    final long[] highestSeen = {-1, -1};
    /** The execution cursor (a, b): the next slot of each log to run. */
    private final long[] cursor = {0, 0};
    /** Every slot of each log below this was dropped (it ran here; a snapshot covers it); never above the cursor. */
    private final long[] compactedBelow = {0, 0};
    private long deliveredIndex;
    private ExecutedCommands executed = new ExecutedCommands();
    SnapshotTransfer snapshots;
    private final ArrayDeque<Deferred> deferred = new ArrayDeque<>();
    /** Decisions that reached this member inside a FastAccept ({@link CopilotConfig#commitPiggyback}); for tests. */
    long piggybackedCommits;
    /** Commits learned and not yet written: they ride along with the next write (or the next catch-up tick). */
    private final List<Slot> unwrittenCommits = new ArrayList<>();
    private boolean storageFailed;
    private long corruptRecords;
    /** Cursor at the last catch-up tick: a replica asks its peers only when it made no progress for a whole tick. */
    private long lastTickA = -1, lastTickB = -1;

    /** This member's pilot role, for at most one log; null on other members. */
    Pilot pilot;
    Takeovers takeovers;
    PilotElection election;
    private SlownessDetector detector;

    // Simulator observation (only when the protocol's invariants were asked for).
    final List<CommitEvent> commitEvents = new ArrayList<>();
    final List<Delivery> deliveries = new ArrayList<>();
    final List<Command> proposals = new ArrayList<>();

    record CommitEvent(int log, long slot, List<Command> cmds, long dep) {}

    /** A phase message a proposer sent: (log, slot, ballot, phase) must never carry two values. */
    record ProposalEvent(int log, long slot, Ballot ballot, boolean accept, List<Command> cmds, long dep) {}

    final List<ProposalEvent> proposalEvents = new ArrayList<>();

    /** A command handed to execution from {@code log}; {@code retry}: a copy of one delivered before, which execution only answers. */
    record Delivery(int log, Committed entry, boolean retry) {}

    CopilotEngine(NodeId self, List<NodeId> members, CopilotConfig config, CopilotRules rules, boolean observed) {
        if (members.size() < 3 || members.size() % 2 == 0) {
            throw new IllegalArgumentException("Copilot needs an odd group of at least 3 members (2f+1), got " + members.size());
        }
        this.self = self;
        this.members = List.copyOf(members);
        this.selfIndex = members.indexOf(self);
        if (selfIndex < 0) throw new IllegalArgumentException(self + " is not among the members " + members);
        this.n = members.size();
        this.config = config;
        this.rules = rules;
        this.observed = observed;
    }

    /** At a pilot: how long a committed slot waited here before it ran (its dependency, HEAD-MERGE), per log. */
    private io.tandem.engine.Meters.Distribution execWaitOwn, execWaitOther;

    // ---- Engine ----

    @Override
    public void start(EngineContext ctx) {
        this.ctx = ctx;
        execWaitOwn = ctx.meters().distribution("tandem.copilot.exec_wait_ns", "log", "own");
        execWaitOther = ctx.meters().distribution("tandem.copilot.exec_wait_ns", "log", "other");
        restoreSnapshot();
        replayDurableLog();
        snapshots = new SnapshotTransfer(this, cursor[0] + cursor[1]);
        detector = new SlownessDetector(ctx.meters(), Pilot.VOCABULARY, config.quorumHistoryWindow(), config.detectorInterval().toNanos());
        takeovers = new Takeovers(this);
        election = new PilotElection(this);
        election.start();
        updateRole(false);
        ctx.schedule(config.detectorInterval().toNanos(), new DetectorTick());
        ctx.schedule(config.catchUpInterval().toNanos(), new CatchUpTick());
        execute();
    }

    /** The member that pilots {@code log} in the view this member knows as established. */
    int pilotOf(int log) {
        return establishedView[log] % n;
    }

    /** The current pilots, for clients (§3.2: every command goes to both). */
    private List<NodeId> pilots() {
        NodeId a = members.get(pilotOf(0)), b = members.get(pilotOf(1));
        return a.equals(b) ? List.of(a) : List.of(a, b);
    }

    /**
     * The least ballot a message of {@code log} must carry here: the default ballot of the promised
     * view, so that nothing of an older view is taken once a candidate was promised a newer one.
     */
    Ballot viewFloor(int log) {
        return Ballot.of(promisedView[log], promisedView[log] % n);
    }

    /** What slot {@code s} is promised to: its own promise or the log's view floor, the higher. */
    private Ballot promise(Slot s) {
        return Ballot.max(s.promised, viewFloor(s.log));
    }

    /** Takes or drops the pilot role to match the established views (a member pilots at most one log). */
    void updateRole(boolean elected) {
        int mine = -1;
        for (int log = 0; log < 2; log++) {
            if (establishedView[log] == promisedView[log] && pilotOf(log) == selfIndex && (mine < 0 || pilot != null && pilot.log == log)) mine = log;
        }
        if (pilot != null && (pilot.log != mine || pilot.initial.view() != establishedView[mine])) {
            pilot.retire(pilots());
            pilot = null;
        }
        if (pilot == null && mine >= 0) {
            pilot = new Pilot(this, mine, Ballot.of(establishedView[mine], selfIndex), detector);
            pilot.start(elected);
        }
    }

    /** Promises view {@code view} of {@code log} (durably; the caller answers once it is). */
    void promiseView(int log, int view) {
        promisedView[log] = view;
        persistView(log);
        updateRole(false);
    }

    /** View {@code view} of {@code log} is established with fresh commands from {@code start} on. */
    void establishView(int log, int view, long start) {
        promisedView[log] = Math.max(promisedView[log], view);
        establishedView[log] = view;
        startSlot[log] = start;
        seen(log, start - 1); // the slots below the start exist: they are recovered, never reused
        persistView(log);
        updateRole(true);
        execute();
    }

    private void persistView(int log) {
        if (storageFailed) return;
        writeCommits();
        DurableLog l = ctx.log();
        l.append(new LogEntry(l.lastIndex() + 1, 0, SlotRecord.encodeView(new SlotRecord.ViewState(log, promisedView[log], establishedView[log], startSlot[log]))));
    }

    /**
     * Resumes from the newest local snapshot, which the host already restored into the state machine:
     * its checkpoint says where in both logs it ends and what ran. A snapshot without one (taken by
     * another engine, or one whose index missed its checkpoint, see {@link SnapshotTransfer#tag}) is
     * refused: execution cannot tell where to go on from, and guessing would run commands twice.
     */
    private void restoreSnapshot() {
        Optional<SnapshotMeta> latest = ctx.snapshots().latest();
        if (latest.isEmpty()) return;
        Checkpoint c;
        try {
            c = Checkpoint.decode(latest.get().engineData());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(self + " cannot resume from its snapshot " + latest.get() + ": " + e.getMessage(), e);
        }
        if (c.deliveredIndex() != latest.get().lastIncludedIndex()) {
            throw new IllegalStateException(self + " cannot resume from its snapshot " + latest.get() + ": its checkpoint is at " + c.deliveredIndex());
        }
        resumeAt(c);
        resumedFromSnapshot = true;
    }

    /** Execution continues after checkpoint {@code c}: both cursors, the delivered index and the session table are its. */
    private void resumeAt(Checkpoint c) {
        deliveredIndex = c.deliveredIndex();
        executed = rules.sessionsAfter(c);
        for (int log = 0; log < 2; log++) {
            cursor[log] = c.cursor(log);
            seen(log, c.highest(log));
            dropBelow(log, cursor[log]);
        }
    }

    /** Drops every slot of {@code log} below {@code to} (all of them ran here). */
    private void dropBelow(int log, long to) {
        if (to <= compactedBelow[log]) return;
        if (to - compactedBelow[log] > slots[log].size()) slots[log].keySet().removeIf(k -> k < to);
        else for (long k = compactedBelow[log]; k < to; k++) slots[log].remove(k);
        compactedBelow[log] = to;
    }

    /** Rebuilds every slot from the durable log, the last record of a slot winning; slots a snapshot covers are skipped. */
    private void replayDurableLog() {
        DurableLog log = ctx.log();
        @SuppressWarnings("unchecked")
        Map<Long, Slot>[] belowCursor = new Map[] {new HashMap<Long, Slot>(), new HashMap<Long, Slot>()};
        for (long i = log.firstIndex(); i <= log.lastIndex(); i++) {
            Object record;
            try {
                record = SlotRecord.decodeAny(log.entry(i).payload());
            } catch (IllegalArgumentException e) {
                corruptRecords++;
                continue;
            }
            if (record instanceof SlotRecord.ViewState v) {
                promisedView[v.log()] = Math.max(promisedView[v.log()], v.promised());
                if (v.established() >= establishedView[v.log()]) {
                    establishedView[v.log()] = v.established();
                    startSlot[v.log()] = v.startSlot();
                    seen(v.log(), v.startSlot() - 1);
                }
                continue;
            }
            if (record instanceof SlotRecord.Reservation r) {
                reserved[r.log()] = reservedDurable[r.log()] = Math.max(reserved[r.log()], r.through());
                seen(r.log(), r.through()); // the reserved slots may exist at peers: never proposed at again
                continue;
            }
            if (record instanceof SlotRecord.SameBatch same) {
                Slot previous = same.slot().index >= compactedBelow[same.slot().log] ? slots[same.slot().log].get(same.slot().index)
                        : belowCursor[same.slot().log].get(same.slot().index);
                if (previous == null || previous.cmds == null) {
                    if (same.slot().index >= compactedBelow[same.slot().log]) corruptRecords++; // cannot happen: the full record precedes it
                    continue;
                }
                same.slot().cmds = previous.cmds;
                record = same.slot();
            }
            Slot s = (Slot) record;
            seen(s.log, s.index);
            if (s.cmds != null) seen(1 - s.log, s.dep);
            if (s.index >= compactedBelow[s.log]) slots[s.log].put(s.index, s);
            else belowCursor[s.log].put(s.index, s);
        }
        for (int l = 0; l < 2; l++) restoreBelowCursor(l, belowCursor[l]);
        markLostVotes();
    }

    /** Slots restored below the resumed snapshot's cursors at this start (run-ahead slots a compaction kept), for tests. */
    long restoredBelowCursorAtStart;

    /**
     * After a restart from a snapshot: takes back the committed slots just below the snapshot's cursor
     * of {@code log} that the durable log holds ({@code below}, the last record of each), as many as
     * form an unbroken run of committed slots ending at the cursor, and lowers the compaction point to
     * the first of them. These are the slots a compaction kept because they ran ahead of the other
     * log's cursor ({@link #firstRunAhead}, written again with the snapshot's rewrite), which peers in
     * another interleaving still need. Why it is safe: every slot at or above the new compaction point
     * and below the cursor is then held here and committed (the invariant every answer about a slot
     * relies on: below the compaction point a member answers only with a snapshot offer, above it
     * with what it holds), and a committed value is what every replica commits for that slot.
     */
    private void restoreBelowCursor(int log, Map<Long, Slot> below) {
        long k = compactedBelow[log];
        while (k > 0) {
            Slot s = below.get(k - 1);
            if (s == null || !s.committed() || s.cmds == null) break;
            k--;
        }
        for (long i = k; i < compactedBelow[log]; i++) {
            Slot s = below.get(i);
            // What each of them ran ahead of is not persisted: keep them at least until the other log
            // runs past where this snapshot stands in it (keptForPeers), as the compaction that kept them would.
            s.ranBefore = cursor[other(log)];
            slots[log].put(i, s);
        }
        restoredBelowCursorAtStart += compactedBelow[log] - k;
        compactedBelow[log] = k;
    }

    /**
     * After a restart: the own slots this member reserved as a pilot and holds no vote for may have
     * had a FastAccept sent before the vote was durable ({@link #reserve}). Which ones: the durable log
     * is a prefix of what was appended, and a pilot appends a reservation before the vote of the slot
     * that asked for it and proposes slots in increasing order, so every slot proposed before the last
     * durable reservation has its vote in the log, and the others are at most {@link #RESERVATION_SLOTS}
     * below it.
     */
    /** Reserved own slots this incarnation started without a vote for (see {@link #markLostVotes}), for tests. */
    long lostVotesAtStart;

    private void markLostVotes() {
        for (int log = 0; log < 2; log++) {
            if (reserved[log] < 0) continue;
            for (long k = Math.max(compactedBelow[log], reserved[log] - RESERVATION_SLOTS); k <= reserved[log]; k++) {
                Slot s = slot(log, k);
                if (!s.vouched() && !s.committed()) {
                    s.voteLost = true;
                    lostVotesAtStart++;
                }
            }
        }
    }

    /**
     * The pilot of {@code log} is about to propose {@code slot}: keep a durable reservation ahead of it
     * ({@link SlotRecord.Reservation}), renewed when less than half of it is left, so that the
     * FastAccept of a slot can leave at once while the pilot's own vote on it is still on its way to
     * disk. Why sending first is safe (the Raft leader's rule, adapted): the pilot counts its own
     * agreement or accept only when its own reply, sent once the vote is durable, comes back, so every
     * fast or slow commit it decides rests on durable votes only. A crash before the vote is durable
     * loses it; the reservation, durable before anything is sent for a slot it covers, makes the
     * restarted pilot (1) resume above every slot it may have sent (no ballot reused: the reserved
     * slots are taken over at higher ballots, as every inherited slot) and (2) treat each reserved
     * slot it holds no vote for as a lost vote with dependency ⊥ until it commits ({@link Slot#voteLost}),
     * so that recovery may still count a silent pilot as a fast-accept of the batch others hold
     * ({@link CopilotRules#pickRecovery}).
     */
    void reserve(int log, long slot) {
        if (storageFailed || reserved[log] >= slot + RESERVATION_SLOTS / 2) return;
        reserved[log] = slot + RESERVATION_SLOTS;
        persistReservation(log);
    }

    private void persistReservation(int log) {
        writeCommits();
        DurableLog l = ctx.log();
        l.append(new LogEntry(l.lastIndex() + 1, 0, SlotRecord.encodeReservation(new SlotRecord.Reservation(log, reserved[log]))));
        reservationIndex[log] = l.lastIndex();
        if (l.durableIndex() >= reservationIndex[log]) reservedDurable[log] = reserved[log];
    }

    /** Runs {@code send} (a pilot's phase message of own slot {@code slot}) once a durable reservation covers the slot: at once, normally. */
    void whenReserved(int log, long slot, Runnable send) {
        if (storageFailed) return;
        if (reservedDurable[log] >= slot) send.run();
        else whenDurable(send); // the reservation was appended before: durable by then
    }

    @Override
    public void onClientRequest(ClientRequest request) {
        if (pilot == null) {
            // Only the two pilots order commands; the runtime forwards the request to both (§3.2).
            ctx.reject(request.requestId(), new Rejection.Redirect(pilots()));
            return;
        }
        if (storageFailed) {
            ctx.reject(request.requestId(), new Rejection.Unavailable("storage failed on " + self));
            return;
        }
        // The command already ran here (the other pilot's copy ran before the client's message to this
        // pilot arrived, or this is a retry of an answered command): the host answers it from its
        // session table, after execution caught up with every delivery made so far (NodeRuntime and
        // the simulator alike). Ordered again, the other pilot's command would be skipped at execution
        // (a command runs at its first position only) and answer nothing, so it is not ordered at all.
        // A command below its client's floor is ordered: execution answers it as stale.
        if (request.kind() == ClientRequest.Kind.COMMAND && executed.delivered(request.session())) return;
        pilot.onClientRequest(request);
    }

    @Override
    public void onMessage(NodeId from, ProtocolMessage message) {
        if (!(message instanceof CopilotMessage m) || !members.contains(from)) return;
        if (m.log() != 0 && m.log() != 1 || m.slot() < 0) return; // malformed: a value, not an exception
        switch (m) {
            case FastAccept fa -> {
                onPiggybackedCommits(fa);
                onFastAccept(from, fa);
            }
            case FastAcceptReply r -> {
                if (pilot != null && r.log() == pilot.log) pilot.onFastAcceptReply(from, r);
            }
            case Accept acc -> onAccept(from, acc);
            case AcceptReply r -> {
                if (pilot != null && r.log() == pilot.log && r.ballot().equals(pilot.initial)) pilot.onAcceptReply(from, r);
                else takeovers.onAcceptReply(from, r);
            }
            case Commit c -> onCommit(c);
            case Prepare p -> onPrepare(from, p);
            case PrepareReply r -> takeovers.onPrepareReply(from, r);
            case CommitQuery q -> onCommitQuery(from, q);
            case ViewChange v -> election.onViewChange(from, v);
            case ViewChangeReply r -> election.onViewChangeReply(from, r);
            case StartView v -> election.onStartView(from, v);
            case Ball b -> onBallMessage(from, b);
            case SnapshotOffer o -> snapshots.onOffer(from, o);
            case SnapshotChunkRequest r -> snapshots.onChunkRequest(from, r);
            case SnapshotChunk c -> snapshots.onChunk(c);
        }
    }

    /**
     * Whether {@code log.slot}, named by a message from {@code from}, was compacted here: it was
     * committed and ran here, and its value is gone. A phase message (FastAccept, Accept, Prepare) or
     * a catch-up query about it comes from a member behind this one: it gets our snapshot offered,
     * never a promise or a vote (see the class comment: that is what keeps recovery from ever deciding
     * a compacted slot anew). A Commit about it changes nothing. (Replies need no check: they only
     * find proposals and takeovers, and those of compacted slots ended.)
     */
    private boolean compacted(NodeId from, int log, long slot, boolean offer) {
        if (slot >= compactedBelow[log]) return false;
        if (offer) snapshots.offer(from);
        return true;
    }

    @Override
    public void onTimer(TimerKey key) {
        switch (key) {
            case CatchUpTick t -> {
                snapshots.onTick();
                onCatchUpTick();
            }
            case TakeoverCheck t -> takeovers.startBlocking(blockers());
            case DetectorTick t -> {
                if (pilot != null) pilot.sampleDetector();
                ctx.schedule(config.detectorInterval().toNanos(), t);
            }
            case PilotElection.Tick t -> election.onTick();
            case Pilot.PingPongWait t -> {
                if (pilot != null) pilot.onPingPongWait();
            }
            case Pilot.FastPathWait t -> {
                if (pilot != null) pilot.onFastPathWait(t.slot());
            }
            case Pilot.Resend t -> {
                if (pilot != null) pilot.onResend(t.slot());
            }
            case Pilot.CommitFlush t -> {
                if (pilot != null) pilot.onCommitFlush();
            }
            case Takeovers.Retry t -> takeovers.onRetry(t.log(), t.slot());
            default -> {}
        }
    }

    @Override
    public void onStorageEvent(StorageEvent event) {
        switch (event) {
            case StorageEvent.LogSynced s -> runDurable();
            case StorageEvent.SnapshotTaken t -> snapshots.onSnapshotTaken(t);
            case StorageEvent.SnapshotChunkRead r -> snapshots.onChunkRead(r);
            case StorageEvent.SnapshotChunkWritten w -> snapshots.onChunkWritten(w);
            case StorageEvent.SnapshotInstalled i -> snapshots.onInstalled(i);
            case StorageEvent.SnapshotFailed f -> snapshots.onSnapshotFailed(f);
            case StorageEvent.StorageFailed f -> {
                // Nothing appended from now on becomes durable: acknowledge nothing more.
                storageFailed = true;
                deferred.clear();
            }
            default -> {}
        }
    }

    /**
     * Both pilots order commands, so both report LEADER and name themselves; the other members follow
     * the pilot of log 0. The epoch is the sum of the two logs' established views (it grows with every
     * election); the commit index is the combined order's delivered position.
     */
    @Override
    public EngineStatus status() {
        EngineStatus.Role role = pilot != null ? EngineStatus.Role.LEADER : EngineStatus.Role.FOLLOWER;
        long epoch = (long) establishedView[0] + establishedView[1] - 1;
        return new EngineStatus(role, pilot != null ? self : members.get(pilotOf(0)), epoch, members, List.of(), deliveredIndex, -1, Map.of());
    }

    @Override
    public String inspect() {
        return (pilot != null ? (pilot.log == 0 ? "pilot " : "copilot ") : "replica ") + "cursor=" + cursor[0] + "/" + cursor[1] + " seen="
                + highestSeen[0] + "/" + highestSeen[1] + " delivered=" + deliveredIndex + " heads=" + slotOrNull(0, cursor[0]) + " "
                + slotOrNull(1, cursor[1]) + " " + election.describe() + (pilot != null ? " " + pilot.describe() : "") + " " + takeovers.describe()
                + " " + snapshots.describe() + " retained=" + retainedSlots() + (corruptRecords > 0 ? " corrupt=" + corruptRecords : "");
    }

    @Override
    public SnapshotTag snapshotTag(long index) {
        return snapshots.tag(index);
    }

    // ---- shared helpers of the roles ----

    long now() {
        return ctx.nowNanos();
    }

    Slot slotOrNull(int log, long index) {
        return slots[log].get(index);
    }

    Slot slot(int log, long index) {
        return slots[log].computeIfAbsent(index, i -> new Slot(log, i));
    }

    /** Slot {@code index} of {@code log} exists somewhere (§3.3: highestSeen comes from every message). */
    void seen(int log, long index) {
        if (index > highestSeen[log]) highestSeen[log] = index;
    }

    int indexOf(NodeId node) {
        return members.indexOf(node);
    }

    /** Appends the slot's state to the durable log; what depends on it waits with {@link #whenDurable}. */
    void persist(Slot s) {
        if (storageFailed) return;
        writeCommits();
        append(s);
    }

    /**
     * Appends slot {@code s}'s state; without its batch when the slot's previous record (still in the
     * durable log: compaction rewrites every live slot in full first) holds that very batch.
     */
    private void append(Slot s) {
        DurableLog log = ctx.log();
        boolean same = s.cmds != null && s.writtenCmds == s.cmds;
        log.append(new LogEntry(log.lastIndex() + 1, 0, same ? SlotRecord.encodeSameBatch(s) : SlotRecord.encode(s)));
        s.writtenCmds = s.cmds;
    }

    /**
     * Appends the commit records learned since the last write. A commit record is never waited for
     * (a commit lost in a crash is learned again from a peer), so it need not be written on its own:
     * written with the next vote or promise it shares that write's fsync, instead of adding one to
     * the disk's queue in front of the next vote on a command's path.
     */
    private void writeCommits() {
        if (unwrittenCommits.isEmpty()) return;
        DurableLog log = ctx.log();
        for (Slot c : unwrittenCommits) append(c);
        unwrittenCommits.clear();
    }

    /** Runs {@code action} once everything appended so far is durable (now, if it already is). */
    void whenDurable(Runnable action) {
        if (storageFailed) return;
        long needed = ctx.log().lastIndex();
        if (ctx.log().durableIndex() >= needed && deferred.isEmpty()) action.run();
        else deferred.addLast(new Deferred(needed, action));
    }

    private void runDurable() {
        long durable = ctx.log().durableIndex();
        for (int log = 0; log < 2; log++) if (reservationIndex[log] >= 0 && durable >= reservationIndex[log]) reservedDurable[log] = reserved[log];
        while (!deferred.isEmpty() && deferred.peekFirst().durableIndex() <= durable) deferred.pollFirst().action().run();
    }

    /** Sends to a member; a message to itself is handled at once, on this loop. */
    void send(NodeId to, CopilotMessage m) {
        if (to.equals(self)) onMessage(self, m);
        else ctx.send(to, m);
    }

    void sendToPeers(CopilotMessage m) {
        for (NodeId p : members) if (!p.equals(self)) ctx.send(p, m);
    }

    // ---- acceptor (§3.4, §3.5, §3.9) ----

    /** §3.4: a replica's answer to the pilot's FastAccept, after the compatibility check. */
    void onFastAccept(NodeId from, FastAccept m) {
        if (compacted(from, m.log(), m.slot(), true)) return;
        int other = 1 - m.log();
        seen(m.log(), m.slot());
        seen(other, m.dep());
        Slot s = slot(m.log(), m.slot());
        if (promise(s).greaterThan(m.ballot())) {
            send(from, new FastAcceptReply(m.log(), m.slot(), m.ballot(), false, Slot.NO_DEP, promise(s), -1));
            return;
        }
        if (s.committed()) {
            send(from, commitOf(s));
            return;
        }
        if (s.status.atLeast(Status.ACCEPTED)) return; // the Accept phase overtook it: never downgrade (§5.1 item 10)
        if (!(s.vouched() && s.accepted.equals(m.ballot()))) {
            s.cmds = m.cmds();
            s.accepted = m.ballot();
            s.promised = m.ballot();
            if (rules.compatible(m.log(), m.slot(), m.dep(), this::slotOrNull, highestSeen[other], compactedBelow[other])) {
                s.status = Status.FAST_ACCEPTED;
                s.dep = s.vouchedDep = m.dep();
            } else {
                // The paper's suggestion: this replica's latest entry of the other log. It is above the
                // proposed dependency, since the conflicting entry is.
                s.status = Status.PRE_ACCEPTED;
                s.dep = s.vouchedDep = highestSeen[other];
                countRejection(m.log(), m.slot(), m.dep());
            }
            persist(s);
        } // else a duplicate: answer it the same way again
        long vouched = s.vouchedDep;
        Ballot promised = s.promised;
        int depView = promisedView[other];
        whenDurable(() -> send(from, new FastAcceptReply(m.log(), m.slot(), m.ballot(), true, vouched, promised, depView)));
        if (m.ballot().isInitial() && indexOf(from) == m.ballot().node() && m.ballot().view() == establishedView[m.log()]) {
            election.heard(m.log()); // the log's pilot is alive
            // §4.1: the other pilot's FastAccept for its own log is the ball.
            if (pilot != null && m.log() == other(pilot.log)) pilot.onFastAcceptBall(m.slot(), m.dep());
        }
    }

    /**
     * Counts why a FastAccept of {@code log.slot} with dependency {@code dep} failed the compatibility
     * check here (a counter per cause, for real runs): the first other-log entry ordered neither way
     * was the other pilot's proposal made at the same moment ({@code concurrent-pair}: it is the next
     * slot after the dependency and itself depends on the slot just before this one, so neither pilot
     * had seen the other's proposal), an entry further away ({@code stale}), a compacted entry, or a
     * lost vote of a restarted pilot.
     */
    private void countRejection(int log, long slot, long dep) {
        int other = other(log);
        String cause = "stale";
        if (dep + 1 < compactedBelow[other]) cause = "compacted";
        else {
            for (long k = Math.max(0, dep + 1); k <= highestSeen[other]; k++) {
                Slot o = slotOrNull(other, k);
                if (o == null) continue;
                if (o.voteLost && !o.committed()) {
                    cause = "vote-lost";
                    break;
                }
                if (o.vouched() && o.vouchedDep < slot) {
                    cause = k == dep + 1 && o.vouchedDep == slot - 1 ? "concurrent-pair" : "stale";
                    break;
                }
            }
        }
        ctx.meters().counter("tandem.copilot.fast_accept.refused", "cause", cause).increment();
    }

    /**
     * §4.1: the other pilot chose {@code b.slot()} (its FastAccept follows once its vote is durable).
     * Only the pilot decides whether this early ball counts ({@link Pilot#takesEarlyBall}); a ball that
     * does not count leaves no trace here, not even in {@link #highestSeen}, so no later proposal
     * depends on a slot whose batch is not known here yet.
     */
    private void onBallMessage(NodeId from, Ball b) {
        if (indexOf(from) != pilotOf(b.log()) || pilot == null || b.log() != other(pilot.log)) return;
        if (pilot.takesEarlyBall(b)) {
            seen(b.log(), b.slot()); // the next proposal depends on it (§3.3: any message counts as seen)
            pilot.onBall(b.slot());
        }
    }

    /** The batch held already if it equals the new one (its record then need not repeat it), else the new one. */
    private static List<Command> sameOrNew(List<Command> held, List<Command> incoming) {
        return held != null && held.equals(incoming) ? held : incoming;
    }

    private static Commit commitOf(Slot s) {
        return new Commit(s.log, s.index, s.cmds, s.dep, s.depView);
    }

    private static int other(int log) {
        return 1 - log;
    }

    /** §3.5: Accept checks only the ballot, never compatibility (cycles are allowed). */
    void onAccept(NodeId from, Accept m) {
        if (compacted(from, m.log(), m.slot(), true)) return;
        seen(m.log(), m.slot());
        seen(other(m.log()), m.dep());
        Slot s = slot(m.log(), m.slot());
        if (s.committed()) {
            send(from, commitOf(s));
            return;
        }
        if (promise(s).greaterThan(m.ballot())) {
            send(from, new AcceptReply(m.log(), m.slot(), m.ballot(), false, promise(s), -1));
            return;
        }
        if (!(s.status == Status.ACCEPTED && s.accepted.equals(m.ballot()))) {
            s.vouchedDep = s.vouched() ? Math.min(s.vouchedDep, m.dep()) : m.dep();
            s.promised = m.ballot();
            s.accepted = m.ballot();
            s.cmds = sameOrNew(s.cmds, m.cmds());
            s.dep = m.dep();
            s.status = Status.ACCEPTED;
            persist(s);
        }
        Ballot promised = s.promised;
        int depView = promisedView[other(m.log())];
        whenDurable(() -> send(from, new AcceptReply(m.log(), m.slot(), m.ballot(), true, promised, depView)));
    }

    /** §3.5 Commit handling: fill in the batch, set the final dependency, never downgrade. */
    void onCommit(Commit m) {
        if (compacted(self, m.log(), m.slot(), false)) return;
        seen(m.log(), m.slot());
        seen(other(m.log()), m.dep());
        Slot s = slot(m.log(), m.slot());
        if (s.committed()) return;
        s.vouchedDep = s.vouched() ? Math.min(s.vouchedDep, m.dep()) : m.dep();
        s.cmds = sameOrNew(s.cmds, m.cmds());
        s.dep = m.dep();
        s.depView = m.depView();
        s.status = Status.COMMITTED;
        s.committedAt = now();
        s.voteLost = false;
        // Not waited for: a lost commit is learned again from a peer (catch-up, or a takeover's Prepare).
        if (!storageFailed) unwrittenCommits.add(s);
        if (observed) commitEvents.add(new CommitEvent(m.log(), m.slot(), m.cmds(), m.dep()));
        takeovers.committed(m.log(), m.slot());
        if (pilot != null) pilot.committed(s);
        execute();
    }

    /** Decides a slot here and tells every peer (the proposer of a fast, slow or takeover path). */
    void decide(int log, long slot, List<Command> cmds, long dep, int depView) {
        Commit c = new Commit(log, slot, cmds, dep, depView);
        sendToPeers(c);
        onCommit(c);
    }

    /**
     * {@link CopilotConfig#commitPiggyback}: the proposing pilot decided its own slot; the Commit goes at once to the
     * other log's pilot only, and the pilot hands it to the non-pilot replicas itself ({@link Pilot#holdCommit}).
     *
     * <p>Why holding it back from them is safe: a Commit is a one-way notice of a decision that is already made (a fast
     * quorum or a majority holds it, and any recovery finds it, §3.5, §5.3); arriving later is what a slow link does to
     * it anyway, and nothing a replica decides waits for it except its own execution, which follows §3.7 whenever the
     * commits come. The members that need it at once get it at once: the other pilot orders its next entries after it,
     * runs it, and answers its clients (§3.8; non-pilot replicas answer no one), and its own slots' execution waits for
     * it (their dependencies). A replica that never gets the held Commit (the pilot crashed) learns it as every lost
     * Commit is learned: from a peer (catch-up) or a takeover's Prepare.
     */
    Commit decideAtPilots(int log, long slot, List<Command> cmds, long dep, int depView) {
        Commit c = new Commit(log, slot, cmds, dep, depView);
        int otherPilot = pilotOf(other(log));
        if (otherPilot >= 0 && otherPilot != selfIndex) send(members.get(otherPilot), c);
        return c;
    }

    /**
     * The decisions a pilot held back for this replica and carried in its FastAccept ({@link CopilotConfig#commitPiggyback}):
     * each as its own Commit would be, before the proposal. One that names no log or slot is ignored (wire input).
     */
    private void onPiggybackedCommits(FastAccept fa) {
        for (Commit c : fa.commits()) {
            if (c == null || c.log() != 0 && c.log() != 1 || c.slot() < 0) continue;
            piggybackedCommits++;
            onCommit(c);
        }
    }

    /** §3.9: promise a higher ballot and report this replica's progress on the slot. */
    void onPrepare(NodeId from, Prepare m) {
        if (compacted(from, m.log(), m.slot(), true)) return;
        seen(m.log(), m.slot());
        Slot s = slot(m.log(), m.slot());
        if (s.committed()) {
            send(from, commitOf(s));
            return;
        }
        if (!m.ballot().greaterThan(promise(s))) {
            if (!m.ballot().equals(s.promised) || viewFloor(s.log).greaterThan(m.ballot())) {
                send(from, new PrepareReply(m.log(), m.slot(), m.ballot(), false, promise(s), Status.NONE, Ballot.NONE, null, Slot.NO_DEP));
                return;
            }
        } else {
            s.promised = m.ballot();
            persist(s);
        }
        PrepareReply reply = new PrepareReply(m.log(), m.slot(), m.ballot(), true, s.promised, s.status, s.accepted, s.cmds, s.dep);
        whenDurable(() -> send(from, reply));
    }

    /** Learner catch-up: send the commits asked for that this replica has. */
    private void onCommitQuery(NodeId from, CommitQuery q) {
        if (compacted(from, q.log(), q.slot(), true)) return;
        long last = Math.min(q.last(), q.slot() + 64);
        for (long k = q.slot(); k <= last; k++) {
            Slot s = slotOrNull(q.log(), k);
            if (s != null && s.committed()) ctx.send(from, commitOf(s));
        }
    }

    // ---- execution (§3.7, §3.8, §4.2) ----

    /** Runs HEAD-MERGE as far as it goes; if it stops on an uncommitted slot, a pilot may take it over later. */
    void execute() {
        if (snapshots != null && snapshots.receiving()) return; // the snapshot being pulled replaces the state: nothing runs before it
        long before = cursor[0] + cursor[1];
        while (true) {
            CopilotRules.Step step = rules.next(cursor[0], cursor[1], this::slotOrNull, config.nullDepElimination(), this::allNull);
            if (step == CopilotRules.Step.BLOCKED) break;
            int log = step == CopilotRules.Step.RUN_PILOT ? 0 : 1;
            Slot s = slotOrNull(log, cursor[log]);
            noteRanBefore(s);
            run(s);
            cursor[log]++;
        }
        if (takeovers != null) takeovers.blocked(blockers());
        if (snapshots != null && cursor[0] + cursor[1] > before && !storageFailed) snapshots.maybeSnapshot(cursor[0] + cursor[1], this::checkpoint);
        peakRetainedSlots = Math.max(peakRetainedSlots, retainedSlots());
        if (ctx != null) peakRetainedRecords = Math.max(peakRetainedRecords, retainedRecords());
    }

    /**
     * Slot {@code s} runs now, ahead of the other log's head: remember that head
     * ({@link Slot#ranBefore}) unless it is known here to be ordered after {@code s} (committed with a
     * dependency that reaches {@code s}: then every replica runs {@code s} first).
     *
     * <p>Why: the combined order may run concurrent entries (neither depends on the other: a takeover's
     * no-op with dependency ⊥, or an entry null-dependency elimination ran ahead, §4.2) in different
     * interleavings at different replicas, depending on which commits each one knows. A replica that
     * does not know an other-log head is committed runs the next entry of this log whose dependency
     * allows it; one that knows runs the head first. The two then stand at execution points that are
     * not nested (seed 43 with copilot12's ping-pong rule, 3 nodes, snapshots every 4 slots: n3 at
     * (50, 37) had run and compacted 0.31-0.49, all ahead of the unknown 1.37; n1 and n2 at (31, 68)
     * had run the takeover no-ops 1.37-1.66 ahead of 0.31, which they did not know committed, and
     * compacted them). Each side holds what the other needs, neither can install the other's
     * snapshot ({@link #behind}), and the takeover of 0.31 cannot finish without n3's vote: a stall
     * with every node up. A slot that ran ahead of an other-log head is therefore kept by compaction
     * until this member's snapshot has run that head too ({@link CopilotRules#keptForPeers}); by then
     * this member stands at or past the head, so a peer that ran the other log further can use this
     * member's (fresh, {@link SnapshotTransfer#snapshotForLaggingPeer}) snapshot as soon as this member
     * catches up with it in the other log, which the peer's own kept slots let it do.
     */
    private void noteRanBefore(Slot s) {
        int other = other(s.log);
        Slot head = slotOrNull(other, cursor[other]);
        boolean after = head != null && head.committed() && head.dep >= s.index;
        // No other-log slot at or past the cursor is known here (that log is idle): nothing to keep for.
        // Without this a log with no traffic would hold every slot of the other one. A peer that did run
        // such a slot first, unknown here, keeps it for us in turn (it ran it ahead of our slot), and with
        // it we catch up and offer a snapshot it can install.
        boolean none = head == null && highestSeen[other] < cursor[other];
        s.ranBefore = after || none ? Slot.NO_DEP : cursor[other];
    }

    /** The most slots and durable records this member held at once (after any execution step), for tests of compaction. */
    long peakRetainedSlots, peakRetainedRecords;
    /** This incarnation started from a snapshot. */
    boolean resumedFromSnapshot;

    /** Where execution stands now, at a slot boundary: what a snapshot taken now carries. */
    boolean storageFailed() {
        return storageFailed;
    }

    /** {@link #checkpoint()}, for a snapshot taken outside the threshold ({@link SnapshotTransfer}). */
    Checkpoint checkpointNow() {
        return checkpoint();
    }

    private Checkpoint checkpoint() {
        return new Checkpoint(deliveredIndex, cursor[0], cursor[1], Math.max(highestSeen[0], cursor[0] - 1), Math.max(highestSeen[1], cursor[1] - 1),
                executed.copy());
    }

    /**
     * The snapshot of checkpoint {@code c} is stored (and is the one a restart starts from): drop both
     * logs below its cursors less the retention, and rewrite the durable log so that it holds what a
     * restart from the snapshot needs and nothing older. The durable log is a write-ahead log of slot
     * records in the order things happened, not in slot order: a vote for a slot above the cursor may
     * stand before the commit of one below it. So the state of every slot at or above the snapshot's
     * cursors (their latest state, which is what a replay would end with) and both logs' view state
     * are appended again, and only once those copies are durable is the old prefix dropped.
     */
    void compact(Checkpoint c) {
        if (storageFailed) return;
        long[] rewriteFrom = new long[2];
        for (int log = 0; log < 2; log++) {
            long to = rules.compactionPoint(c.cursor(log), cursor[log], config.logRetentionSlots());
            long ahead = firstRunAhead(log, c.cursor(log), c.cursor(other(log)));
            // Lowered only by run-ahead slots; otherwise the compaction point as the rules give it (a test
            // twin's point past the cursor must stay visible).
            dropBelow(log, ahead < c.cursor(log) ? Math.min(to, ahead) : to);
            rewriteFrom[log] = ahead; // the run-ahead slots go into the durable log too (see firstRunAhead)
        }
        unwrittenCommits.removeIf(s -> s.index < compactedBelow[s.log]);
        rewriteDurableLog(rewriteFrom);
    }

    /**
     * The lowest slot of {@code log} below {@code to} that ran here ahead of the other log's cursor
     * {@code otherCursor} of the snapshot (its dependency at or past it: null-dependency elimination,
     * §4.2, or a cycle; or it ran ahead of an other-log head at or past it that a peer may have run
     * first, {@link #noteRanBefore}: {@link CopilotRules#keptForPeers}), else {@code to}. Such slots stay: other replicas may run the other log's
     * slots first, in another interleaving of the same delivered sequence, and then need these
     * commits with their own cursors past this snapshot's in the other log, so that they can install
     * neither this snapshot nor, while this replica waits for those other-log slots, any later one
     * (copilot9's seed 2641: this replica at (169, 176) had compacted log 0 below 167, the only
     * commits of 133..166; its peers at (133, 202) had compacted log 1 below 200: neither side could
     * move). Keeping more is always safe (compaction is optional); the slots go with the first
     * snapshot whose other-log cursor passed their dependency.
     *
     * <p>They must survive a restart too, so from the first of them up to the snapshot's cursor every
     * slot is written again into the durable log with the slots above the cursor (they are all
     * committed: they ran here), and a restart takes them back ({@link #restoreBelowCursor}). In memory
     * only, a restart of the replica holding them would bring back exactly the stall of seed 2641: it
     * resumes from the snapshot, drops everything below its cursors, answers its peers' questions
     * about those slots with a snapshot they cannot install (it is behind them in the other log), and
     * cannot move in the other log because the peers compacted what it needs there; nothing in the
     * group changes that, so liveness would be lost (safety would not: a replica that forgot a slot it
     * ran answers about it only with a snapshot offer, never with a vote). The scan covers the
     * retention window too ({@code to} up to the snapshot's cursor), whose slots a restart also drops.
     */
    private long firstRunAhead(int log, long to, long otherCursor) {
        for (long k = compactedBelow[log]; k < to; k++) {
            Slot s = slotOrNull(log, k);
            if (s != null && rules.keptForPeers(s, otherCursor)) return k;
        }
        return to;
    }

    private void rewriteDurableLog(long[] from) {
        writeCommits();
        DurableLog l = ctx.log();
        long old = l.lastIndex();
        for (int log = 0; log < 2; log++) {
            for (Slot s : slots[log].values()) {
                if (s.index >= from[log] && (s.status != Status.NONE || !s.promised.equals(Ballot.NONE))) {
                    l.append(new LogEntry(l.lastIndex() + 1, 0, SlotRecord.encode(s))); // in full: the old prefix goes
                    s.writtenCmds = s.cmds;
                }
            }
            persistView(log);
            if (reserved[log] >= from[log]) persistReservation(log); // still ahead: a restart must not lose it
        }
        whenDurable(() -> {
            if (old >= l.firstIndex() && old <= l.lastIndex()) l.compactPrefix(old);
        });
    }

    /**
     * {@code c} is ahead of this member's execution: at or past it in both logs and past it in one. Every
     * replica runs the same combined order (§3.7), so such a checkpoint is a later point of that order and
     * never takes a cursor back over a slot this member ran. Its delivered count may equal ours: the slots
     * between may hold no-ops or commands already executed (deduplicated), and a member that needs exactly
     * those slots, compacted at its peers, can only get past them with this snapshot (seed 2191).
     */
    boolean behind(Checkpoint c) {
        boolean atOrPast = c.cursor0() >= cursor[0] && c.cursor1() >= cursor[1];
        boolean past = c.cursor0() > cursor[0] || c.cursor1() > cursor[1];
        return atOrPast && past && c.deliveredIndex() >= deliveredIndex;
    }

    /**
     * A peer's snapshot was installed into the state machine: execution goes on from its checkpoint.
     * Every slot below the new cursors was committed (the peer ran it), so nothing this member
     * promised or voted for there matters any more; its promises and votes above them stay, in memory
     * and (rewritten) in the durable log. Its own proposals and takeovers below the new cursors end:
     * the commands of a proposal go back to the pilot's queue, and the session table keeps them to
     * one execution if they ran.
     */
    void install(Checkpoint c) {
        resumeAt(c);
        unwrittenCommits.removeIf(s -> s.index < compactedBelow[s.log]);
        lastTickA = lastTickB = -1;
        if (!storageFailed) rewriteDurableLog(new long[] {cursor[0], cursor[1]});
        for (int log = 0; log < 2; log++) takeovers.compacted(log, compactedBelow[log]);
        if (pilot != null) pilot.compacted(compactedBelow[pilot.log]);
        execute();
    }

    /** Slots held in memory, both logs together: what compaction keeps bounded. */
    long retainedSlots() {
        return slots[0].size() + slots[1].size();
    }

    /** Records in the durable log. */
    long retainedRecords() {
        return ctx.log().lastIndex() - ctx.log().firstIndex() + 1;
    }

    long compactedBelow(int log) {
        return compactedBelow[log];
    }

    /**
     * §3.8: a batch runs its commands in order; a command runs at its first position only: the other
     * pilot's copy of a command that already ran is not delivered at all (a retry within the same log
     * is, and execution answers it from its session cache; see {@link ExecutedCommands}). So the
     * delivered sequence is the same at every replica even where null-dependency elimination let one
     * replica run an entry ahead of such copies.
     */
    private void run(Slot s) {
        if (pilot != null && s.committedAt > 0) (s.log == pilot.log ? execWaitOwn : execWaitOther).record(now() - s.committedAt);
        for (Command c : s.cmds) {
            if (c.read()) {
                if (c.origin().equals(self)) ctx.serveRead(c.requestId(), deliveredIndex);
                continue;
            }
            boolean retry = executed.executed(c.session());
            if (!executed.deliver(s.log, c.session())) continue;
            Committed entry = new Committed(++deliveredIndex, c.origin(), c.requestId(), c.session(), c.payload());
            if (observed) deliveries.add(new Delivery(s.log, entry, retry));
            ctx.deliver(entry);
        }
    }

    /**
     * §4.2: slots {@code from..to} of {@code log}, the dependency range of a committed entry whose
     * dependency was taken in view {@code depView} of {@code log}, deliver nothing wherever they end
     * up in the order: each is known here with the only batch it can ever commit with, and every
     * write in it already ran and is no retry within its log.
     *
     * <p>"The only batch": a committed value; or a batch accepted in view {@code depView} itself. In
     * one view a slot gets fresh commands from that view's pilot only, once, and takeovers re-propose
     * a batch they found or a no-op. A later view cannot give such a slot fresh commands either: a
     * majority took the entry's dependency while it had promised no view above {@code depView}, so
     * each of them knew the slot; any later view's majority includes one of them and starts above
     * it (the §4.2 "nullDepSafe" rule of the reference code, with the view of the deciding quorum).
     */
    boolean allNull(int log, long from, long to, int depView) {
        if (to < from) return true;
        java.util.Set<ExecutedCommands.SessionKey> inRange = new java.util.HashSet<>();
        for (long k = from; k <= to; k++) {
            Slot s = slotOrNull(log, k);
            if (s == null || s.cmds == null) return false;
            if (!s.committed() && s.cmds.isEmpty()) return false; // an accepted no-op may still lose to the pilot's batch
            if (!s.committed() && (depView < 0 || s.accepted.view() != depView)) return false;
            for (Command c : s.cmds) {
                if (c.read()) continue;
                if (c.session().isNone() || !executed.executed(c.session()) || executed.orderedIn(log, c.session())) return false;
                if (!inRange.add(ExecutedCommands.SessionKey.of(c.session()))) return false;
            }
        }
        return true;
    }

    long cursor(int log) {
        return cursor[log];
    }

    /**
     * The slots a pilot takes over (§3.9, §3.10): the uncommitted other-log slots in
     * {@code [cursor, dep(x)]} of its committed own head x when they block it, and its own uncommitted
     * slots that no proposal of this incarnation drives: the head and what the other log's committed
     * head waits for, and every slot it inherited (below its first fresh slot: left by an older view
     * or by itself before a restart).
     *
     * <p>The inherited slots all go at once (the spec's "takeovers on every slot in (committedUpTo,
     * startSlot)"): recovering them one head at a time made a new pilot that inherited 40 slots of
     * a slow-disk group take 40 sequential Paxos rounds, about 8 s, during which nothing executed
     * (slow-disk seeds of the mix: 235, 255, 366, 452 at 5 nodes, 615, 631, 791, 1028, 1045 at 3).
     * Each takeover is a Paxos instance of its own slot, so doing them in parallel is as safe as
     * doing them in turn; a slot some other proposer still drives only costs a duel that the
     * randomized backoff settles.
     */
    List<long[]> blockers() {
        List<long[]> out = new ArrayList<>();
        if (pilot == null) return out;
        int own = pilot.log, other = other(own);
        Slot x = slotOrNull(own, cursor[own]);
        long ownTo = pilot.firstSlot() - 1;
        if (x != null && x.committed()) {
            // The head and the committed own entries right behind it: each will block on the other log up to
            // its own dependency once the ones before it ran. Listed together, their blocking slots count
            // their time from now and are taken over in one parallel batch; listed one head at a time, a
            // pilot stalled with several slots in flight cost one takeover timeout per slot in turn
            // (copilot15: five in a row at a 40 ms pause, 18.9 ms). Safe as any takeover; a slot listed
            // early that its live pilot then commits in time is never taken over.
            long covered = cursor[other] - 1;
            for (long j = cursor[own]; j < cursor[own] + MAX_TAKEOVERS && out.size() < MAX_TAKEOVERS; j++) {
                Slot y = slotOrNull(own, j);
                if (y == null || !y.committed()) break;
                if (y.dep <= covered || config.nullDepElimination() && allNull(other, cursor[other], y.dep, y.depView)) continue;
                for (long k = covered + 1; k <= y.dep && out.size() < MAX_TAKEOVERS; k++) {
                    Slot s = slotOrNull(other, k);
                    if (s == null || !s.committed()) out.add(new long[] {other, k});
                }
                covered = y.dep;
            }
        } else {
            ownTo = Math.max(ownTo, cursor[own]);
            Slot y = slotOrNull(other, cursor[other]);
            if (y != null && y.committed()) ownTo = Math.max(ownTo, y.dep);
        }
        for (long k = cursor[own]; k <= ownTo && k <= highestSeen[own] && out.size() < MAX_TAKEOVERS; k++) {
            Slot s = slotOrNull(own, k);
            if ((s == null || !s.committed()) && !pilot.drives(k)) out.add(new long[] {own, k});
        }
        return out;
    }

    /** At most this many slots are taken over at once (the rest at the next check). */
    private static final int MAX_TAKEOVERS = 64;

    /** A replica whose execution made no progress for a whole tick asks its peers for the commits it lacks. */
    private void onCatchUpTick() {
        writeCommits();
        long a = cursor[0], b = cursor[1];
        boolean stuck = a == lastTickA && b == lastTickB;
        lastTickA = a;
        lastTickB = b;
        if (stuck) {
            for (int log = 0; log < 2; log++) {
                long head = cursor[log];
                Slot s = slotOrNull(log, head);
                if (head <= highestSeen[log] && (s == null || !s.committed())) {
                    sendToPeers(new CommitQuery(log, head, Math.min(highestSeen[log], head + 63)));
                }
            }
        }
        ctx.schedule(config.catchUpInterval().toNanos(), new CatchUpTick());
    }

    void noteProposal(List<Command> batch) {
        if (observed) proposals.addAll(batch);
    }

    /** A proposer sent a phase message to its peers (its own vote on it is durable by then). */
    void noteSent(int log, long slot, Ballot ballot, boolean accept, List<Command> cmds, long dep) {
        if (observed) proposalEvents.add(new ProposalEvent(log, slot, ballot, accept, cmds, dep));
    }

    long deliveredIndex() {
        return deliveredIndex;
    }

    boolean isPilot() {
        return pilot != null;
    }

    Map<String, Long> slownessWarningsByKind() {
        return detector == null ? Map.of() : detector.warningsByKind();
    }
}
