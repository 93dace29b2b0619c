package io.tandem.protocols.copilot;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.copilot.CopilotMessage.Accept;
import io.tandem.protocols.copilot.CopilotMessage.AcceptReply;
import io.tandem.protocols.copilot.CopilotMessage.FastAccept;
import io.tandem.protocols.copilot.CopilotMessage.FastAcceptReply;
import io.tandem.protocols.failslow.PeerLink;
import io.tandem.protocols.failslow.QuorumRule;
import io.tandem.protocols.failslow.QuorumTracker;
import io.tandem.protocols.failslow.SlownessDetector;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ordering role of a pilot for its own log (§3.3, §3.5, §4.1): it batches client commands, closes a
 * batch when it holds the ping-pong ball or its wait expired, proposes it with FastAccept at the slot's
 * initial ballot with the latest other-log slot it has seen as dependency, commits on the fast path at
 * a fast quorum of agreements, and otherwise runs the Accept phase with the (f+1)-th smallest
 * suggested dependency. Waits are quorums of the shared fail-slow toolkit, never one peer.
 */
final class Pilot {
    record PingPongWait() implements TimerKey {}

    record FastPathWait(long slot) implements TimerKey {}

    record Resend(long slot) implements TimerKey {}

    /** {@link CopilotConfig#commitPiggybackWait}: the held Commits go out on their own. */
    record CommitFlush() implements TimerKey {}

    private enum Phase { FAST, ACCEPT }

    /** Leader bookkeeping of one own slot in flight (§2.2). */
    private final class Proposal {
        final long slot;
        final List<Command> cmds;
        final long initialDep;
        final long proposedAt;
        Phase phase = Phase.FAST;
        /** The dependency each member answered with (agreement = the initial one), the pilot's own included. */
        final Map<NodeId, Long> answers = new LinkedHashMap<>();
        final QuorumTracker agreements;
        QuorumTracker accepts;
        long finalDep;
        boolean fastWaitOver;
        /** The highest view of the other log any answer reported ({@link CopilotMessage.Commit#depView}). */
        int fastDepView = -1, acceptDepView = -1;

        Proposal(long slot, List<Command> cmds, long initialDep, long now) {
            this.slot = slot;
            this.cmds = cmds;
            this.initialDep = initialDep;
            this.proposedAt = now;
            this.agreements = QuorumTracker.kOfN(engine.members, engine.rules.fastQuorum(engine.n), now, QuorumTracker.NO_DEADLINE);
        }
    }

    private final CopilotEngine engine;
    final int log;
    final Ballot initial;
    private final ArrayDeque<Command> queue = new ArrayDeque<>();
    /**
     * Commits of own slots held back from the non-pilot replicas ({@link CopilotConfig#commitPiggyback}), oldest first:
     * they ride in the next FastAccept, or go out as plain Commits when {@link CommitFlush} fires.
     */
    private final List<CopilotMessage.Commit> heldCommits = new ArrayList<>();
    private boolean flushArmed;
    private final Map<Long, Proposal> inflight = new HashMap<>();
    private final Map<NodeId, PeerLink> links = new LinkedHashMap<>();
    private final SlownessDetector detector;
    private long nextSlot;
    /**
     * The first slot this incarnation proposed fresh commands at: every own slot below it that is not
     * committed was left by an older view or by this member before a restart, and only a takeover
     * finishes it ({@link CopilotEngine#blockers}).
     */
    private long firstSlot;
    private boolean ball;
    /** The other log's highest slot that passed the ball here. */
    private long ballSlot = -1;
    private long lastBatchAt;
    /** When the oldest command now queued arrived (or was queued again). */
    private long queuedSince;
    private boolean pingPongArmed;
    /**
     * Batches proposed in a row on the expired wait, with no ball between them that answered one of
     * them (§4.1's "slow pilot" case): from {@link #SOLO_AFTER} on, the other pilot is taken to lag and
     * this pilot stops waiting ({@link #lagging}).
     */
    private int expiredWaits;
    /**
     * FastAccepts of the other pilot in a row that did not answer this pilot's latest proposal (their
     * dependency misses it): from {@link #SOLO_AFTER} on, this pilot is the one left behind ({@link #outpaced}).
     */
    private int concurrentBalls;
    private long fastCommits, slowCommits;
    /** Commits of own slots by path, and proposals given up to a higher ballot: where a real run's time goes. */
    private final io.tandem.engine.Meters.Counter fastMeter, slowMeter, abandonedMeter;
    /**
     * Why the path went as it did, counted (not timed) so that a real run can say why slots go slow:
     * what closed each batch (the ball or the expired wait), what each ball from the other pilot was
     * (an answer to our latest proposal, or a proposal made concurrently with it; the early Ball
     * taken or ignored; one arriving while we already held the ball), and what sent a slot to the
     * Accept phase (an answer that disagreed, or too few answers within the fast-path wait).
     */
    private final io.tandem.engine.Meters.Counter proposedWithBall, proposedOnWait, proposedNoPingPong;
    private final io.tandem.engine.Meters.Counter ballAnswers, ballConcurrent, ballWhileHeld, earlyTaken, earlyIgnored;
    private final io.tandem.engine.Meters.Counter slowDisagreed, slowTooFew;
    /**
     * Where a healthy command's time goes at its pilot (per batch, so nothing is added per command): how long the
     * batch's oldest command waited in the queue for the ball, and how long the slot took from proposal to commit.
     */
    private final io.tandem.engine.Meters.Distribution batchWait, commitTime;

