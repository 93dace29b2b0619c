package io.tandem.protocols.multipaxos;

import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Accept;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.CatchUpEntries;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.CatchUpRequest;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Chosen;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ChosenThrough;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Heartbeat;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ReadAt;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Recover;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ReplicaProgress;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Reply;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ReplyBatch;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.SnapshotChunk;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.SnapshotChunkRequest;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.SnapshotOffer;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToReplica;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.StorageEvent;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The replica (executor, spec §1.4, §2.3): it learns chosen values and hands them to execution
 * strictly in slot order through {@code deliver} (slot {@code s} is execution index {@code s}; a
 * command carries its origin, request id and session, so the origin completes the client's future and
 * the runtime's session table applies a retried command once). It serves reads at a slot once it
 * has executed that slot (spec §2.4.1 step 5), snapshots the state machine every
 * {@code snapshotThreshold} slots and keeps {@code logRetentionSlots} executed values behind the
 * snapshot for lagging peers.
 *
 * <p>Holes and lag (spec §2.9): a replica that knows of chosen slots it has not executed (from
 * {@link Chosen}, from the leader's {@link Heartbeat}, or from a read waiting on a slot) and made
 * no progress for {@code catchUpTimeout} asks a peer replica ({@link CatchUpRequest}: values, or a
 * {@link SnapshotOffer} if the peer compacted them) and the leader ({@link Recover}), at most once per
 * timeout; an answer that brings progress is followed up at once. A snapshot is pulled chunk by
 * chunk; execution pauses until it is installed, so it never goes backwards.
 *
 * <p>On an acceptor's node (session 21) the replica also reads every {@link Accept} the node receives and holds its
 * proposals ({@link HeldProposals}); the leader's chosen claim, riding on its next Accept to the node or alone in a
 * {@link ChosenThrough} when the leader is idle, makes them chosen, so the values are not sent twice.
 */
class Replica {
    sealed interface Timer extends TimerKey {}

    private record TickTimer() implements Timer {}

    /** Zero-delay: the results gathered in this drain of events leave as one {@code ReplyBatch}. */
    private record ReplyFlushTimer() implements Timer {}

    private static final Timer TICK = new TickTimer();
    private static final Timer REPLY_FLUSH = new ReplyFlushTimer();
    private static final int MAX_CHUNK_READS = 8;
    private static final int MAX_CHUNK_ATTEMPTS = 4;
    /**
     * While a peer is pulling our newest snapshot, the next one waits until this many further
     * snapshot thresholds of slots executed (see {@link #maybeTakeSnapshot}).
     */
    static final int MAX_HELD_THRESHOLDS = 4;

    private record ParkedRead(long requestId, long deadline) {}

    /** A snapshot being pulled from a peer. */
    private static final class Receiving {
        final SnapshotMeta meta;
        final NodeId from;
        long expectedOffset;
        boolean writeInFlight;
        long writeToken;
        int writeLength;
        boolean installing;
        long requestedAt;
        int attempts;

        Receiving(SnapshotMeta meta, NodeId from) {
            this.meta = meta;
            this.from = from;
        }
    }

    private final RoleContext rc;
    private final MultiPaxosConfig config;
    private final List<NodeId> peers;
    private final long catchUpNanos;
    private final ExecutionHistory history;
    private final Meters.Counter catchUpRequests;
    private final Meters.Counter snapshotsInstalled;
    private final Meters.Counter chunkResends;
    private final Meters.Gauge executedGauge;

    private long executed;
    private long appliedIndex;
    private long lastSnapshotSlot;
    private boolean snapshotInProgress;
    private long snapshotToken;
    private final TreeMap<Long, Value> chosen = new TreeMap<>();
    /** Proposals seen in the node's Phase 2a messages and the leader's chosen claim (session 21). */
    private final HeldProposals held;
    private final ExecutedValues retained = new ExecutedValues();
    private long knownChosenThrough;
    private long neededThrough;
    private NodeId leaderHint;
    private final TreeMap<Long, List<ParkedRead>> parked = new TreeMap<>();
    private int parkedCount;
    private long readsParked;
    private long lastProgressAt;
    private long lastCatchUpAt = Long.MIN_VALUE / 2;
    private int catchUpCursor;
    private Receiving receiving;
    private final Map<Long, NodeId> chunkReads = new TreeMap<>();
    /** When a peer last asked for a chunk of our newest snapshot: a transfer of it is under way. */
    private long lastChunkServedAt = Long.MIN_VALUE / 2;
    private final long transferIdleNanos;
    private boolean failed;
    /** Results of the slots this replica answers for, waiting for the next {@code ReplyBatch} (spec §2.7). */
    private final List<Reply> replies = new ArrayList<>();
    private int nextUnbatcher;
    private final Meters.Counter replyBatches;

    Replica(RoleContext rc, boolean recordHistory) {
        this.rc = rc;
        this.config = rc.config;
        this.peers = rc.topology.replicas().stream().filter(n -> !n.equals(rc.self)).toList();
        this.catchUpNanos = config.catchUpTimeout().toNanos();
        // A puller asks for its next chunk at once, or resends after a catch-up timeout (checked once
        // per tick); twice that without a request means the transfer ended or was given up.
        this.transferIdleNanos = 2 * (catchUpNanos + config.heartbeatInterval().toNanos());
        this.history = recordHistory ? new ExecutionHistory() : null;
        // Four windows: the slots a leader has outstanding, and room for a replica that runs a few windows behind.
        this.held = new HeldProposals(Math.max(1024, 4 * config.windowSlots()));
        Meters meters = rc.meters();
        this.catchUpRequests = meters.counter("tandem.multipaxos.replica.catch_up_requests");
        this.snapshotsInstalled = meters.counter("tandem.multipaxos.replica.snapshots_installed");
        this.chunkResends = meters.counter("tandem.multipaxos.replica.snapshot_chunk_resends");
        this.executedGauge = meters.gauge("tandem.multipaxos.replica.executed");
        this.replyBatches = meters.counter("tandem.multipaxos.replica.reply_batches");
        this.nextUnbatcher = rc.topology.unbatchers().isEmpty() ? 0 : Math.floorMod(rc.topology.replicas().indexOf(rc.self), rc.topology.unbatchers().size());
    }

    /** Execution resumes from the newest local snapshot (the runtime restored the state machine from it). */
    void start() {
        long base = rc.engine.snapshots().latest().map(SnapshotMeta::lastIncludedIndex).orElse(0L);
        executed = base;
        appliedIndex = base;
        lastSnapshotSlot = base;
        knownChosenThrough = base;
        lastProgressAt = rc.now();
        catchUpCursor = peers.isEmpty() ? 0 : rc.random().nextInt(peers.size());
        reportProgress();
        rc.schedule(config.heartbeatInterval().toNanos(), TICK);
    }

    // ------------------------------------------------------------------------------------------
    // Dispatch
    // ------------------------------------------------------------------------------------------

    void onMessage(NodeId from, ToReplica m) {
        if (failed) return;
        switch (m) {
            case Chosen c -> onChosen(c);
            case Accept a -> onAccept(a);
            case ChosenThrough c -> onClaim(c.ballot(), c.chosenThrough());
            case Heartbeat h -> onHeartbeat(from, h);
            case ReadAt r -> onReadAt(r);
            case CatchUpRequest r -> onCatchUpRequest(from, r);
            case CatchUpEntries e -> onCatchUpEntries(from, e);
            case SnapshotOffer o -> onSnapshotOffer(from, o);
            case SnapshotChunkRequest r -> onSnapshotChunkRequest(from, r);
            case SnapshotChunk c -> onSnapshotChunk(c);
        }
    }

    void onTimer(Timer t) {
        if (failed) return;
        switch (t) {
            case TickTimer tick -> onTick();
            case ReplyFlushTimer flush -> flushReplies();
        }
    }

    void onStorageEvent(StorageEvent event) {
        switch (event) {
            case StorageEvent.SnapshotTaken s -> onSnapshotTaken(s);
            case StorageEvent.SnapshotChunkRead s -> onSnapshotChunkRead(s);
            case StorageEvent.SnapshotChunkWritten s -> onSnapshotChunkWritten(s);
            case StorageEvent.SnapshotInstalled s -> onSnapshotInstalled(s);
            case StorageEvent.SnapshotFailed s -> onSnapshotFailed(s);
            case StorageEvent.StorageFailed s -> onStorageFailed();
            default -> { }
        }
    }

    void onApplied(long index) {
        appliedIndex = Math.max(appliedIndex, index);
        maybeTakeSnapshot();
    }

    // ------------------------------------------------------------------------------------------
    // Learning and executing (spec §1.4 step 5)
    // ------------------------------------------------------------------------------------------

    private void onChosen(Chosen c) {
        knownChosenThrough = Math.max(knownChosenThrough, c.lastSlot());
        learn(c.firstSlot(), c.values());
    }

    /** A Phase 2a to this node's acceptor: hold its proposals, and take the chosen claim it carries. */
    private void onAccept(Accept a) {
        held.hold(a.ballot(), a.firstSlot(), a.values(), executed);
        onClaim(a.ballot(), claimedThrough(a));
    }

    /**
     * What an Accept claims chosen: its {@code chosenThrough}, the leader's in-ballot watermark. A seam so tests
     * can plant a replica that takes more than the leader knows chosen.
     */
    long claimedThrough(Accept a) {
        return a.chosenThrough();
    }

    /**
     * A leader's claim that its proposals in {@code ballot} up to {@code through} are chosen: every slot up to there
     * is chosen (those below the ballot's first were chosen before it), and held values of that ballot execute.
     */
    private void onClaim(Ballot ballot, long through) {
        if (held.claim(ballot, through)) knownChosenThrough = Math.max(knownChosenThrough, through);
        executeReady();
    }

    /** The leader's heartbeat: every slot up to its chosen prefix exists, and it is who to ask for repairs. */
    private void onHeartbeat(NodeId from, Heartbeat h) {
        knownChosenThrough = Math.max(knownChosenThrough, h.chosenThrough());
        leaderHint = from;
    }

    /**
     * Takes chosen values in. The usual case, values that continue the executed prefix while nothing else
     * waits, is executed at once without passing through {@code chosen} (session 17: a tree insertion and
     * removal per slot on every replica); the order and the values executed are the same as through the
     * map, since a slot is executed only when it is {@code executed + 1} either way and {@code chosen}
     * holds nothing that could come first.
     */
    private void learn(long firstSlot, List<Value> values) {
        boolean progressed = false;
        for (int k = 0; k < values.size(); k++) {
            long slot = firstSlot + k;
            if (slot <= executed) continue;
            if (slot == executed + 1 && receiving == null && chosen.isEmpty()) {
                execute(values.get(k));
                progressed = true;
            } else {
                chosen.putIfAbsent(slot, values.get(k));
            }
        }
        executeReady(progressed);
    }

    private void executeReady() {
        executeReady(false);
    }

    /** Executes the chosen prefix; paused while a snapshot is being received (it will replace the state). */
    private void executeReady(boolean progressed) {
        if (receiving != null) return;
        Value v;
        while ((v = nextChosen()) != null) {
            execute(v);
            progressed = true;
        }
        if (progressed) {
            lastProgressAt = rc.now();
            executedGauge.set(executed);
            serveParkedReads();
        }
    }

    /** The chosen value of slot {@code executed + 1} if known: from a {@code Chosen} or catch-up, else a held proposal a claim covers. */
    private Value nextChosen() {
        long slot = executed + 1;
        Value v = chosen.isEmpty() ? null : chosen.remove(slot);
        return v != null ? v : held.chosen(slot);
    }

    /** Executes slot {@code executed + 1}, which holds {@code v}. */
    private void execute(Value v) {
        long slot = ++executed;
        held.forget(slot);
        if (reportsResult(v, slot)) rc.engine.deliverReportingResult(committed(v, slot));
        else rc.engine.deliver(committed(v, slot));
        if (history != null) history.record(slot, ValueCodec.digest(v), origin(v), v.requestId());
        retained.append(slot, v);
        if (v instanceof Value.LogRead r && r.origin().equals(rc.self)) rc.engine.serveRead(r.requestId(), slot);
    }

    // ------------------------------------------------------------------------------------------
    // Replies through unbatchers (spec §2.7)
    // ------------------------------------------------------------------------------------------

    /**
     * With unbatchers, replica {@code slot mod R} answers for the commands of {@code slot} (R-4), except
     * those its own member took: the runtime completes these here anyway. Every replica executes every
     * command, so the result is the same whichever replica sends it, and it exists only once the
     * command was chosen and executed: a reply from here is as good as the origin's own.
     */
    private boolean reportsResult(Value v, long slot) {
        return rc.topology.hasUnbatchers() && v instanceof Value.Command c && !c.origin().equals(rc.self) && rc.topology.answersFor(rc.self, slot);
    }

    /** Execution ran a command this replica answers for: its result joins the next batch for an unbatcher. */
    void onExecuted(io.tandem.engine.Committed entry, byte[] result) {
        if (failed || entry.origin() == null) return;
        if (replies.isEmpty()) rc.schedule(0, REPLY_FLUSH);
        replies.add(new Reply(entry.origin(), entry.requestId(), entry.session(), entry.index(), result));
        if (replies.size() >= config.maxBatchSlots()) flushReplies();
    }

    /**
     * One {@code ReplyBatch} to the next unbatcher, round-robin. Replies are soft state (B-1): a lost
     * batch or a crashed unbatcher only means the origin answers from its own execution, or the
     * client retries and the session table answers.
     */
    private void flushReplies() {
        if (replies.isEmpty()) return;
        rc.cancel(REPLY_FLUSH);
        List<NodeId> unbatchers = rc.topology.unbatchers();
        NodeId to = unbatchers.get(nextUnbatcher++ % unbatchers.size());
        rc.send(to, new ReplyBatch(List.copyOf(replies), replies.getFirst().requestId()));
        replyBatches.increment();
        replies.clear();
    }

    private static String origin(Value v) {
        return switch (v) {
            case Value.Command c -> c.origin().value();
            case Value.LogRead r -> r.origin().value();
            case Value.Noop n -> null;
        };
    }

    // ------------------------------------------------------------------------------------------
    // Reads (spec §2.4.1 step 5)
    // ------------------------------------------------------------------------------------------

    /** Serves the read once slot {@code slot} is executed (execution then answers after applying it); parks it until then. */
    private void onReadAt(ReadAt r) {
        long slot = readSlot(r.slot());
        if (slot <= executed) {
            rc.engine.serveRead(r.requestId(), slot);
            return;
        }
        readsParked++;
        if (parkedCount >= config.maxPendingReads()) {
            rc.engine.reject(r.requestId(), new Rejection.Overloaded(parkedCount + " reads wait for slots to execute on " + rc.self));
            return;
        }
        parked.computeIfAbsent(slot, s -> new ArrayList<>()).add(new ParkedRead(r.requestId(), rc.now() + r.timeoutNanos()));
        parkedCount++;
        neededThrough = Math.max(neededThrough, slot);
    }

    /**
     * The slot a read at index {@code i} must wait for: {@code i} itself (LR-4: executed, not merely
     * chosen, and not {@code i - 1}). A seam so tests can plant a replica that breaks it.
     */
    long readSlot(long i) {
        return i;
    }

    /**
     * The entry handed to execution for slot {@code slot}: the command with its session, so the
     * session table applies a command chosen in two slots once (spec R-3). A seam so tests can plant a
     * replica without it.
     */
    io.tandem.engine.Committed committed(Value v, long slot) {
        return v.toCommitted(slot);
    }

    private void serveParkedReads() {
        while (!parked.isEmpty() && parked.firstKey() <= executed) {
            Map.Entry<Long, List<ParkedRead>> e = parked.pollFirstEntry();
            for (ParkedRead r : e.getValue()) rc.engine.serveRead(r.requestId(), e.getKey());
            parkedCount -= e.getValue().size();
        }
    }

    private void expireParkedReads(long now) {
        for (Iterator<Map.Entry<Long, List<ParkedRead>>> it = parked.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, List<ParkedRead>> e = it.next();
            for (Iterator<ParkedRead> r = e.getValue().iterator(); r.hasNext(); ) {
                ParkedRead read = r.next();
                if (now - read.deadline() < 0) continue;
                r.remove();
                parkedCount--;
                rc.engine.reject(read.requestId(), new Rejection.Unavailable(rc.self + " did not execute slot " + e.getKey() + " in time for the read"));
            }
            if (e.getValue().isEmpty()) it.remove();
        }
    }

    // ------------------------------------------------------------------------------------------
    // Progress, holes and catch-up (spec §2.9)
    // ------------------------------------------------------------------------------------------

    private void onTick() {
        long now = rc.now();
        reportProgress();
        expireParkedReads(now);
        maybeCatchUp(now);
        checkSnapshotTransfer(now);
        maybeTakeSnapshot(); // one held back for a transfer (maybeTakeSnapshot) is due once it ended
        rc.schedule(config.heartbeatInterval().toNanos(), TICK);
    }

    private void reportProgress() {
        ReplicaProgress p = new ReplicaProgress(executed, lastSnapshotSlot);
        for (NodeId n : rc.topology.progressAudience()) rc.send(n, p);
    }

    private long catchUpTarget() {
        long target = Math.max(knownChosenThrough, neededThrough);
        return chosen.isEmpty() ? target : Math.max(target, chosen.lastKey());
    }

    /** At most once per timeout, and only after a timeout without progress: ask a peer and the leader. */
    private void maybeCatchUp(long now) {
        long target = catchUpTarget();
        if (receiving != null || executed >= target || now - lastProgressAt < catchUpNanos || now - lastCatchUpAt < catchUpNanos) return;
        lastCatchUpAt = now;
        catchUpRequests.increment();
        if (!peers.isEmpty()) rc.send(peers.get(catchUpCursor++ % peers.size()), new CatchUpRequest(executed + 1));
        if (leaderHint != null) rc.send(leaderHint, new Recover(executed + 1, target));
    }

    /** A peer asks for chosen values: from our retained log, or our snapshot if we compacted them. */
    private void onCatchUpRequest(NodeId from, CatchUpRequest r) {
        long retainedFirst = retained.isEmpty() ? executed + 1 : retained.firstSlot();
        if (r.fromSlot() > executed || r.fromSlot() >= retainedFirst) {
            List<Value> values = new ArrayList<>();
            int bytes = 0;
            for (long s = r.fromSlot(); s <= executed && values.size() < config.maxBatchSlots(); s++) {
                Value v = retained.get(s);
                if (v == null || (!values.isEmpty() && bytes + v.weight() > config.maxBatchBytes())) break;
                values.add(v);
                bytes += v.weight();
            }
            rc.send(from, new CatchUpEntries(r.fromSlot(), values, executed));
            return;
        }
        Optional<SnapshotMeta> latest = rc.engine.snapshots().latest();
        if (latest.isPresent() && latest.get().lastIncludedIndex() >= r.fromSlot()) rc.send(from, new SnapshotOffer(latest.get()));
    }

    private void onCatchUpEntries(NodeId from, CatchUpEntries e) {
        long before = executed;
        knownChosenThrough = Math.max(knownChosenThrough, e.executedSlot());
        learn(e.firstSlot(), e.values());
        // A useful answer is followed up at once: that is a pull, not a resend. Useful: it brought
        // progress, or it held every slot it was asked for and they are executed here now. The leader's
        // answer to the Recover sent with the request often lands first (the leader is one hop away
        // and may share the node), and judging by "this answer moved execution" then stopped the pull
        // after one batch per catch-up timeout: a replica cut off from pushes under load never caught
        // up (seed 77 of the mix with maxReplicaLagSlots == windowSlots == 2, batches of 1).
        boolean useful = executed > before || (!e.values().isEmpty() && executed >= e.firstSlot() + e.values().size() - 1);
        if (useful && executed < catchUpTarget() && receiving == null) rc.send(from, new CatchUpRequest(executed + 1));
    }

    // ------------------------------------------------------------------------------------------
    // Snapshots: taking them, and moving them between replicas
    // ------------------------------------------------------------------------------------------

    /**
     * Snapshots every {@code snapshotThreshold} slots, except while a peer is pulling our newest
     * snapshot: the store keeps only the newest, so taking the next one would cut that transfer off and
     * the puller would start over from the new one. When a transfer takes longer than a snapshot period
     * (small thresholds, small chunks, slow disks) that repeats forever and the puller never installs
     * anything (issue 16: seeds 1388, 1760, 2031 and 2190 of the mix, 43 snapshots offered to n3 and
     * none installed). So the next snapshot waits while the transfer is active, for at most
     * {@link #MAX_HELD_THRESHOLDS} more thresholds of slots, which bounds what waiting costs.
     *
     * <p>Safe because when a replica snapshots is never a safety matter: until it does it keeps the
     * executed values in {@code retained} (more memory, and those slots stay available to a lagging
     * peer), and acceptors garbage-collect votes only up to the snapshot points replicas report
     * ({@link ReplicaProgress}), so a later snapshot only delays that collection; nothing is forgotten
     * that a snapshot does not cover.
     */
    private void maybeTakeSnapshot() {
        if (snapshotInProgress || receiving != null) return;
        long since = appliedIndex - lastSnapshotSlot;
        if (since < config.snapshotThreshold()) return;
        boolean peerPulling = rc.now() - lastChunkServedAt < transferIdleNanos;
        if (peerPulling && since < config.snapshotThreshold() * (1 + MAX_HELD_THRESHOLDS)) return;
        snapshotInProgress = true;
        snapshotToken = rc.nextToken();
        rc.engine.takeSnapshot(snapshotToken);
    }

    private void onSnapshotTaken(StorageEvent.SnapshotTaken s) {
        if (s.token() == snapshotToken) snapshotInProgress = false;
        lastSnapshotSlot = Math.max(lastSnapshotSlot, s.snapshot().lastIncludedIndex());
        retained.dropThrough(lastSnapshotSlot - config.logRetentionSlots());
        reportProgress();
    }

    private void onSnapshotOffer(NodeId from, SnapshotOffer o) {
        Receiving r = receiving;
        if (r != null && r.from.equals(from) && !r.writeInFlight && !r.installing && o.snapshot().lastIncludedIndex() > r.meta.lastIncludedIndex()) {
            // Our source answered a chunk request with its newer snapshot: it no longer has the one we
            // were pulling, so every resend of that request would be answered the same way. Start over
            // from the newer one now instead of after the resends run out (the store drops a partial
            // transfer when a new one starts at offset 0; no chunk write of ours is in flight).
            receiving = null;
        }
        if (receiving != null || snapshotInProgress || o.snapshot().lastIncludedIndex() <= executed) return;
        receiving = new Receiving(o.snapshot(), from);
        requestChunk();
    }

    private void requestChunk() {
        receiving.requestedAt = rc.now();
        rc.send(receiving.from, new SnapshotChunkRequest(receiving.meta, receiving.expectedOffset));
    }

    /** Sender side: one chunk per request, read off the loop by the storage; a replaced snapshot is offered anew. */
    private void onSnapshotChunkRequest(NodeId from, SnapshotChunkRequest r) {
        Optional<SnapshotMeta> latest = rc.engine.snapshots().latest();
        if (latest.isEmpty()) return;
        if (!sameSnapshot(latest.get(), r.snapshot())) {
            rc.send(from, new SnapshotOffer(latest.get()));
            return;
        }
        lastChunkServedAt = rc.now(); // holds our next snapshot back for a while (maybeTakeSnapshot)
        if (chunkReads.size() >= MAX_CHUNK_READS) return; // the requester asks again after a timeout
        long token = rc.nextToken();
        chunkReads.put(token, from);
        rc.engine.snapshots().readChunk(latest.get(), r.offset(), config.snapshotChunkBytes(), token);
    }

    private void onSnapshotChunkRead(StorageEvent.SnapshotChunkRead s) {
        NodeId to = chunkReads.remove(s.token());
        if (to != null) rc.send(to, new SnapshotChunk(s.snapshot(), s.offset(), s.data(), s.last()));
    }

    private void onSnapshotChunk(SnapshotChunk c) {
        Receiving r = receiving;
        if (r == null || !sameSnapshot(r.meta, c.snapshot()) || r.writeInFlight || r.installing || c.offset() != r.expectedOffset) return;
        r.writeInFlight = true;
        r.writeToken = rc.nextToken();
        r.writeLength = c.data().length;
        r.attempts = 0;
        rc.engine.snapshots().writeChunk(c.snapshot(), c.offset(), c.data(), c.last(), r.writeToken);
    }

    private void onSnapshotChunkWritten(StorageEvent.SnapshotChunkWritten s) {
        Receiving r = receiving;
        if (r == null || s.token() != r.writeToken) return;
        r.writeInFlight = false;
        r.expectedOffset = s.offset() + r.writeLength;
        if (s.last()) r.installing = true;
        else requestChunk();
    }

    /** The state machine now reflects the snapshot: execution continues after it. */
    private void onSnapshotInstalled(StorageEvent.SnapshotInstalled s) {
        Receiving r = receiving;
        if (r == null || !sameSnapshot(r.meta, s.snapshot())) return;
        receiving = null;
        long index = s.snapshot().lastIncludedIndex();
        snapshotsInstalled.increment();
        executed = Math.max(executed, index);
        appliedIndex = Math.max(appliedIndex, index);
        lastSnapshotSlot = Math.max(lastSnapshotSlot, index);
        knownChosenThrough = Math.max(knownChosenThrough, index);
        chosen.headMap(index, true).clear();
        retained.clear();
        lastProgressAt = rc.now();
        executedGauge.set(executed);
        executeReady();
        serveParkedReads();
        reportProgress();
    }

    private void onSnapshotFailed(StorageEvent.SnapshotFailed s) {
        if (s.token() == snapshotToken) snapshotInProgress = false;
        if (receiving != null && s.token() == receiving.writeToken) {
            receiving = null; // the next catch-up starts over from the peer's newest snapshot
            executeReady();
        }
        NodeId requester = chunkReads.remove(s.token());
        if (requester != null) rc.engine.snapshots().latest().ifPresent(m -> rc.send(requester, new SnapshotOffer(m)));
    }

    /** A transfer that stopped answering is asked again once per timeout, then abandoned. */
    private void checkSnapshotTransfer(long now) {
        Receiving r = receiving;
        if (r == null || r.writeInFlight || r.installing || now - r.requestedAt < catchUpNanos) return;
        if (++r.attempts > MAX_CHUNK_ATTEMPTS) {
            receiving = null;
            executeReady();
            return;
        }
        chunkResends.increment();
        requestChunk();
    }

    static boolean sameSnapshot(SnapshotMeta a, SnapshotMeta b) {
        return a != null && b != null && a.lastIncludedIndex() == b.lastIncludedIndex() && a.lastIncludedTerm() == b.lastIncludedTerm()
                && a.sizeBytes() == b.sizeBytes() && a.crc32c() == b.crc32c();
    }

    private void onStorageFailed() {
        failed = true;
        for (List<ParkedRead> reads : parked.values()) {
            for (ParkedRead r : reads) rc.engine.reject(r.requestId(), new Rejection.Unavailable("storage failed on " + rc.self));
        }
        parked.clear();
        parkedCount = 0;
    }

    // ------------------------------------------------------------------------------------------
    // Read-only views (tests and simulator invariants)
    // ------------------------------------------------------------------------------------------

    long executed() {
        return executed;
    }

    /** Reads that arrived before their slot executed and waited for it (spec §2.4.1 step 5). */
    long readsParked() {
        return readsParked;
    }

    /** The leader whose heartbeat this replica heard last, or null. */
    NodeId leaderHint() {
        return leaderHint;
    }

    /** Every slot up to this one is known chosen. */
    long knownChosenThrough() {
        return knownChosenThrough;
    }

    long lastSnapshotSlot() {
        return lastSnapshotSlot;
    }

    /** Null unless the protocol's invariants asked for it. */
    ExecutionHistory history() {
        return history;
    }

    String describe() {
        return "replica executed=" + executed + " applied=" + appliedIndex + " snapshot=" + lastSnapshotSlot + " known=" + knownChosenThrough
                + " buffered=" + chosen.size() + " parked=" + parkedCount + (receiving != null ? " receiving@" + receiving.meta.lastIncludedIndex() : "");
    }
}
