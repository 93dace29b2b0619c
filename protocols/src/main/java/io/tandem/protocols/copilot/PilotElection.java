package io.tandem.protocols.copilot;

import io.tandem.engine.NodeId;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.copilot.CopilotMessage.StartView;
import io.tandem.protocols.copilot.CopilotMessage.ViewChange;
import io.tandem.protocols.copilot.CopilotMessage.ViewChangeReply;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Pilot election with state transfer (copilot.md §3.10 [rec]), one log at a time: the other log keeps
 * committing and executing meanwhile.
 *
 * <p>A log's view number names its pilot: member {@code view % n} (the first views are 0 and 1, so
 * member 0 pilots log 0 and member 1 log 1), so two candidates never share a view and the default
 * ballot {@code (view, 0, pilot)} is unique. A member that hears neither a beacon ({@link StartView})
 * nor a FastAccept from a log's pilot for {@code viewChangeTimeout} (plus a delay growing with its
 * distance from the pilot, so that usually one member stands) and pilots neither log stands:
 * <ol>
 *   <li>it promises the next view number that names it and asks everyone for the same promise
 *       ({@link ViewChange}); a member promises a higher view durably, drops its pilot role of that
 *       log if it had one, and from then on refuses every message of the log at a ballot of an older
 *       view; it answers with the highest slot of the log it knows exists;</li>
 *   <li>with a majority of promises (its own included) the candidate establishes the view: fresh
 *       commands go only above the highest slot any of them knows
 *       ({@link CopilotRules#viewStartSlot}). Any slot an older view can have chosen was accepted by a
 *       fast quorum or a majority, which meets this majority, so it lies below the start and is
 *       recovered (Prepare/Accept at a ballot of the new view, {@link Takeovers}) rather than reused;
 *       a slot of an older view at or above the start can never be chosen, since every member of the
 *       majority refuses the older view now;</li>
 *   <li>it announces the view and its start ({@link StartView}), then keeps announcing it as its
 *       heartbeat. Members adopt any view at least as high as their promise. Lagging members get the
 *       committed entries from the catch-up path and takeovers' Commits.</li>
 * </ol>
 * A restarted pilot never reuses a ballot: its view promise and every slot it voted for are durable
 * before anyone hears of them, it resumes proposing above the highest slot it holds, and a takeover
 * prepares above every promise it made durable.
 */
final class PilotElection {
    record Tick() implements TimerKey {}

    private final class Candidacy {
        final int log;
        final int view;
        final long startedAt;
        /** The highest slot each member that promised knows of. */
        final Map<NodeId, Long> highest = new LinkedHashMap<>();

        Candidacy(int log, int view, long startedAt) {
            this.log = log;
            this.view = view;
            this.startedAt = startedAt;
        }
    }

    private final CopilotEngine engine;
    private final long[] lastHeard = new long[2];
    private final Candidacy[] running = new Candidacy[2];
    /** Since when this member, piloting the log, has been refused by a newer view than its own (-1: not). */
    private final long[] outrankedSince = {-1, -1};
    /** The newest view such refusals named. */
    private final int[] outrankedBy = {-1, -1};
    /** The highest view number of each log seen in any message: a candidate stands above it. */
    private final int[] maxSeen = {0, 1};
    private long candidacies, established;

    PilotElection(CopilotEngine engine) {
        this.engine = engine;
    }

    void start() {
        long now = engine.now();
        lastHeard[0] = lastHeard[1] = now;
        maxSeen[0] = Math.max(maxSeen[0], engine.promisedView[0]);
        maxSeen[1] = Math.max(maxSeen[1], engine.promisedView[1]);
        engine.ctx.schedule(engine.config.beaconInterval().toNanos(), new Tick());
    }

    /** The pilot of {@code log} was heard from: it is alive. */
    void heard(int log) {
        lastHeard[log] = engine.now();
    }

    void onTick() {
        long now = engine.now();
        Pilot p = engine.pilot;
        if (p != null) engine.sendToPeers(new StartView(p.log, engine.establishedView[p.log], engine.startSlot[p.log]));
        long timeout = engine.config.viewChangeTimeout().toNanos();
        for (int log = 0; log < 2; log++) {
            if (p != null && p.log == log) {
                lastHeard[log] = now;
                standIfStillOutranked(log, now, timeout);
                continue;
            }
            outrankedSince[log] = -1;
            Candidacy c = running[log];
            if (c != null && now - c.startedAt > timeout) running[log] = null; // no majority in time: stand again later, higher
            if (running[log] != null) continue;
            int rank = rank(log);
            if (rank < 0) continue;
            long wait = timeout + rank * (timeout / 2) + engine.ctx.random().nextLong(engine.config.beaconInterval().toNanos());
            if (now - lastHeard[log] > wait) stand(log);
        }
        engine.ctx.schedule(engine.config.beaconInterval().toNanos(), new Tick());
    }

    /**
     * This member's place in the queue of candidates for {@code log}; -1 if it pilots a log (never both
     * logs on one member). The order, and why a member named by the log's established view but holding
     * no pilot role stands first (seed 1649), is {@link CopilotRules#candidateRank}.
     */
    private int rank(int log) {
        if (engine.pilot != null) return -1;
        return engine.rules.candidateRank(engine.n, engine.selfIndex, engine.pilotOf(log), engine.pilotOf(1 - log));
    }

    /** The least view number above every one seen that names this member as pilot. */
    int nextView(int log) {
        int above = Math.max(maxSeen[log], engine.promisedView[log]);
        int v = above + 1;
        return v + Math.floorMod(engine.selfIndex - v, engine.n);
    }

    private void stand(int log) {
        int view = nextView(log);
        candidacies++;
        running[log] = new Candidacy(log, view, engine.now());
        lastHeard[log] = engine.now();
        engine.send(engine.self, new ViewChange(log, view)); // our own promise first, durable before anyone else sees the view
        if (engine.promisedView[log] == view) engine.whenDurable(() -> engine.sendToPeers(new ViewChange(log, view)));
    }

    /**
     * A member refused this pilot's proposal for {@code log} naming a promise in {@code view}, newer than
     * the view this member pilots. Usually a new pilot was elected while this one was down or cut off,
     * and its StartView arrives within a beacon interval and retires this pilot. But a candidacy can
     * reach only its candidate (its messages lost), and a candidate that then pilots the other log
     * never stands again: that member refuses every proposal of our view for good and each slot needs
     * a takeover. So if no view at least as new is established here within the view-change timeout,
     * the pilot stands again above it. Safe as any candidacy is: the promises of a majority, not who
     * stands, decide a view, and the older view's slots are recovered by takeover at the new view's
     * ballots, never reused.
     */
    void outranked(int log, int view) {
        see(log, view);
        if (outrankedSince[log] < 0) outrankedSince[log] = engine.now();
        outrankedBy[log] = Math.max(outrankedBy[log], view);
    }

    /** The pilot of {@code log} stands again if it was outranked by a view that was not established in time. */
    private void standIfStillOutranked(int log, long now, long timeout) {
        if (outrankedSince[log] < 0 || now - outrankedSince[log] <= timeout) return;
        outrankedSince[log] = -1;
        Candidacy c = running[log];
        if (engine.establishedView[log] >= outrankedBy[log] || c != null && now - c.startedAt <= timeout) return;
        stand(log);
    }

    /** Phase 1 at a member: promise the view if it is the highest seen (durably, before answering). */
    void onViewChange(NodeId from, ViewChange m) {
        int log = m.log();
        see(log, m.view());
        if (m.view() % engine.n != engine.indexOf(from)) return; // a view names its pilot: anything else is malformed
        if (m.view() > engine.promisedView[log]) {
            engine.promiseView(log, m.view());
            lastHeard[log] = engine.now(); // give the candidate its time before standing ourselves
            Candidacy c = running[log];
            if (c != null && c.view < m.view()) running[log] = null;
        } else if (m.view() < engine.promisedView[log] || engine.establishedView[log] == m.view() && !from.equals(engine.self)) {
            // Refused (a higher view was promised), or already established: its StartView tells the rest.
            if (m.view() < engine.promisedView[log]) engine.send(from, new ViewChangeReply(log, m.view(), false, engine.promisedView[log], -1));
            else engine.send(from, new StartView(log, engine.establishedView[log], engine.startSlot[log]));
            return;
        }
        long highest = engine.highestSeen[log];
        ViewChangeReply reply = new ViewChangeReply(log, m.view(), true, m.view(), highest);
        engine.whenDurable(() -> engine.send(from, reply));
    }

    void onViewChangeReply(NodeId from, ViewChangeReply r) {
        see(r.log(), r.promised());
        Candidacy c = running[r.log()];
        if (c == null || c.view != r.view()) return;
        if (!r.ok()) {
            running[r.log()] = null; // someone stands higher
            return;
        }
        c.highest.putIfAbsent(from, r.highestSlot());
        if (c.highest.size() < engine.rules.viewQuorum(engine.n)) return;
        running[r.log()] = null;
        if (engine.promisedView[c.log] != c.view) return; // promised a higher view meanwhile
        long start = engine.rules.viewStartSlot(c.highest.values().stream().mapToLong(Long::longValue).toArray());
        established++;
        engine.establishView(c.log, c.view, start);
        engine.whenDurable(() -> {
            if (engine.establishedView[c.log] != c.view) return;
            engine.sendToPeers(new StartView(c.log, c.view, engine.startSlot[c.log]));
        });
    }

    /** Phase 2 and the heartbeat: adopt a view at least as high as our promise. */
    void onStartView(NodeId from, StartView m) {
        int log = m.log();
        see(log, m.view());
        if (m.view() % engine.n != engine.indexOf(from) || m.view() < engine.promisedView[log]) return; // stale
        if (m.view() > engine.establishedView[log]) engine.establishView(log, m.view(), m.startSlot());
        if (m.view() == engine.establishedView[log]) lastHeard[log] = engine.now();
        Candidacy c = running[log];
        if (c != null && c.view <= m.view()) running[log] = null;
    }

    private void see(int log, int view) {
        if (view > maxSeen[log]) maxSeen[log] = view;
    }

    String describe() {
        return "views=" + engine.establishedView[0] + "/" + engine.establishedView[1] + " promised=" + engine.promisedView[0] + "/"
                + engine.promisedView[1] + " elections=" + candidacies + "/" + established;
    }

    long established() {
        return established;
    }
}