    static final SlownessDetector.Vocabulary VOCABULARY = new SlownessDetector.Vocabulary(
            "tandem.copilot.peer", "tandem.copilot.commit", "tandem.copilot.peer", "slots", "committed slots", "answered");

    Pilot(CopilotEngine engine, int log, Ballot initial, SlownessDetector detector) {
        this.engine = engine;
        this.log = log;
        this.initial = initial;
        this.detector = detector;
        this.fastMeter = engine.ctx.meters().counter("tandem.copilot.commits", "path", "fast");
        this.slowMeter = engine.ctx.meters().counter("tandem.copilot.commits", "path", "slow");
        this.abandonedMeter = engine.ctx.meters().counter("tandem.copilot.abandoned");
        io.tandem.engine.Meters m = engine.ctx.meters();
        this.proposedWithBall = m.counter("tandem.copilot.proposals", "trigger", "ball");
        this.proposedOnWait = m.counter("tandem.copilot.proposals", "trigger", "wait");
        this.proposedNoPingPong = m.counter("tandem.copilot.proposals", "trigger", "no-ping-pong");
        this.ballAnswers = m.counter("tandem.copilot.balls", "kind", "answers-latest");
        this.ballConcurrent = m.counter("tandem.copilot.balls", "kind", "concurrent");
        this.ballWhileHeld = m.counter("tandem.copilot.balls", "kind", "while-held");
        this.earlyTaken = m.counter("tandem.copilot.balls", "kind", "early-taken");
        this.earlyIgnored = m.counter("tandem.copilot.balls", "kind", "early-ignored");
        this.slowDisagreed = m.counter("tandem.copilot.slow_path", "reason", "disagreed");
        this.slowTooFew = m.counter("tandem.copilot.slow_path", "reason", "too-few-answers");
        this.batchWait = m.distribution("tandem.copilot.batch_wait_ns", "command", "oldest");
        this.commitTime = m.distribution("tandem.copilot.commit_time_ns");
    }

    /** Starts ordering; {@code elected}: the view was just established here (else: restart or first view). */
    void start(boolean elected) {
        long now = engine.now();
        for (NodeId p : engine.members) if (!p.equals(engine.self)) links.put(p, new PeerLink(p, now));
        // Every slot this pilot may have proposed is covered by a reservation made durable here before
        // anyone heard of the slot (replay counts it as seen), and a new view starts above every slot
        // its majority knew: resuming above both never reuses a slot.
        nextSlot = engine.rules.pilotFirstSlot(engine.startSlot[log], engine.highestSeen[log], engine.cursor(log), elected);
        firstSlot = nextSlot;
        ball = log == 0; // pilot 0 starts with the ball (§4.1)
        lastBatchAt = now;
    }

    /**
     * A newer view of this log was promised or established here: stop ordering. Queued commands go
     * back to their clients as redirects to the current pilots (the runtime forwards them); commands
     * in flight either commit (a recovery keeps them) or their clients retry.
     */
    void retire(List<NodeId> pilots) {
        for (Command c : queue) engine.ctx.reject(c.requestId(), new Rejection.Redirect(pilots));
        queue.clear();
        for (Proposal p : inflight.values()) {
            engine.ctx.cancel(new Resend(p.slot));
            engine.ctx.cancel(new FastPathWait(p.slot));
        }
        inflight.clear();
        engine.ctx.cancel(new PingPongWait());
        cancelFlush();
        flushHeld(); // the replicas still get every decision this pilot made
    }

