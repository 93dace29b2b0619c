package io.tandem.protocols.multipaxos;

import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Accept;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Accepted;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Chosen;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Decided;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ProxyAccept;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToProxy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A proxy leader (spec §2.1): it runs Phase 2 for the runs of slots the leader hands it, so the
 * leader sends one message per run instead of one per acceptor and replica.
 *
 * <ul>
 *   <li><b>Relays only</b> (PL-1): it sends the leader's {@link ProxyAccept} to the acceptors exactly as
 *       given, ballot, slots and values; the single leader of a ballot stays the only sequencer.</li>
 *   <li><b>Thrifty, with retry</b>: the first Phase 2a goes to one write quorum (a grid column, the
 *       next one each run); a run not chosen within the resend interval, or within four times the
 *       delay of its first vote once one is in, goes to every acceptor that has not voted, so a crashed acceptor in the chosen column costs one interval, not a leader
 *       change (the artifact's gap, spec §2.1 "Artifact gaps").</li>
 *   <li><b>Chosen</b> (PL-2): once Phase 2b answers from a write quorum for the same (ballot, slots)
 *       are in, it sends {@link Chosen} to every replica, and forgets the run (no unbounded table): at once
 *       when no run next to it is chosen or still in Phase 2 here, else at the end of the drain (a 0-delay
 *       timer), where runs chosen in the same drain that are adjacent (the leader deals each proxy stripes
 *       of consecutive slots) go out as one Chosen, never across a gap. Slots an acceptor reported garbage-collected were chosen earlier and are in
 *       replicas' snapshots: they are not announced again.</li>
 *   <li><b>Decided, several runs at once</b>: the leader learns of chosen runs from one
 *       {@link Decided} per {@link #REPORT_RUNS} runs (or per share of the leader's window, see
 *       {@link #reportSlots}), sent at once when this proxy has no run left in Phase 2 (nothing
 *       more to wait for), and at the latest a sixteenth of the resend interval after the first
 *       unreported run. With one Decided per run the leader received a message per command besides
 *       the command itself (3 messages per command, unbatched); the paper's leader handles 2 (spec
 *       §2.1). Safe: Decided only frees the leader's window and its retained values; clients are
 *       answered by replicas from the Chosen, which is not delayed. A lost or late report costs the
 *       leader window room, which a replica's progress report or the leader's resend recovers (as
 *       for a lost Decided before).</li>
 *   <li><b>Soft state</b> (PL-5): a crash loses runs in flight; the leader re-sends undecided slots to
 *       another proxy after its resend interval, replicas repair holes. A run that stays undecided
 *       for an election timeout, and was retried at least once, is dropped here (its ballot is probably
 *       stale; the leader decides).</li>
 *   <li><b>The leader's resend is a retry too</b>: a {@link ProxyAccept} for a run this proxy still
 *       holds means the leader is still waiting, so the Phase 2a goes out again at once to every
 *       acceptor that has not voted (Accept is idempotent: same ballot, same values). Ignoring it
 *       (PL-3 read literally) left a run whose first Phase 2a was lost waiting for the proxy's own
 *       retry, and that retry could be dropped before it ever fired.</li>
 * </ul>
 */
class ProxyLeader {
    sealed interface Timer extends TimerKey {}

    private record RetryTimer() implements Timer {}

    /** Announces the runs chosen in this drain; armed with no delay (see {@link #chosen}). */
    private record AnnounceTimer() implements Timer {}

    private static final Timer RETRY = new RetryTimer();
    private static final Timer ANNOUNCE = new AnnounceTimer();

    /** A run's other voters get this many times the first vote's delay before it is re-sent to them. */
    private static final long STRAGGLER_FACTOR = 4;

    /** At most this many chosen runs wait for one {@link Decided} to the leader. */
    static final int REPORT_RUNS = 16;

    /** Chosen runs of one leader and ballot not yet reported to it (pairs of first and last slot). */
    private static final class Report {
        final NodeId leader;
        final Ballot ballot;
        final long requestId;
        final long dueAt;
        long[] runs = new long[8];
        int count;
        long slots;
        long gcSlot;

        Report(NodeId leader, Ballot ballot, long requestId, long dueAt) {
            this.leader = leader;
            this.ballot = ballot;
            this.requestId = requestId;
            this.dueAt = dueAt;
        }

        void add(long first, long last, long gc) {
            if (2 * count + 2 > runs.length) runs = java.util.Arrays.copyOf(runs, runs.length * 2);
            runs[2 * count] = first;
            runs[2 * count + 1] = last;
            count++;
            slots += last - first + 1;
            gcSlot = Math.max(gcSlot, gc);
        }

        Decided message() {
            return new Decided(ballot, java.util.Arrays.copyOf(runs, 2 * count), gcSlot, requestId);
        }
    }

    private record Key(Ballot ballot, long firstSlot) {}

    /** One run in Phase 2: the leader's message and the acceptors (a mask) that voted for all of it. */
    static final class Run {
        final ProxyAccept accept;
        final NodeId leader;
        final long startedAt;
        long lastSentAt;
        /** When this run is re-sent to the acceptors that have not voted: a resend interval after it was sent, or sooner once a vote came (a straggler). */
        long dueAt;
        boolean retried;
        long voters;
        long gcSlot;
        /** When a write quorum had voted for it (0 while in Phase 2). */
        long chosenAt;

        Run(ProxyAccept accept, NodeId leader, long now) {
            this.accept = accept;
            this.leader = leader;
            this.startedAt = now;
            this.lastSentAt = now;
        }

        void sent(long now, long resendNanos) {
            lastSentAt = now;
            dueAt = now + resendNanos;
        }
    }

    private final RoleContext rc;
    private final QuorumSystem quorums;
    private final long resendNanos;
    private final long dropNanos;
    private final Meters.Counter runsChosen;
    private final Meters.Counter retries;
    private final Map<Key, Run> runs = new LinkedHashMap<>();
    private int nextQuorum;
    /** Deadline the retry timer is armed for, or {@code Long.MAX_VALUE} when it is not armed. */
    private long retryArmedFor = Long.MAX_VALUE;
    /** Runs chosen and not announced yet (this drain's, and runs held for their neighbour), in the order they were chosen. */
    private List<Run> toAnnounce = new ArrayList<>();
    /** An {@link #ANNOUNCE} timer is armed and has not fired yet. */
    private boolean announceDue;
    /** The earliest deadline of a run held for its neighbour, or {@code Long.MAX_VALUE}. */
    private long holdDueAt = Long.MAX_VALUE;
    /** Slots one announced Chosen may carry: a stripe of the leader's, or a batch if larger. */
    private final int maxChosenSlots;
    /** Whether a chosen group waits for the rest of its stripe ({@link #holdUntil}): one slot per run only. */
    private final boolean holdsStripes;
    /** Chosen runs not yet reported to their leader, or null. */
    private Report report;
    private final long reportDelayNanos;
    private final long reportSlots;

    ProxyLeader(RoleContext rc) {
        this.rc = rc;
        this.quorums = rc.topology.quorums();
        this.resendNanos = rc.config.resendInterval().toNanos();
        this.dropNanos = rc.config.electionTimeoutMax().toNanos();
        this.runsChosen = rc.meters().counter("tandem.multipaxos.proxy.runs_chosen");
        this.retries = rc.meters().counter("tandem.multipaxos.proxy.retries");
        // Proxies start their cycle of write quorums at different columns, so that they spread the load.
        this.nextQuorum = Math.max(0, rc.topology.proxies().indexOf(rc.self));
        this.reportDelayNanos = Math.max(1, resendNanos / 16);
        this.reportSlots = reportSlots(rc.config.windowSlots(), rc.topology.proxies().size());
        this.maxChosenSlots = Math.max(rc.config.maxBatchSlots(), rc.config.proxyStripeSlots());
        this.holdsStripes = rc.config.maxBatchSlots() == 1;
    }

    /**
     * Chosen slots a proxy may hold unreported: a quarter of the leader's window shared by the
     * proxies, so that together they never hold the window shut (at least one slot: with a window of
     * a few slots every run is reported at once, as before).
     */
    static long reportSlots(int windowSlots, int proxies) {
        return Math.max(1, windowSlots / (4L * Math.max(1, proxies)));
    }

    void onMessage(NodeId from, ToProxy m) {
        switch (m) {
            case ProxyAccept a -> onProxyAccept(from, a);
            case Accepted a -> onAccepted(from, a);
        }
    }

    void onTimer(Timer t) {
        switch (t) {
            case RetryTimer r -> onRetryTimer();
            case AnnounceTimer a -> onAnnounceTimer();
        }
    }

    /** The leader's Phase 2a for a run (spec §2.1): one write quorum gets it; a duplicate of a run in progress is ignored (PL-3). */
    private void onProxyAccept(NodeId from, ProxyAccept a) {
        if (a.values().isEmpty() || !rc.topology.leaders().contains(from)) return;
        Key key = new Key(a.ballot(), a.firstSlot());
        Run held = runs.get(key);
        if (held != null && held.accept.lastSlot() == a.lastSlot()) {
            // The leader re-sent a run we hold (PL-3: not a new run): it is still waiting for it, so the
            // first Phase 2a or a vote was probably lost. Retry now rather than at our own next interval;
            // a network duplicate of the leader's message (right after the original, while we just sent
            // or retried the run) is not a resend and changes nothing.
            if (rc.now() - held.lastSentAt >= resendNanos / 2) resend(held, rc.now());
            return;
        }
        // New, or the leader regrouped its undecided slots into a run of another extent from the same
        // first slot: one leader gives a slot one value per ballot, so the longer or shorter run carries
        // the same values for the slots both cover; it replaces the held one (whose votes no longer
        // match its extent, PL-2).
        Run run = new Run(a, from, rc.now());
        run.sent(rc.now(), resendNanos);
        runs.put(key, run);
        Accept accept = new Accept(a.ballot(), a.firstSlot(), a.values(), a.requestId());
        for (NodeId acceptor : firstQuorum()) rc.send(acceptor, accept);
        armRetry();
    }

    /** The write quorum the next run goes to first; overridable so tests can plant a proxy that picks a wrong one. */
    List<NodeId> firstQuorum() {
        return quorums.writeQuorum(nextQuorum++);
    }

    /** Phase 2b (PL-2): a write quorum of votes for the same (ballot, run) chooses it. */
    private void onAccepted(NodeId from, Accepted a) {
        long bit = quorums.bit(from);
        Run run = runs.get(new Key(a.ballot(), a.firstSlot()));
        if (bit == 0 || run == null || a.lastSlot() != run.accept.lastSlot()) return;
        boolean firstVote = run.voters == 0;
        run.voters |= bit;
        run.gcSlot = Math.max(run.gcSlot, a.gcSlot());
        if (!isChosen(run.voters)) {
            if (firstVote) expectStragglers(run);
            return;
        }
        runs.remove(new Key(a.ballot(), a.firstSlot()));
        runsChosen.increment();
        chosen(run);
    }

    /**
     * A run is chosen: it is announced at the end of this drain, with the others chosen in it. A timer
     * with no delay fires only after the runtime has handed the node every input it drained at once
     * (as the leader's pump), so the votes that arrived together choose their runs first, and adjacent
     * ones (a stripe the leader dealt this proxy) leave as one Chosen per replica. A lone run waits for
     * nothing. Delaying the Chosen to the end of the drain changes no safety argument (PL-2: it is sent
     * only after a write quorum voted); a crash before the timer loses the announcement as a crash
     * just before the send did (replicas repair the hole from the leader, which the run's report reached,
     * or the leader re-sends the run if the report was lost too).
     */
    private void chosen(Run run) {
        run.chosenAt = rc.now();
        toAnnounce.add(run);
        // The leader hears of it now, not when the replicas do: a run held for its neighbour below would
        // otherwise hold the leader's window too, and a window-bound leader deals stripes in pieces, each
        // piece reported on its own (model, a4 with 3 batchers: 1 Decided per 3 runs, the leader at 1.00
        // at 285k ops/s against 1 per 10 and 0.84 at 489k). Safe: Decided says only that the run is
        // chosen, which it is; replicas that miss the Chosen (a crash before it) get the value from the
        // leader, which retains it from this report (as after D6, a crash between two Chosen sends).
        report(run);
        if (toAnnounce.size() == 1 && !announceDue && !hasNeighbourInPhase2(run)) {
            // Nothing here could join it (no chosen run waits, no run of the stripe next to it is still in Phase 2):
            // announced at once, as before the end-of-drain announcement. Waiting for the end of the drain would only
            // delay it by every job queued before the timer on this proxy's loop; a read at a replica waits for its
            // slot's Chosen (model, 90 % reads on r-p2-grid24-r24-batchers: batched runs are longer than a stripe, so
            // a proxy's runs are never adjacent, and the delay cost 5 % of the throughput of 4,096 closed-loop clients).
            toAnnounce.clear();
            for (Chosen chosen : announcement(List.of(run))) {
                for (NodeId r : rc.topology.replicas()) rc.send(r, chosen);
            }
            return;
        }
        if (announceDue) return;
        announceDue = true;
        rc.schedule(0, ANNOUNCE);
    }

    /** Whether a run in Phase 2 here ends right before this one or starts right after it (the rest of its stripe). */
    private boolean hasNeighbourInPhase2(Run run) {
        ProxyAccept a = run.accept;
        if (runs.containsKey(new Key(a.ballot(), a.lastSlot() + 1))) return true;
        for (Run other : runs.values()) {
            if (other.accept.lastSlot() == a.firstSlot() - 1 && other.accept.ballot().equals(a.ballot())) return true;
        }
        return false;
    }

    /**
     * Announces the runs chosen, adjacent ones as one Chosen, except a group whose next slot starts a
     * run still in Phase 2 here (the rest of the leader's stripe): it waits for that run, so a stripe
     * leaves as one message, not as one per drain. Votes of a stripe come back spread over the
     * acceptors' turns, so one drain rarely holds them all (model, a4 with 3 batchers: 1.4 slots per
     * Chosen without the hold). A group waits at most as long again as its oldest run took from its
     * Phase 2a to its choice (so a run whose neighbour lost a message is not held for the retry), and
     * never beyond a sixteenth of the resend interval. Safe: the values and slots are those chosen;
     * only the Chosen is later, which replicas and the leader tolerate as they tolerate a slow proxy.
     */
    private void onAnnounceTimer() {
        announceDue = false;
        if (toAnnounce.isEmpty()) return;
        long now = rc.now();
        List<Run> held = new ArrayList<>();
        long due = Long.MAX_VALUE;
        for (List<Run> group : grouped(toAnnounce, maxChosenSlots, rc.config.maxBatchBytes())) {
            long holdUntil = holdUntil(group);
            if (now < holdUntil) {
                held.addAll(group);
                due = Math.min(due, holdUntil);
                continue;
            }
            for (Chosen chosen : announcement(group)) {
                for (NodeId r : rc.topology.replicas()) rc.send(r, chosen);
            }
        }
        toAnnounce = held;
        holdDueAt = due;
        armRetry();
    }

    /**
     * Until when a group of adjacent chosen runs waits for the run after it (now or earlier: it does not wait). Only
     * when the leader sends one slot per run ({@code maxBatchSlots} 1, the unbatched protocol): there a stripe is
     * many runs of one slot each, and without the hold a replica receives about one Chosen per slot. With batching a
     * run already carries a drain of the leader's, so waiting merges little and delays every read of those slots (a
     * read at a replica waits for its slot's Chosen; model, 90 % reads on r-p2-grid24-r24-batchers: the hold cost
     * 2.5 % of the throughput of 4,096 closed-loop clients, the merging saved 12 % of the replicas' Chosen).
     */
    private long holdUntil(List<Run> group) {
        if (!holdsStripes) return Long.MIN_VALUE;
        Run last = group.getLast();
        long slots = 0;
        long oldestChosenAt = Long.MAX_VALUE;
        long took = 0;
        for (Run r : group) {
            slots += r.accept.lastSlot() - announcedFrom(r) + 1;
            if (r.chosenAt < oldestChosenAt) {
                oldestChosenAt = r.chosenAt;
                took = r.chosenAt - r.lastSentAt;
            }
        }
        if (slots == 0 || slots >= maxChosenSlots || !runs.containsKey(new Key(last.accept.ballot(), last.accept.lastSlot() + 1))) return Long.MIN_VALUE;
        return oldestChosenAt + Math.min(Math.max(took, 1), resendNanos / 16);
    }

    /** Whether these voters choose a run; overridable so tests can plant a proxy that counts too few. */
    boolean isChosen(long voters) {
        return quorums.isWriteQuorum(voters);
    }

    /** {@link #groups}; overridable so tests can plant a proxy that merges across a gap. */
    List<List<Run>> grouped(List<Run> runs, int maxSlots, int maxBytes) {
        return groups(runs, maxSlots, maxBytes);
    }

    /** The Chosen of one group of {@link #grouped}; overridable so tests can plant a proxy that merges across a gap. */
    List<Chosen> announcement(List<Run> group) {
        return chosenMessages(group, Integer.MAX_VALUE, Integer.MAX_VALUE);
    }

    /**
     * The Chosen messages announcing these runs: each run without the slots an acceptor reported
     * garbage-collected (chosen earlier, in replicas' snapshots), sorted by first slot, and a run that
     * starts right after the previous one's last slot joins its message, up to {@code maxSlots} slots
     * and {@code maxBytes} value bytes (a single larger run still goes alone). A run is never merged
     * across a gap (the replica's {@code learn} puts value k at first slot + k), nor with one it
     * overlaps (the leader re-sent a run, or a new ballot re-proposed it: same values where chosen,
     * sent as they are). Pure, so a test can check every case.
     */
    static List<Chosen> chosenMessages(List<Run> runs, int maxSlots, int maxBytes) {
        List<Chosen> out = new ArrayList<>();
        for (List<Run> group : groups(runs, maxSlots, maxBytes)) {
            List<Value> values = new ArrayList<>();
            long first = -1;
            long requestId = 0;
            for (Run run : group) {
                long from = announcedFrom(run);
                if (from > run.accept.lastSlot()) continue;
                if (first < 0) {
                    first = from;
                    requestId = run.accept.requestId();
                }
                values.addAll(run.accept.values().subList((int) (from - run.accept.firstSlot()), run.accept.values().size()));
            }
            if (first >= 0) out.add(new Chosen(first, List.copyOf(values), requestId));
        }
        return out;
    }

    /**
     * The runs grouped as {@link #chosenMessages} sends them: sorted by first announced slot, a run
     * joins the group before it if it starts right after that group's last slot and the group stays
     * within the bounds. A wholly garbage-collected run forms a group of its own (it announces
     * nothing, but is still reported to the leader).
     */
    static List<List<Run>> groups(List<Run> runs, int maxSlots, int maxBytes) {
        List<Run> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingLong(ProxyLeader::announcedFrom));
        List<List<Run>> out = new ArrayList<>();
        List<Run> group = null;
        long next = 0;
        long slots = 0;
        long bytes = 0;
        for (Run run : sorted) {
            ProxyAccept a = run.accept;
            long from = announcedFrom(run);
            long partSlots = Math.max(0, a.lastSlot() - from + 1);
            long partBytes = 0;
            for (int k = (int) Math.min(Math.max(0, from - a.firstSlot()), a.values().size()); k < a.values().size(); k++) partBytes += a.values().get(k).weight();
            boolean joins = group != null && partSlots > 0 && slots > 0 && from == next && slots + partSlots <= maxSlots && bytes + partBytes <= maxBytes;
            if (!joins) {
                group = new ArrayList<>();
                out.add(group);
                slots = 0;
                bytes = 0;
            }
            group.add(run);
            slots += partSlots;
            bytes += partBytes;
            next = a.lastSlot() + 1;
        }
        return out;
    }

    private static long announcedFrom(Run run) {
        return Math.max(run.accept.firstSlot(), run.gcSlot + 1);
    }

    /**
     * Adds a chosen run to the report for its leader (when it is chosen, before its Chosen leaves);
     * sends the report when it is full, or when no run is left in Phase 2 here (the leader may be
     * waiting for just these), else the retry timer sends it by its deadline.
     */
    private void report(Run run) {
        ProxyAccept a = run.accept;
        if (report != null && (!report.leader.equals(run.leader) || !report.ballot.equals(a.ballot()))) sendReport();
        if (report == null) report = new Report(run.leader, a.ballot(), a.requestId(), rc.now() + reportDelayNanos);
        report.add(a.firstSlot(), a.lastSlot(), run.gcSlot);
        if (report.count >= REPORT_RUNS || report.slots >= reportSlots || runs.isEmpty()) sendReport();
        else armRetry();
    }

    private void sendReport() {
        if (report == null) return;
        rc.send(report.leader, report.message());
        report = null;
    }

    /**
     * Resends runs undecided for a resend interval to every acceptor that has not voted; drops runs
     * that stayed undecided for an election timeout after at least one retry (so a short election
     * timeout never turns a lost message into a dropped run).
     */
    private void onRetryTimer() {
        retryArmedFor = Long.MAX_VALUE;
        long now = rc.now();
        if (report != null && now >= report.dueAt) sendReport();
        if (now >= holdDueAt) {
            holdDueAt = Long.MAX_VALUE;
            onAnnounceTimer(); // a run held for its neighbour waited long enough
        }
        for (Iterator<Run> it = runs.values().iterator(); it.hasNext(); ) {
            Run run = it.next();
            if (run.retried && now - run.startedAt >= dropNanos) {
                it.remove();
                continue;
            }
            if (now >= run.dueAt) resend(run, now);
        }
        armRetry();
    }

    /**
     * The first vote of a run is in and the quorum is not: the other members of its write quorum
     * answer in about the same time unless their Phase 2a or their vote was lost (or they are slow).
     * The run is re-sent to every acceptor that has not voted once it waited {@link #STRAGGLER_FACTOR}
     * times as long as that first vote took (at least a sixteenth of the resend interval), not the
     * whole resend interval: one lost message of a thrifty Phase 2 then costs a few round trips, not
     * an interval that holds the leader's window shut (seed 169 of {@code d-b2-u2-reads.conf}: window
     * of 2 slots, 666 ms interval, a stall per lost Accept or Accepted, 169 of 200 operations in 15 s).
     * Safe: Accept is idempotent (same ballot and values) and the extra acceptors only add votes.
     */
    private void expectStragglers(Run run) {
        long now = rc.now();
        long firstVote = now - run.lastSentAt;
        long wait = Math.max(STRAGGLER_FACTOR * firstVote, resendNanos / 16);
        if (now + wait >= run.dueAt) return;
        run.dueAt = now + wait;
        armRetry();
    }

    private void resend(Run run, long now) {
        run.sent(now, resendNanos);
        run.retried = true;
        retries.increment();
        ProxyAccept a = run.accept;
        Accept accept = new Accept(a.ballot(), a.firstSlot(), a.values(), a.requestId());
        for (NodeId acceptor : quorums.members()) {
            if ((run.voters & quorums.bit(acceptor)) == 0) rc.send(acceptor, accept);
        }
    }

    /**
     * Arms the retry timer for the run due first (a resend interval after it was last sent, or its
     * straggler deadline, or the unreported runs' deadline), not a fixed period: with a period, a run sent just after a tick waited
     * almost two intervals. Re-arming replaces the deadline, so an earlier one moves the timer up.
     */
    private void armRetry() {
        if (runs.isEmpty() && report == null && holdDueAt == Long.MAX_VALUE) return;
        long due = Math.min(report == null ? Long.MAX_VALUE : report.dueAt, holdDueAt);
        for (Run run : runs.values()) due = Math.min(due, run.dueAt);
        if (due >= retryArmedFor) return;
        retryArmedFor = due;
        rc.schedule(Math.max(1, due - rc.now()), RETRY);
    }

    long retriesSent() {
        return retries.count();
    }

    int runsInProgress() {
        return runs.size();
    }

    String describe() {
        return "proxy runs=" + runs.size() + (toAnnounce.isEmpty() ? "" : " unannounced=" + toAnnounce.size()) + (report == null ? "" : " unreported=" + report.count);
    }
}
