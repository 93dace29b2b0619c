package io.tandem.protocols.multipaxos;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.failslow.QuorumTracker;
import io.tandem.protocols.multipaxos.MultiPaxosConfig.ReadPath;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ClientReplies;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Heartbeat;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.MaxVotedSlot;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.MaxVotedSlotQuery;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Propose;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ProposeBatch;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ProposeRead;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ProposeRejected;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ReadAt;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Reply;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToFrontend;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The client-facing role: it turns the node's client requests into protocol messages and the
 * answers into client outcomes.
 *
 * <ul>
 *   <li>Commands go to the co-located leader (else the leader last named) as {@link Propose}; a
 *       proposer that is not the leader refuses before giving a slot. If the leader it names takes
 *       client requests itself, the client gets {@code Redirect(hint)} and follows it (as with Raft);
 *       otherwise (a compartmentalized deployment: leaders apart from frontends) the frontend sends
 *       the command to the named leader itself. A command that got a slot is never refused: its
 *       outcome is known only once executed (or the client times out).</li>
 *   <li>As a <b>batcher</b> (spec §2.6) it collects commands and sends them as one
 *       {@link ProposeBatch} once {@code batchMaxCommands} are in or {@code batchDelay} passed since
 *       the first, whichever comes first (the artifact's batcher had no timeout). Each command keeps
 *       its request id and session, so a lost batch is just lost commands the clients retry (B-1, B-2).</li>
 *   <li>Linearizable (and lease) reads use the Compartmentalization paper's read (spec §2.4): the
 *       reads that arrived are sealed into a round, one {@link MaxVotedSlotQuery} goes to the
 *       acceptors, and once a complete read quorum answered, every read of the round is handed to
 *       the local replica at {@code i = max} of the answers ({@link ReadAt}). A round is sent only
 *       after its reads arrived (LR-1), and one round is in flight at a time; reads arriving meanwhile
 *       share the next one (the paper's adaptive read batching). With
 *       {@link ReadPath#LOG} they are ordered through the log instead ({@link ProposeRead}).</li>
 *   <li>Stale reads go straight to the local replica at the client's minimum slot.</li>
 * </ul>
 */
class Frontend {
    sealed interface Timer extends TimerKey {}

    private record ReadRoundTimer() implements Timer {}

    private record BatchTimer() implements Timer {}

    /** Sends the commands parked while no leader was known to the next candidate (see {@link #park}). */
    private record ParkedTimer() implements Timer {}

    private static final Timer READ_ROUND = new ReadRoundTimer();
    private static final Timer BATCH = new BatchTimer();
    private static final Timer PARKED = new ParkedTimer();
    /** Commands a frontend holds while no leader is known; more are refused as before. */
    static final int PARK_LIMIT = 4096;
    /** Commands remembered after sending, so one a non-leader refused can go to the leader it names. */
    private static final int REMEMBERED_COMMANDS = 4096;
    /**
     * On a member without a replica a forgotten command can complete only when its client retries (its
     * ClientReplies find nothing to complete), so such a member remembers more: enough for every client
     * of a large closed loop.
     */
    private static final int REMEMBERED_COMMANDS_WITHOUT_REPLICA = 1 << 16;

    /** A sealed batch of reads waiting for one watermark query. */
    private static final class ReadRound {
        final long number;
        final List<Long> reads;
        final QuorumTracker quorum;
        final Map<NodeId, Long> sentAt = new TreeMap<>();
        long maxSlot;

        ReadRound(long number, List<Long> reads, QuorumTracker quorum) {
            this.number = number;
            this.reads = reads;
            this.quorum = quorum;
        }
    }

    private final RoleContext rc;
    private final MultiPaxosConfig config;
    private NodeId leader;
    /** The highest ballot whose leader's heartbeat this frontend followed. */
    private Ballot leaderBallot = Ballot.ZERO;
    private final NodeId replica;
    private final boolean batching;
    private final long batchDelayNanos;
    private final List<Propose> batch = new ArrayList<>();
    private boolean batchTimerArmed;
    private final LinkedHashMap<Long, Propose> sent = new LinkedHashMap<>();
    /** Whether a refused command may be sent on to the leader the refusal names (leaders apart from the frontends). */
    private final boolean forwardsRefused;
    private final Meters.Counter batches;
    private final long resendNanos;
    private final long readTimeoutNanos;
    private final Meters.Counter readRounds;
    private final Meters.Counter readQueryResends;
    private final Meters.Counter readQueryWidened;
    private final Meters.Counter unbatchedReplies;
    private long unbatchedReplyCount;

    /** Commands a proposer refused while no leader was known, waiting for one (see {@link #park}). */
    private final List<Propose> parked = new ArrayList<>();
    private final Meters.Counter parkedCommands;
    private final List<Long> waitingReads = new ArrayList<>();
    private ReadRound round;
    private long roundNumber;
    /** Which read quorum a round asks first ({@link QuorumSystem#readQuery}); moves on when one was slow. */
    private int readQuery;
    /** How long a round waits for the read quorum it asked before it asks every acceptor. */
    private final long thriftyNanos;
    private boolean failed;

    Frontend(RoleContext rc, boolean batching) {
        this.rc = rc;
        this.batching = batching;
        this.batchDelayNanos = rc.config.batchDelay().toNanos();
        this.batches = rc.meters().counter("tandem.multipaxos.batcher.batches");
        this.forwardsRefused = rc.topology.spreadsClients() || !rc.topology.clientMembers().containsAll(rc.topology.leaders());
        this.config = rc.config;
        // The classic deployment co-locates every role; a deployment without a local leader or replica
        // would name where this frontend's commands and reads go.
        this.leader = rc.topology.leaders().contains(rc.self) ? rc.self : rc.topology.leaders().getFirst();
        this.replica = rc.topology.replicas().contains(rc.self) ? rc.self : null;
        this.resendNanos = config.resendInterval().toNanos();
        this.readTimeoutNanos = config.readTimeout().toNanos();
        this.thriftyNanos = Math.max(1, resendNanos / 16);
        // Frontends start at different read quorums, so that their queries spread over the grid's rows.
        this.readQuery = Math.max(0, rc.topology.clientMembers().indexOf(rc.self));
        this.readRounds = rc.meters().counter("tandem.multipaxos.read.rounds");
        this.readQueryResends = rc.meters().counter("tandem.multipaxos.read.query_resends");
        this.readQueryWidened = rc.meters().counter("tandem.multipaxos.read.query_widened");
        this.unbatchedReplies = rc.meters().counter("tandem.multipaxos.frontend.unbatched_replies");
        this.parkedCommands = rc.meters().counter("tandem.multipaxos.frontend.parked");
    }

    void onClientRequest(ClientRequest r) {
        if (failed) {
            rc.engine.reject(r.requestId(), new Rejection.Unavailable("storage failed on " + rc.self));
            return;
        }
        switch (r.kind()) {
            case COMMAND -> onCommand(new Propose(r.requestId(), r.session(), r.payload()));
            case READ -> onRead(r);
        }
    }

    private void onCommand(Propose p) {
        remember(p);
        if (!batching) {
            sendCommand(leader, p);
            return;
        }
        batch.add(p);
        if (batch.size() >= config.batchMaxCommands()) flushBatch();
        else if (!batchTimerArmed) {
            batchTimerArmed = true;
            rc.schedule(batchDelayNanos, BATCH);
        }
    }

    /** Seals the batch and sends it to the leader as one message (spec §2.6). */
    private void flushBatch() {
        if (batchTimerArmed) {
            batchTimerArmed = false;
            rc.cancel(BATCH);
        }
        if (batch.isEmpty()) return;
        batches.increment();
        sendCommand(leader, new ProposeBatch(List.copyOf(batch), batch.getFirst().requestId()));
        batch.clear();
    }

    /** Read rounds whose first read quorum did not answer in time, so every acceptor was asked (tests read it). */
    long readQueriesWidened() {
        return readQueryWidened.count();
    }

    /** Replies to this member's commands that came from an unbatcher (tests read it). */
    long unbatchedReplies() {
        return unbatchedReplyCount;
    }

    private void remember(Propose p) {
        // Classic: the client follows the redirect itself, and replies come from this member's execution.
        if (!forwardsRefused && !rc.topology.hasUnbatchers()) return;
        sent.put(p.requestId(), p);
        if (sent.size() > (replica == null ? REMEMBERED_COMMANDS_WITHOUT_REPLICA : REMEMBERED_COMMANDS)) {
            Iterator<Long> it = sent.keySet().iterator();
            it.next();
            it.remove();
        }
    }

    private void onRead(ClientRequest r) {
        if (replica == null) {
            // Reads are answered by the execution of the node that received them (EngineContext.serveRead):
            // a batcher machine of its own (spec §2.6, unbatchers placed) sends its reader to the members
            // that take client requests and run a replica, or refuses if there are none.
            List<NodeId> readers = rc.topology.readingClientMembers();
            rc.engine.reject(r.requestId(), readers.isEmpty() ? new Rejection.Unavailable(rc.self + " runs no replica and cannot serve reads") : new Rejection.Redirect(readers));
            return;
        }
        switch (r.readPolicy()) {
            case ReadPolicy.Stale s -> rc.send(replica, new ReadAt(r.requestId(), s.minIndex(), readTimeoutNanos));
            case ReadPolicy.Linearizable l -> linearizableRead(r.requestId());
            case ReadPolicy.Lease l -> linearizableRead(r.requestId()); // no leases in this engine: the quorum read costs no leader work anyway
        }
    }

    void linearizableRead(long requestId) {
        if (config.linearizableReads() == ReadPath.LOG) {
            rc.send(leader, new ProposeRead(requestId));
            return;
        }
        int pending = waitingReads.size() + (round == null ? 0 : round.reads.size());
        if (pending >= config.maxPendingReads()) {
            rc.engine.reject(requestId, new Rejection.Overloaded(pending + " reads wait for a read quorum on " + rc.self));
            return;
        }
        if (round != null && !sealsReadRounds()) {
            round.reads.add(requestId); // joins a round whose query is already out: breaks LR-1 (tests only)
            return;
        }
        waitingReads.add(requestId);
        if (round == null) startRound();
    }

    /**
     * Seals the waiting reads into a round and asks one read quorum of acceptors (spec §2.4.1 step 1: a grid's row)
     * for their highest voted slot; if it has not answered within a sixteenth of the resend interval, every other
     * acceptor is asked too ({@link #onReadRoundTimer}) and the next rounds start at the next read quorum. Asking
     * every acceptor of a grid each round doubled (2 rows) the query messages a replica's member sends and receives
     * per round, its largest cost after executing and answering (model, 90 % reads, 24 replicas on a 2x4 grid: 8.8 %
     * of a replica's core, and half of every acceptor's). Safe: the round's slot still comes from a complete read
     * quorum (LR-2); which one answers is a matter of speed.
     */
    private void startRound() {
        long now = rc.now();
        round = new ReadRound(++roundNumber, new ArrayList<>(waitingReads), new QuorumTracker(rc.topology.quorums().members(), readQuorums(), now, now + readTimeoutNanos));
        waitingReads.clear();
        readRounds.increment();
        MaxVotedSlotQuery query = new MaxVotedSlotQuery(round.number, round.reads.getFirst());
        List<NodeId> ask = firstReadQuorum(readQuery);
        for (NodeId a : ask) {
            round.sentAt.put(a, now);
            rc.send(a, query);
        }
        rc.schedule(round.sentAt.size() < rc.topology.acceptors().size() ? thriftyNanos : resendNanos, READ_ROUND);
    }

    /** The acceptors a round asks first; overridable so tests can plant a frontend that asks a write quorum. */
    List<NodeId> firstReadQuorum(int k) {
        return rc.topology.quorums().readQuery(k);
    }

    void onMessage(NodeId from, ToFrontend m) {
        if (failed) return;
        switch (m) {
            case MaxVotedSlot s -> onMaxVotedSlot(from, s);
            case Heartbeat h -> onHeartbeat(from, h);
            case ProposeRejected r -> onProposeRejected(r);
            case ClientReplies r -> onClientReplies(r);
        }
    }

    /**
     * Spec §2.7: an unbatcher brings results another replica computed for commands this member took;
     * each completes its client's request (the runtime ignores a second completion, so whichever of
     * this reply and the member's own execution comes first answers). Only a command this frontend
     * sent, with the same session, is completed: a reply meant for an earlier life of this member,
     * whose request ids it no longer knows, is dropped.
     */
    private void onClientReplies(ClientReplies m) {
        for (Reply r : m.replies()) {
            Propose p = sent.get(r.requestId());
            if (p == null || p.session().clientId() != r.session().clientId() || p.session().sequence() != r.session().sequence()) continue;
            sent.remove(r.requestId());
            unbatchedReplies.increment();
            unbatchedReplyCount++;
            rc.engine.complete(r.requestId(), r.result());
        }
    }

    /**
     * The active leader announces itself: a frontend apart from the leaders sends its next commands
     * there (a crashed leader never refuses, so waiting for a refusal would stall every command).
     * A frontend co-located with a leader keeps proposing locally (the classic flow).
     */
    private void onHeartbeat(NodeId from, Heartbeat h) {
        if (!forwardsRefused || !rc.topology.leaders().contains(from) || h.ballot().lessThan(leaderBallot)) return;
        leaderBallot = h.ballot();
        leader = from;
        sendParked();
    }

    /** Whose answers fix a read round's index: a read quorum (a grid row; LR-2). A seam so tests can plant a wrong one. */
    io.tandem.protocols.failslow.QuorumRule readQuorums() {
        return rc.topology.quorums().readRule();
    }

    /** Reads are sealed into a round before its query goes out (LR-1). A seam so tests can plant a frontend that breaks it. */
    boolean sealsReadRounds() {
        return true;
    }

    /** Sends a command to the leader; a seam so tests can plant a frontend that resends. */
    void sendCommand(NodeId to, MultiPaxosMessage m) {
        rc.send(to, m);
    }

    /** PreReadAck (spec §2.4.1 step 3): a complete read quorum fixes i; every read of the round goes to the replica at i. */
    private void onMaxVotedSlot(NodeId from, MaxVotedSlot s) {
        ReadRound r = round;
        if (r == null || s.round() != r.number || r.quorum.hasAcked(from)) return;
        r.maxSlot = Math.max(r.maxSlot, s.slot());
        if (!r.quorum.ack(from, rc.now())) return;
        round = null;
        rc.cancel(READ_ROUND);
        for (long requestId : r.reads) rc.send(replica, new ReadAt(requestId, r.maxSlot, readTimeoutNanos));
        if (!waitingReads.isEmpty()) startRound();
    }

    /** Resends the query to acceptors that did not answer within an interval; a round that found no quorum in time fails its reads. */
    void onTimer(Timer t) {
        if (failed) return;
        switch (t) {
            case BatchTimer b -> {
                batchTimerArmed = false;
                flushBatch();
            }
            case ReadRoundTimer r -> onReadRoundTimer();
            case ParkedTimer p -> sendParked();
        }
    }

    /**
     * No leader is known (leaders apart from the frontends, and the proposer that refused named none, as
     * before the first election ends): the command waits here for a leader's heartbeat, or at most a
     * resend interval, and then goes to the next candidate, instead of going back to its client at once.
     * Refused at once, the clients' retries came straight back and were refused again: about 750,000
     * refusals in the first second of a simulated a3 deployment with 2,048 clients (a retry storm that
     * only burns CPU). A parked command has no slot, so sending it later changes nothing but its latency;
     * beyond {@link #PARK_LIMIT} commands they are refused as before.
     */
    private boolean park(Propose p) {
        if (parked.size() >= PARK_LIMIT) return false;
        parked.add(p);
        parkedCommands.increment();
        if (parked.size() == 1) rc.schedule(resendNanos, PARKED);
        return true;
    }

    private void sendParked() {
        if (parked.isEmpty()) return;
        rc.cancel(PARKED);
        List<Propose> all = List.copyOf(parked);
        parked.clear();
        for (Propose p : all) {
            remember(p);
            sendCommand(leader, p);
        }
    }

    private void onReadRoundTimer() {
        if (round == null) return;
        long now = rc.now();
        ReadRound r = round;
        if (r.quorum.isOverdue(now)) {
            round = null;
            for (long requestId : r.reads) rc.engine.reject(requestId, new Rejection.Unavailable("no read quorum of acceptors answered " + rc.self + " in time"));
            if (!waitingReads.isEmpty()) startRound();
            return;
        }
        MaxVotedSlotQuery query = new MaxVotedSlotQuery(r.number, r.reads.getFirst());
        boolean widened = false;
        for (NodeId a : rc.topology.acceptors()) {
            if (r.sentAt.containsKey(a)) continue;
            // The read quorum asked first is slow (or lost a message): every acceptor now, and the next rounds start elsewhere.
            r.sentAt.put(a, now);
            rc.send(a, query);
            widened = true;
        }
        if (widened) {
            readQuery++;
            readQueryWidened.increment();
        }
        for (Map.Entry<NodeId, Long> e : r.sentAt.entrySet()) {
            if (r.quorum.hasAcked(e.getKey()) || now - e.getValue() < resendNanos) continue;
            e.setValue(now);
            readQueryResends.increment();
            rc.send(e.getKey(), query);
        }
        rc.schedule(resendNanos, READ_ROUND);
    }

    /**
     * A proposer refused a command before giving it a slot. A hint that takes client requests itself
     * goes to the client (it follows the redirect); a hint apart from the frontends (leaders apart,
     * spec §2) becomes this frontend's leader, and the command goes there.
     */
    private void onProposeRejected(ProposeRejected r) {
        Propose p = sent.remove(r.requestId());
        if (r.overloaded()) {
            rc.engine.reject(r.requestId(), new Rejection.Overloaded(r.reason()));
            return;
        }
        NodeId hint = r.leaderHint();
        if (hint != null && (rc.topology.spreadsClients() || !rc.topology.clientMembers().contains(hint)) && rc.topology.leaders().contains(hint)) {
            leader = hint;
            if (p != null) {
                remember(p);
                rc.send(hint, p);
                return;
            }
        }
        if (hint == null && (rc.topology.spreadsClients() || !rc.topology.clientMembers().containsAll(rc.topology.leaders()))) {
            // Leaders apart from the frontends and none known: try the next one; the client retries.
            List<NodeId> leaders = rc.topology.leaders();
            leader = leaders.get((leaders.indexOf(leader) + 1) % leaders.size());
            if (p != null && park(p)) return;
            rc.engine.reject(r.requestId(), new Rejection.Unavailable("no leader known to " + rc.self + " yet"));
            return;
        }
        rc.engine.reject(r.requestId(), Rejection.Redirect.to(hint));
    }

    void onStorageFailed() {
        failed = true;
        List<Long> all = new ArrayList<>(waitingReads);
        if (round != null) all.addAll(round.reads);
        for (long requestId : all) rc.engine.reject(requestId, new Rejection.Unavailable("storage failed on " + rc.self));
        waitingReads.clear();
        round = null;
        for (Propose p : parked) rc.engine.reject(p.requestId(), new Rejection.Unavailable("storage failed on " + rc.self));
        parked.clear();
    }

    String describe() {
        return "frontend reads waiting=" + waitingReads.size() + (parked.isEmpty() ? "" : " parked=" + parked.size()) + (round == null ? "" : " round " + round.number + " " + round.quorum);
    }
}