    // ---- client commands (§3.2, §3.3) ----

    /** Queues a request for the next batch. */
    void onClientRequest(ClientRequest request) {
        if (queue.size() >= engine.config.maxQueuedCommands()) {
            engine.ctx.reject(request.requestId(), new Rejection.Overloaded(queue.size() + " commands wait for a batch at " + engine.self));
            return;
        }
        boolean read = request.kind() == ClientRequest.Kind.READ;
        if (queue.isEmpty()) queuedSince = engine.now();
        Command c = new Command(engine.self, request.requestId(), read ? ClientRequest.Session.NONE : request.session(), request.payload(), read);
        queue.addLast(c);
        maybePropose();
    }

    /**
     * §4.1: the other pilot proposed {@code slot} ({@link CopilotMessage.Ball}, or its FastAccept if the
     * ball was lost); this pilot may close its batch now. Each proposal passes the ball once: its
     * FastAccept, arriving after the Ball, must not hand it back a second time, or both pilots would
     * hold it at once, propose at the same moment, and their proposals would conflict.
     */
    void onBall(long slot) {
        onBall(slot, true);
    }

    private void onBall(long slot, boolean answers) {
        if (slot <= ballSlot) return;
        ballSlot = slot;
        if (answers) {
            sampleBallWait();
            expiredWaits = 0; // the other pilot keeps up again: wait for its ball as §4.1 says
        }
        if (ball) ballWhileHeld.increment();
        ball = true;
        maybePropose();
    }

    /**
     * §4.1: the other pilot's FastAccept of {@code slot} with dependency {@code dep} arrived here (the
     * ball, unless its early Ball passed it already).
     *
     * <p>There must be one ball. A FastAccept whose dependency covers this pilot's latest proposal
     * answers it: the other pilot saw our proposal before choosing its own, and the ball passes. One
     * that does not was proposed at the same moment as our latest (the other pilot's wait expired
     * while the ball was on its way here, or its loop or ours ran late): both pilots then proposed
     * without seeing each other, and if each took the other's proposal as the ball, both would hold
     * one, propose at the same moment again, and go on doing so, every such pair of proposals ordered
     * neither way and sent to the slow path (measured with the counters below: 23 % of the slots in
     * the simulator with a long-tailed network, nearly all refused as such pairs, and 2-11 % of the
     * healthy windows' slots in real runs). So the pair is
     * resolved as execution resolves cycles (§3.7): the pilot of log 0 takes the ball, the other
     * pilot waits for log 0's next proposal, which depends on its latest and so answers it, or for
     * its own wait. A slow log-0 pilot costs the log-1 pilot nothing: it proposes on its wait, as the
     * paper's fast pilot does.
     */
    void onFastAcceptBall(long slot, long dep) {
        if (slot <= ballSlot) return;
        boolean answers = dep >= nextSlot - 1;
        (answers ? ballAnswers : ballConcurrent).increment();
        if (answers) concurrentBalls = 0;
        else if (concurrentBalls < SOLO_AFTER) concurrentBalls++;
        if (!answers && (log != 0 || outpaced())) return;
        onBall(slot, answers);
    }

    /**
     * How long this pilot, with commands queued, waited for the ball that answered its latest
     * proposal: a smoothed mean and mean deviation (TCP's round-trip estimator, in nanoseconds; -1
     * before the first sample). A ball that comes after the wait expired comes too late: this pilot
     * proposed without it, at the same moment as the other pilot, and one of the two proposals goes
     * to the slow path. The paper's 1 ms wait is ten of its round trips; on a loaded machine (five
     * JVMs on two cores, each hop through a TCP I/O thread and a scheduler) the ball's round trip has
     * a tail beyond 1 ms, and with the fixed wait 14 % of the slots went slow in the simulator with a
     * long-tailed network (exponential hops, mean 0.4 ms), 1.8 % with a 2 ms wait, 0.2 % with 3 ms.
     */
    private long ballWaitMean = -1, ballWaitDeviation;

    /** The wait grows at most to this many times the configured one: a slow other pilot costs this pilot at most that wait per batch. */
    static final int MAX_WAIT_FACTOR = 3;

