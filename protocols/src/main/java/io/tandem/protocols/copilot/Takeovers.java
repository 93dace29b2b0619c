package io.tandem.protocols.copilot;

import io.tandem.engine.NodeId;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.copilot.CopilotMessage.Accept;
import io.tandem.protocols.copilot.CopilotMessage.AcceptReply;
import io.tandem.protocols.copilot.CopilotMessage.Prepare;
import io.tandem.protocols.copilot.CopilotMessage.PrepareReply;
import io.tandem.protocols.failslow.QuorumTracker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fast takeover (§3.9): a pilot whose committed entry is blocked on slots nobody finishes (the other
 * pilot is slow or down, or its own slots were left unfinished by a crash) runs classic Paxos on them
 * at a ballot above any it has seen: Prepare to everyone, recovery value picking from a majority of
 * answers ({@link CopilotRules#pickRecovery}), Accept, Commit. All blocking slots go in parallel;
 * a failed attempt retries at a higher ballot after a randomized exponential backoff; a Commit from
 * anyone ends it.
 */
final class Takeovers {
    record Retry(int log, long slot) implements TimerKey {}

    private record Key(int log, long slot) {}

    private enum Phase { PREPARE, ACCEPT }

    private final class Attempt {
        final int log;
        final long slot;
        Ballot ballot;
        Phase phase = Phase.PREPARE;
        final Map<NodeId, CopilotRules.Vote> votes = new LinkedHashMap<>();
        QuorumTracker accepts;
        List<Command> cmds;
        long dep;
        int depView = -1;
        int tries;
        /** The highest ballot a refusal reported: the next try goes above it. */
        Ballot refusedBy = Ballot.NONE;

        Attempt(int log, long slot) {
            this.log = log;
            this.slot = slot;
        }
    }

    private final CopilotEngine engine;
    private final Map<Key, Attempt> active = new LinkedHashMap<>();
    private boolean checkArmed;
    private long checkDue;
    /** Each slot that blocks execution here, with when this member first saw it block. */
    private final Map<Key, Long> blockedSince = new LinkedHashMap<>();
    private long started, finished;
    private io.tandem.engine.Meters.Counter startedMeter;
    /**
     * How long the other log's blocking slots blocked here before they resolved on their own (their
     * commit arrived, or execution moved past them) without a takeover: the newest {@link #SAMPLES},
     * a ring. The evidence of the adaptive timeout ({@link #timeout}).
     */
    private final long[] resolvedAfter = new long[SAMPLES];
    private int resolvedCount, resolvedNext;

    Takeovers(CopilotEngine engine) {
        this.engine = engine;
    }

    /**
     * Execution here is blocked on {@code blockers} (§3.9): each is taken over once it has blocked
     * for the takeover timeout (paper: 10 ms), counted from when this member first saw it block.
     *
     * <p>Counting from the slot, not from the last check, matters under load: a pilot's committed
     * entry almost always depends on the other pilot's newest slot, which is still in its ordinary
     * FastAccept round. A single timer re-armed whenever anything blocked took over whatever blocked
     * when it fired, often a slot proposed a moment before: the takeover's higher ballot made the
     * healthy pilot's replies NACKs, it abandoned and re-proposed the batch, and both pilots dueled
     * (real processes, 5 nodes, fsync on: 15-21 % of slots resent after 50 ms, commit-quorum p99
     * over 200 ms). A slot that stops blocking (it committed, or execution moved past it) forgets
     * its time.
     */
    void blocked(List<long[]> blockers) {
        if (blockers.isEmpty() && blockedSince.isEmpty()) return;
        long now = engine.now();
        long timeout = timeout();
        Map<Key, Long> still = new LinkedHashMap<>();
        long nextDue = Long.MAX_VALUE;
        for (long[] b : blockers) {
            Key key = new Key((int) b[0], b[1]);
            long since = blockedSince.getOrDefault(key, now);
            still.put(key, since);
            if (!active.containsKey(key)) nextDue = Math.min(nextDue, since + timeout);
        }
        for (Map.Entry<Key, Long> e : blockedSince.entrySet()) {
            if (!still.containsKey(e.getKey())) resolved(e.getKey(), now - e.getValue());
        }
        blockedSince.clear();
        blockedSince.putAll(still);
        if (nextDue != Long.MAX_VALUE) armCheck(Math.max(0, nextDue - now));
    }

    private void armCheck(long delay) {
        long due = engine.now() + delay;
        if (checkArmed && checkDue <= due) return;
        if (checkArmed) engine.ctx.cancel(new CopilotEngine.TakeoverCheck());
        checkArmed = true;
        checkDue = due;
        engine.ctx.schedule(delay, new CopilotEngine.TakeoverCheck());
    }

    /**
     * A slot of the other log stopped blocking here after {@code blockedFor} without a takeover of
     * ours: a sample of how long the other pilot's entries normally keep this member waiting.
     */
    private void resolved(Key key, long blockedFor) {
        Pilot p = engine.pilot;
        if (p == null || key.log() == p.log || active.containsKey(key)) return; // not the other pilot's own pace
        Slot s = engine.slotOrNull(key.log(), key.slot());
        if (engine.cursor(key.log()) <= key.slot() && (s == null || !s.committed())) return; // left the list unresolved (role change, cap)
        resolvedAfter[resolvedNext] = blockedFor;
        resolvedNext = (resolvedNext + 1) % SAMPLES;
        resolvedCount = Math.min(SAMPLES, resolvedCount + 1);
    }

    /** Blocks of the other log that resolved on their own, the newest this many, set the adaptive timeout. */
    static final int SAMPLES = 64;
    /** The adaptive timeout is this many times the longest of those blocks... */
    static final int TIMEOUT_FACTOR = 3;
    /** ...but never below the configured timeout divided by this (2 ms of the default 10 ms). */
    static final int FLOOR_DIVISOR = 5;

    /**
     * How long a blocking slot waits before this member takes it over: {@link #TIMEOUT_FACTOR} times the
     * longest of the newest {@link #SAMPLES} blocks on the other log that resolved on their own, at least
     * the configured {@code takeoverTimeout} / {@link #FLOOR_DIVISOR} and at most the configured timeout
     * (the paper's fixed 10 ms); the configured timeout until that many blocks were seen.
     *
     * <p>Why it is safe: a takeover is always safe, whenever it starts (Prepare at a ballot above every
     * one seen, the recovery value from a majority's answers, §3.9); the timeout decides only liveness and
     * efficiency. Too short, and a live pilot's slot is taken over while its own round is still under way:
     * its FastAccept replies turn into refusals and it proposes the batch again (the duel the
     * per-slot count of {@link #blocked} ended in real runs); too long, and every command behind a stalled
     * pilot waits for it. A fixed 10 ms is the second at each stall of a pilot (a pause, each period of a
     * CPU quota: copilot13's CPU 20 %/100 ms row, p99 +9.4 ms over healthy). Measured from the other
     * pilot's own entries here, the timeout is short while they resolve quickly and grows back to the
     * configured one under the tails of a slow disk or a loaded network, where a fixed short one would
     * take over live pilots' slots. Deterministic: the samples are differences of the engine's clock,
     * taken as its inputs arrive.
     */
    long timeout() {
        long ceiling = engine.config.takeoverTimeout().toNanos();
        if (resolvedCount < SAMPLES) return ceiling;
        long longest = 0;
        for (long d : resolvedAfter) longest = Math.max(longest, d);
        return Math.max(ceiling / FLOOR_DIVISOR, Math.min(ceiling, TIMEOUT_FACTOR * longest));
    }

    /** The takeover timer fired: take over every slot that has blocked for the takeover timeout. */
    void startBlocking(List<long[]> blockers) {
        checkArmed = false;
        long now = engine.now();
        long timeout = timeout();
        blocked(blockers);
        for (long[] b : blockers) {
            Long since = blockedSince.get(new Key((int) b[0], b[1]));
            if (since != null && now - since >= timeout) start((int) b[0], b[1]);
        }
        blocked(blockers); // re-arm for the ones not yet due (and, as before, again for the ones started)
        if (!blockers.isEmpty() && !checkArmed) armCheck(timeout);
    }

    private void start(int log, long slot) {
        Key key = new Key(log, slot);
        if (active.containsKey(key)) return;
        Slot s = engine.slotOrNull(log, slot);
        if (s != null && s.committed()) return;
        Attempt t = new Attempt(log, slot);
        active.put(key, t);
        started++;
        if (startedMeter == null) startedMeter = engine.ctx.meters().counter("tandem.copilot.takeovers");
        startedMeter.increment();
        prepare(t);
    }

    private void prepare(Attempt t) {
        Slot s = engine.slot(t.log, t.slot);
        Ballot above = Ballot.max(Ballot.max(s.promised, t.refusedBy), t.ballot == null ? Ballot.NONE : t.ballot);
        t.ballot = engine.rules.takeoverBallot(above, engine.viewFloor(t.log), engine.selfIndex);
        t.phase = Phase.PREPARE;
        t.votes.clear();
        t.accepts = null;
        Prepare p = new Prepare(t.log, t.slot, t.ballot);
        engine.onPrepare(engine.self, p); // our own promise, durable before anyone else sees the ballot
        Slot own = engine.slotOrNull(t.log, t.slot);
        if (own != null && own.promised.equals(t.ballot) && !own.committed()) engine.whenDurable(() -> engine.sendToPeers(p));
        scheduleRetry(t);
    }

    void onPrepareReply(NodeId from, PrepareReply r) {
        Attempt t = active.get(new Key(r.log(), r.slot()));
        if (t == null || t.phase != Phase.PREPARE || !r.ballot().equals(t.ballot)) return;
        if (!r.ok()) {
            t.refusedBy = Ballot.max(t.refusedBy, r.promised()); // retried above it when the backoff expires
            return;
        }
        t.votes.putIfAbsent(from, new CopilotRules.Vote(engine.indexOf(from), r.status(), r.accepted(), r.cmds(), r.dep()));
        if (t.votes.size() < engine.rules.slowQuorum(engine.n)) return;
        switch (engine.rules.pickRecovery(List.copyOf(t.votes.values()), engine.n)) {
            case CopilotRules.Pick.Decided d -> engine.decide(t.log, t.slot, d.cmds(), d.dep(), -1);
            case CopilotRules.Pick.Propose p -> accept(t, p.cmds(), p.dep());
            case CopilotRules.Pick.Wait w -> {} // more answers may settle it; else the retry does
        }
    }

    private void accept(Attempt t, List<Command> cmds, long dep) {
        t.phase = Phase.ACCEPT;
        t.cmds = cmds;
        t.dep = dep;
        t.depView = -1;
        t.accepts = QuorumTracker.kOfN(engine.members, engine.rules.slowQuorum(engine.n), engine.now(), QuorumTracker.NO_DEADLINE);
        Accept a = new Accept(t.log, t.slot, t.ballot, cmds, dep);
        engine.onAccept(engine.self, a);
        Slot own = engine.slotOrNull(t.log, t.slot);
        if (own != null && own.status == Status.ACCEPTED && own.accepted.equals(t.ballot)) {
            engine.whenDurable(() -> {
                engine.noteSent(a.log(), a.slot(), a.ballot(), true, a.cmds(), a.dep());
                engine.sendToPeers(a);
            });
        }
    }

    void onAcceptReply(NodeId from, AcceptReply r) {
        Attempt t = active.get(new Key(r.log(), r.slot()));
        if (t == null || t.phase != Phase.ACCEPT || !r.ballot().equals(t.ballot)) return;
        if (!r.ok()) {
            t.refusedBy = Ballot.max(t.refusedBy, r.promised());
            return;
        }
        t.depView = Math.max(t.depView, r.depView());
        if (t.accepts.ack(from, engine.now())) engine.decide(t.log, t.slot, t.cmds, t.dep, t.depView);
    }

    /** A Commit arrived (from anyone): the takeover of that slot is over. */
    void committed(int log, long slot) {
        if (active.remove(new Key(log, slot)) != null) {
            finished++;
            engine.ctx.cancel(new Retry(log, slot));
            blockedSince.remove(new Key(log, slot)); // resolved by our takeover: not a sample of the other pilot's pace
        }
    }

    /** Slots of {@code log} below {@code below} were compacted here (a snapshot covers them): their takeovers end. */
    void compacted(int log, long below) {
        for (Key k : new ArrayList<>(active.keySet())) if (k.log() == log && k.slot() < below) committed(log, k.slot());
        blockedSince.keySet().removeIf(k -> k.log() == log && k.slot() < below);
    }

    /**
     * The attempt's timer fired without a decision. Only a refusal (or a higher promise made here)
     * moves the attempt to a higher ballot; otherwise the phase message goes again, at the same
     * ballot, to the members that did not answer. Paxos lets a proposer repeat a phase at its ballot
     * as often as it likes (an acceptor answers a repeat as it answered the first), and a fresh ballot
     * would throw away the answers already in: with slow disks a round trip (the taker's own promise
     * durable, then each acceptor's) can outlast the backoff, and a takeover that restarted at every
     * timer stalled for seconds (the slow-disk seeds of CopilotSimulationTest).
     */
    void onRetry(int log, long slot) {
        Attempt t = active.get(new Key(log, slot));
        if (t == null) return;
        Slot s = engine.slotOrNull(log, slot);
        if (s != null && s.committed()) {
            committed(log, slot);
            return;
        }
        t.tries++;
        Slot own = engine.slot(log, slot);
        boolean outbid = t.refusedBy.greaterThan(t.ballot) || own.promised.greaterThan(t.ballot) || engine.viewFloor(log).greaterThan(t.ballot);
        boolean ownVote = own.promised.equals(t.ballot) && (t.phase == Phase.PREPARE || own.status == Status.ACCEPTED && own.accepted.equals(t.ballot));
        if (outbid || !ownVote) {
            prepare(t);
            return;
        }
        CopilotMessage m = t.phase == Phase.PREPARE ? new Prepare(log, slot, t.ballot) : new Accept(log, slot, t.ballot, t.cmds, t.dep);
        List<NodeId> silent = new ArrayList<>();
        for (NodeId peer : engine.members) {
            if (peer.equals(engine.self)) continue;
            boolean answered = t.phase == Phase.PREPARE ? t.votes.containsKey(peer) : t.accepts.hasAcked(peer);
            if (!answered) silent.add(peer);
        }
        Ballot ballot = t.ballot;
        Phase phase = t.phase;
        // Like the first send: only once our own vote at this ballot is durable.
        engine.whenDurable(() -> {
            if (active.get(new Key(log, slot)) != t || !t.ballot.equals(ballot) || t.phase != phase) return;
            for (NodeId peer : silent) engine.ctx.send(peer, m);
        });
        scheduleRetry(t);
    }

    private void scheduleRetry(Attempt t) {
        long base = engine.config.takeoverTimeout().toNanos();
        long backoff = base << Math.min(t.tries, 6);
        engine.ctx.schedule(backoff + engine.ctx.random().nextLong(base), new Retry(t.log, t.slot));
    }

    String describe() {
        return "takeovers=" + started + "/" + finished + " timeout=" + timeout() / 1000 + "us" + (active.isEmpty() ? "" : " active=" + new ArrayList<>(active.keySet()));
    }

    long started() {
        return started;
    }
}