    private void sampleBallWait() {
        if (ball || queue.isEmpty()) return; // nothing waited for this ball
        // The ball's round trip since our proposal, counted only if it came within the current wait:
        // a later one (possible only after an idle spell, when nothing was queued to propose) is
        // not a round trip this pilot should wait for. So a slow other pilot, whose round trips are
        // all beyond the wait, never lengthens it, and the wait grows only while healthy round trips
        // come close to it.
        long sample = engine.now() - lastBatchAt;
        if (sample > pingPongWait()) return;
        if (ballWaitMean < 0) {
            ballWaitMean = sample;
            ballWaitDeviation = sample / 2;
        } else {
            long error = sample - ballWaitMean;
            ballWaitMean += error / 8;
            ballWaitDeviation += (Math.abs(error) - ballWaitDeviation) / 4;
        }
    }

    /**
     * §4.1: how long a pilot without the ball waits before it proposes anyway: the configured wait, or
     * longer (up to {@link #MAX_WAIT_FACTOR} times it) when the balls that answered this pilot's
     * proposals took longer (mean plus four deviations, TCP's retransmission rule). Only answering
     * balls are sampled, so while the other pilot is slow (its proposals no longer answer ours) the
     * wait stays where the healthy round trips left it.
     */
    long pingPongWait() {
        long base = engine.config.pingPongWait().toNanos();
        if (ballWaitMean < 0) return base;
        return Math.min(MAX_WAIT_FACTOR * base, Math.max(base, ballWaitMean + 4 * ballWaitDeviation));
    }

    /**
     * §4.1, whether an early {@link CopilotMessage.Ball} passes the ball: only if it answers this
     * pilot's latest proposal, i.e. the other pilot chose its slot already depending on every slot this
     * pilot proposed ({@code dep} at least our last slot). Then the two pilots take turns at network
     * speed, and our next proposal, depending on the ball's slot, is compatible with it at every
     * replica whatever order they receive them in. A ball that does not answer our latest proposal
     * comes from a pilot that falls behind (slow, paused, or behind a slow link): we proposed on our
     * timer meanwhile, and depending on its slot now would make our next entries wait for a slot whose
     * batch is not even here yet (null-dependency elimination, §4.2, needs the batch), so that slow
     * pilot would hold up the fast one. Such a ball is ignored; the slot's FastAccept brings the
     * dependency with the batch, as without early balls.
     */
    boolean takesEarlyBall(CopilotMessage.Ball b) {
        if (!engine.config.pingPong() || b.slot() <= ballSlot) return false;
        boolean takes = b.dep() >= nextSlot - 1;
        (takes ? earlyTaken : earlyIgnored).increment();
        return takes;
    }

    /** How many batches in a row must go out on the expired wait before this pilot stops waiting for the ball. */
    static final int SOLO_AFTER = 3;

    /**
     * §4.1, a persistently slow other pilot (a slow link, a CPU quota): every ball it sends comes after
     * our wait expired, so each of our batches waits the whole wait for nothing (the paper's "+1 ms",
     * measured in the performance simulator: with 16 closed-loop clients the fast pilot proposed one
     * batch every ~1.5 ms instead of ~0.7 ms, 44 % of the healthy throughput). Once
     * {@link #SOLO_AFTER} batches in a row went out on the expired wait with no answering ball between
     * them, this pilot proposes as soon as it has commands, as a leader would, until a ball answers one
     * of its proposals again (a FastAccept or early Ball of the other pilot whose dependency covers our
     * latest slot: the other pilot keeps up), which sets the wait back.
     *
     * <p>Safe: the ball only decides <em>when</em> a pilot closes a batch, never what it proposes or how
     * it commits; proposing without the ball is what §4.1's timeout already does (a proposal at the
     * slot's initial ballot with the newest other-log slot seen as dependency, §3.3), and every
     * ordering, compatibility and commit rule of §3 holds for any timing of proposals. The cost, if the
     * other pilot is in fact fast, is only that concurrent proposals of the two pilots may disagree
     * and take the Accept round, until its next answering ball sets the wait back.
     */
    boolean lagging() {
        return expiredWaits >= SOLO_AFTER;
    }

    /**
     * The other side of {@link #lagging}: this pilot is the slow one. The other pilot stopped waiting
     * for its ball, so its FastAccepts keep arriving with dependencies that miss this pilot's latest
     * proposal ({@link #SOLO_AFTER} in a row). The pilot of log 0 then stops taking such a concurrent
     * FastAccept as the ball ({@link #onFastAcceptBall}) and proposes on its own wait, as the log-1
     * pilot always does. Why: taken as the ball, every FastAccept of the fast pilot made the slow one
     * propose at once, one slot per fast slot, and each slow slot, reaching the acceptors before the
     * fast pilot (behind the same slow links) had seen it, sent the fast pilot's slots proposed in
     * between to the Accept round, with a dependency on the slow slot (copilot12's first cut in
     * {@code CopilotSlowReplicaTest}, all links of log 0's pilot 2-6 ms one way: 1,652 slow-pilot
     * slots, 346 of the fast pilot's 1,864 slots slow, slowed p99 5.24 ms against the healthy
     * 1.14 ms + 4 ms; with this rule 1,089 slow-pilot slots, 235 of 1,896 slow, p99 3.86 ms). The
     * commands of the slow log are the fast log's too (clients send to both pilots, §3.2), so the
     * slow pilot batching longer costs no client anything. The first answering FastAccept (the other
     * pilot waits for our ball again) sets it back. Safe for the same reason as {@link #lagging}:
     * it only decides when this pilot closes a batch.
     */
    boolean outpaced() {
        return concurrentBalls >= SOLO_AFTER;
    }

    void onPingPongWait() {
        pingPongArmed = false;
        maybePropose();
    }

    private void maybePropose() {
        while (!queue.isEmpty() && inflight.size() < engine.config.maxInflightSlots()) {
            // The wait runs from the later of the last batch and the oldest queued command: a pilot that
            // was idle still waits (at most pingPongWait) for the other pilot's FastAccept, so two idle
            // pilots that receive the same command do not propose it at the same moment and conflict.
            long waited = engine.now() - Math.max(lastBatchAt, queuedSince);
            long wait = pingPongWait();
            if (engine.config.pingPong() && !ball && waited < wait && lagging()) {
                if (!inflight.isEmpty()) return; // committing this pilot's previous batch: proposed again on its commit
            } else if (engine.config.pingPong() && !ball && waited < wait) {
                if (!pingPongArmed) {
                    pingPongArmed = true;
                    engine.ctx.schedule(wait - waited, new PingPongWait());
                }
                return;
            }
            propose();
        }
    }

    /** §3.3: the next slot, with the most recent other-log slot seen as initial dependency. */
    private void propose() {
        List<Command> batch = new ArrayList<>(Math.min(queue.size(), engine.config.maxBatch()));
        long now = engine.now();
        batchWait.record(now - queuedSince);
        while (!queue.isEmpty() && batch.size() < engine.config.maxBatch()) batch.add(queue.pollFirst());
        batch = List.copyOf(batch);
        long slot = engine.rules.proposalSlot(nextSlot, engine.highestSeen[log]);
        nextSlot = slot + 1;
        long dep = engine.highestSeen[1 - log];
        Proposal p = new Proposal(slot, batch, dep, now);
        inflight.put(slot, p);
        (!engine.config.pingPong() ? proposedNoPingPong : ball ? proposedWithBall : proposedOnWait).increment();
        if (engine.config.pingPong() && !ball && expiredWaits < SOLO_AFTER) expiredWaits++;
        if (pingPongArmed) {
            // The wait armed for the batch just closed is moot: the next one runs from this batch
            // (maybePropose arms it again while commands wait without the ball). Left armed, it fired
            // up to once per wait for nothing, a loop turn each (a tenth of a timer per command in the
            // healthy simulator; copilot14). Only when a batch closes changes, never what it holds.
            engine.ctx.cancel(new PingPongWait());
            pingPongArmed = false;
        }
        ball = false;
        lastBatchAt = now;
        engine.noteProposal(batch);
        FastAccept fa = new FastAccept(log, slot, initial, batch, dep);
        engine.reserve(log, slot);
        // The pilot's own vote goes through the acceptor like anyone's: held in memory at once, its
        // record appended, and its agreement counted only when its own reply comes back, once the
        // record is durable. The FastAccept does not wait for that write (it used to: two fsyncs in a
        // row on every command's path, the pilot's then the acceptors'); it waits only for a durable
        // reservation of the slot, normally made long before (CopilotEngine#reserve says why that is safe).
        engine.onFastAccept(engine.self, fa);
        if (!holds(slot, Status.FAST_ACCEPTED, batch)) return; // refused here (a takeover promised the slot away): its NACK abandons it
        passBall(slot, dep);
        engine.whenReserved(log, slot, () -> {
            engine.noteSent(fa.log(), fa.slot(), fa.ballot(), false, fa.cmds(), fa.dep());
            sendFastAccept(fa, slot);
        });
        engine.ctx.schedule(engine.config.resendInterval().toNanos(), new Resend(slot));
    }

    /**
     * The FastAccept to every peer whose window has room, carrying the Commits held back for the non-pilot replicas
     * ({@link #holdCommit}); a replica whose window is full gets them as plain Commits (it catches up from those).
     */
    private void sendFastAccept(FastAccept fa, long slot) {
        if (heldCommits.isEmpty()) {
            sendToPeers(fa, slot, Command.bytes(fa.cmds()));
            return;
        }
        List<CopilotMessage.Commit> commits = List.copyOf(heldCommits);
        heldCommits.clear();
        cancelFlush();
        FastAccept carrying = new FastAccept(fa.log(), fa.slot(), fa.ballot(), fa.cmds(), fa.dep(), commits);
        NodeId otherPilot = engine.members.get(engine.pilotOf(1 - log));
        long now = engine.now();
        for (PeerLink link : links.values()) {
            boolean replica = !link.peer().equals(otherPilot);
            if (link.windowFull(engine.config.maxInflightMessages(), Long.MAX_VALUE)) {
                if (replica) for (CopilotMessage.Commit c : commits) engine.ctx.send(link.peer(), c);
                continue;
            }
            link.sent(slot, slot, Command.bytes(fa.cmds()), now);
            engine.ctx.send(link.peer(), replica ? carrying : fa);
        }
    }

    /**
     * {@link CopilotConfig#commitPiggyback}: the Commit of an own slot, sent at once to the other pilot only
     * ({@link CopilotEngine#decideAtPilots} says why that is safe), is held for the non-pilot replicas until this pilot's
     * next FastAccept, and at most {@link CopilotConfig#commitPiggybackWait}: a log that goes quiet still tells them.
     */
    private void holdCommit(CopilotMessage.Commit c) {
        heldCommits.add(c);
        if (!flushArmed) {
            flushArmed = true;
            engine.ctx.schedule(engine.config.commitPiggybackWait().toNanos(), new CommitFlush());
        }
    }

    /** {@link CommitFlush}: no FastAccept took the held Commits within the wait. */
    void onCommitFlush() {
        flushArmed = false;
        flushHeld();
    }

    /** The held Commits go out on their own, to every non-pilot replica. */
    private void flushHeld() {
        if (heldCommits.isEmpty()) return;
        List<CopilotMessage.Commit> commits = List.copyOf(heldCommits);
        heldCommits.clear();
        NodeId otherPilot = engine.members.get(engine.pilotOf(1 - log));
        for (PeerLink link : links.values()) {
            if (link.peer().equals(otherPilot)) continue;
            for (CopilotMessage.Commit c : commits) engine.ctx.send(link.peer(), c);
        }
    }

    private void cancelFlush() {
        if (!flushArmed) return;
        flushArmed = false;
        engine.ctx.cancel(new CommitFlush());
    }

    /**
     * §4.1: hands the ball to the other pilot as soon as the slot is chosen, not only with the
     * FastAccept (which, before the FastAccept stopped waiting for the pilot's own vote to be durable,
     * left only after a disk flush). With a disk flush slower than the
     * ping-pong wait (milliseconds against 1 ms), waiting for the FastAccept made the other pilot's
     * wait expire nearly every time: it proposed without the ball, with a dependency that missed this
     * slot, the replicas that had processed this slot found the two proposals ordered neither way, and
     * most slots took the slow path (76 % in the simulator with 1-3 ms flushes and 40-150 us messages;
     * 54-64 % in real runs with fsync on).
     */
    private void passBall(long slot, long dep) {
        if (!engine.config.pingPong()) return;
        int otherPilot = engine.pilotOf(1 - log);
        if (otherPilot == engine.selfIndex) return;
        engine.ctx.send(engine.members.get(otherPilot), new CopilotMessage.Ball(log, slot, dep));
    }

    /** Sends a phase message of {@code slot} to every peer whose window has room (DESIGN §3 rule 2). */
    private void sendToPeers(CopilotMessage m, long slot, int bytes) {
        long now = engine.now();
        for (PeerLink link : links.values()) {
            if (link.windowFull(engine.config.maxInflightMessages(), Long.MAX_VALUE)) continue; // it catches up from the Commits
            link.sent(slot, slot, bytes, now);
            engine.ctx.send(link.peer(), m);
        }
    }

    // ---- fast path and slow path (§3.5) ----

    void onFastAcceptReply(NodeId from, FastAcceptReply r) {
        heard(from, r.slot());
        Proposal p = inflight.get(r.slot());
        if (r.log() != log || p == null || p.phase != Phase.FAST || !r.ballot().equals(initial)) return; // stale
        if (!r.ok()) {
            abandon(p); // a takeover holds the slot at a higher ballot; it finishes it
            if (r.promised().view() > initial.view()) engine.election.outranked(log, r.promised().view());
            return;
        }
        if (p.answers.putIfAbsent(from, r.dep()) != null) return;
        p.fastDepView = Math.max(p.fastDepView, r.depView());
        if (r.dep() == p.initialDep) p.agreements.ack(from, engine.now());
        decide(p);
    }

    void onFastPathWait(long slot) {
        Proposal p = inflight.get(slot);
        if (p == null || p.phase != Phase.FAST) return;
        p.fastWaitOver = true;
        decide(p);
    }

    private void decide(Proposal p) {
        int n = engine.n;
        int agreed = p.agreements.ackCount();
        if (agreed >= engine.rules.fastQuorum(n)) {
            fastCommits++;
            fastMeter.increment();
            detector.quorumFormed(p.agreements.responders(), p.agreements.decidedBy(), n, engine.now() - p.proposedAt, engine.now());
            commit(p, p.initialDep, p.fastDepView);
            return;
        }
        int answered = p.answers.size();
        if (answered < engine.rules.slowQuorum(n)) return;
        boolean fastImpossible = agreed + (n - answered) < engine.rules.fastQuorum(n);
        if (fastImpossible || answered == n || p.fastWaitOver) {
            goSlow(p);
        } else {
            engine.ctx.schedule(engine.config.fastPathWait().toNanos(), new FastPathWait(p.slot));
        }
    }

    private void goSlow(Proposal p) {
        long[] deps = p.answers.values().stream().mapToLong(Long::longValue).toArray();
        (java.util.Arrays.stream(deps).anyMatch(d -> d != p.initialDep) ? slowDisagreed : slowTooFew).increment();
        p.finalDep = engine.rules.slowPathDependency(deps, engine.n);
        p.phase = Phase.ACCEPT;
        p.accepts = QuorumTracker.kOfN(engine.members, engine.rules.slowQuorum(engine.n), engine.now(), QuorumTracker.NO_DEADLINE);
        Accept a = new Accept(log, p.slot, initial, p.cmds, p.finalDep);
        engine.onAccept(engine.self, a);
        if (!holds(p.slot, Status.ACCEPTED, p.cmds)) return;
        // Like the FastAccept, the Accept leaves in parallel with the pilot's own write; its own accept counts once durable.
        engine.whenReserved(log, p.slot, () -> {
            engine.noteSent(a.log(), a.slot(), a.ballot(), true, a.cmds(), a.dep());
            sendToPeers(a, p.slot, Command.bytes(a.cmds()));
        });
    }

    /**
     * Whether this member's own acceptor took the proposal (and its record is on its way to disk).
     * Nothing is sent that the pilot itself did not vote for: a peer holding a batch the pilot never
     * voted for would contradict recovery, which counts a silent pilot as a fast-accept of it.
     */
    private boolean holds(long slot, Status status, List<Command> batch) {
        Slot s = engine.slotOrNull(log, slot);
        return s != null && s.status == status && s.accepted.equals(initial) && batch.equals(s.cmds);
    }

    void onAcceptReply(NodeId from, AcceptReply r) {
        heard(from, r.slot());
        Proposal p = inflight.get(r.slot());
        if (p == null || p.phase != Phase.ACCEPT) return;
        if (!r.ok()) {
            abandon(p);
            if (r.promised().view() > initial.view()) engine.election.outranked(log, r.promised().view());
            return;
        }
        p.acceptDepView = Math.max(p.acceptDepView, r.depView());
        if (p.accepts.ack(from, engine.now())) {
            slowCommits++;
            slowMeter.increment();
            detector.quorumFormed(p.accepts.responders(), p.accepts.decidedBy(), engine.n, engine.now() - p.proposedAt, engine.now());
            commit(p, p.finalDep, p.acceptDepView);
        }
    }

    private void commit(Proposal p, long dep, int depView) {
        commitTime.record(engine.now() - p.proposedAt);
        inflight.remove(p.slot);
        engine.ctx.cancel(new Resend(p.slot));
        engine.ctx.cancel(new FastPathWait(p.slot));
        if (engine.config.commitPiggyback()) {
            CopilotMessage.Commit c = engine.decideAtPilots(log, p.slot, p.cmds, dep, depView);
            holdCommit(c); // before it runs here: a proposal it lets out carries it
            engine.onCommit(c);
        } else {
            engine.decide(log, p.slot, p.cmds, dep, depView);
        }
        maybePropose();
    }

    /** Someone else holds the slot now; its commands go into a later batch (the dedup keeps them to one execution). */
    private void abandon(Proposal p) {
        abandonedMeter.increment();
        inflight.remove(p.slot);
        engine.ctx.cancel(new Resend(p.slot));
        engine.ctx.cancel(new FastPathWait(p.slot));
        List<Command> cmds = p.cmds;
        if (queue.isEmpty()) queuedSince = engine.now();
        for (int i = cmds.size() - 1; i >= 0; i--) queue.addFirst(cmds.get(i));
        maybePropose();
    }

    /** A slot of either log committed here (from anyone): an own proposal overtaken by a takeover ends. */
    void committed(Slot s) {
        if (s.log != log) return;
        Proposal p = inflight.get(s.index);
        if (p == null) return;
        if (s.cmds.equals(p.cmds)) {
            inflight.remove(p.slot);
            engine.ctx.cancel(new Resend(p.slot));
            engine.ctx.cancel(new FastPathWait(p.slot));
            maybePropose();
        } else {
            abandon(p); // committed as a no-op by a takeover: order the commands again
        }
        for (PeerLink link : links.values()) link.acknowledgedThrough(lowestInflight() - 1, engine.now());
    }

    /**
     * A peer's snapshot moved execution here to {@code cursor} of this pilot's log: its proposals
     * below were decided by others (the snapshot ran them), as what it cannot tell, so their commands
     * are ordered again; the session table runs each at most once.
     */
    void compacted(long cursor) {
        if (nextSlot < cursor) nextSlot = cursor;
        for (Proposal p : new ArrayList<>(inflight.values())) if (p.slot < cursor && inflight.get(p.slot) == p) abandon(p);
    }

    private long lowestInflight() {
        long low = nextSlot;
        for (long s : inflight.keySet()) low = Math.min(low, s);
        return low;
    }

    /** See {@link #firstSlot}. */
    long firstSlot() {
        return firstSlot;
    }

    /** Whether a proposal of this incarnation drives own slot {@code slot}. */
    boolean drives(long slot) {
        return inflight.containsKey(slot);
    }

    /** An unanswered phase message is sent again, at most once per interval, to the members that did not answer. */
    void onResend(long slot) {
        Proposal p = inflight.get(slot);
        if (p == null) return;
        Slot s = engine.slotOrNull(log, slot);
        CopilotMessage m = p.phase == Phase.FAST ? new FastAccept(log, slot, initial, p.cmds, p.initialDep) : new Accept(log, slot, initial, p.cmds, p.finalDep);
        List<NodeId> silent = new ArrayList<>();
        for (PeerLink link : links.values()) {
            boolean answered = p.phase == Phase.FAST ? p.answers.containsKey(link.peer()) : p.accepts.hasAcked(link.peer());
            if (!answered) silent.add(link.peer());
        }
        // Like the first send, a resend needs only the slot's durable reservation (it has it by now).
        engine.whenReserved(log, slot, () -> {
            if (inflight.get(slot) != p) return;
            for (NodeId peer : silent) {
                detector.resent(peer, slot, links.get(peer).resentFrom(slot));
                engine.ctx.send(peer, m);
            }
        });
        if (s != null && !s.committed()) engine.ctx.schedule(engine.config.resendInterval().toNanos(), new Resend(slot));
    }

    private void heard(NodeId from, long slot) {
        PeerLink link = links.get(from);
        if (link == null) return;
        long now = engine.now();
        link.heard(now);
        link.acknowledged(slot, now);
        link.progressed(now);
    }

    void sampleDetector() {
        for (PeerLink link : links.values()) detector.sampleLink(link, engine.config.maxInflightMessages(), Long.MAX_VALUE, "");
        detector.sampleQuorums(engine.members, QuorumRule.atLeast(engine.rules.slowQuorum(engine.n)), engine.now());
    }

    String describe() {
        return "next=" + nextSlot + " inflight=" + inflight.size() + " queued=" + queue.size() + " ball=" + ball + (lagging() ? " solo" : "") + (outpaced() ? " outpaced" : "") + " fast=" + fastCommits + " slow=" + slowCommits;
    }

    long fastCommits() {
        return fastCommits;
    }

    long slowCommits() {
        return slowCommits;
    }
}
