package io.tandem.protocols.copilot;

import java.util.Arrays;
import java.util.List;

/**
 * The pure decisions of Copilot, apart from the engine so that they can be tested on their own and so
 * that tests can plant a deliberately wrong one (a broken twin) without touching the engine: quorum
 * sizes, the compatibility check, the slow-path dependency, recovery value picking and the combined
 * execution order. Stateless; {@link #STANDARD} is the correct set.
 */
class CopilotRules {
    static final CopilotRules STANDARD = new CopilotRules();

    /** Read access to one replica's slots, for the checks that look across a log. */
    interface Slots {
        /** The slot, or null if this replica knows nothing of it. */
        Slot get(int log, long index);
    }

    /** f of a group of {@code n = 2f + 1}. */
    static int faults(int n) {
        return (n - 1) / 2;
    }

    /** FQ = f + ⌊(f+1)/2⌋, counting the proposing pilot (§1, table). */
    int fastQuorum(int n) {
        int f = faults(n);
        return f + (f + 1) / 2;
    }

    /** SQ = f + 1, a majority. */
    int slowQuorum(int n) {
        return faults(n) + 1;
    }

    /**
     * The compatibility check of §3.4 for a FastAccept of {@code log.slot} with dependency {@code dep}:
     * it fails iff this replica already processed a later entry {@code O.k} of the other log
     * ({@code k > dep}) whose vouched dependency is below {@code slot} (⊥ included). Such an entry is
     * ordered neither before nor after the proposal, so replicas holding different subsets of the two
     * logs could run the pair in different orders. Earlier O entries are before the proposal by its
     * dependency, and a later O entry that arrives afterwards is checked against this one when it does.
     */
    boolean compatible(int log, long slot, long dep, Slots slots, long otherHighest) {
        return compatible(log, slot, dep, slots, otherHighest, 0);
    }

    /**
     * The compatibility check on a replica that compacted the other log below {@code otherCompactedBelow}:
     * a compacted entry above the proposal's dependency is one this replica processed and can no
     * longer read, so such a proposal counts as incompatible. Failing the check is always safe (the
     * replica only suggests a later dependency, the slow path decides), passing it without looking is
     * not: the compacted entry ran here and may have run ahead of the proposal with a dependency below
     * it. It happens only for a pilot more than the retention behind this replica.
     */
    boolean compatible(int log, long slot, long dep, Slots slots, long otherHighest, long otherCompactedBelow) {
        if (dep + 1 < otherCompactedBelow) return false;
        int other = 1 - log;
        for (long k = Math.max(0, dep + 1); k <= otherHighest; k++) {
            Slot s = slots.get(other, k);
            if (s == null) continue;
            if (s.vouched() && s.vouchedDep < slot) return false;
            if (s.voteLost && !s.committed()) return false; // a vote with any dependency, ⊥ included, may have been sent
        }
        return true;
    }

    /**
     * The final dependency of the slow path (§3.5): the (f+1)-th smallest of the dependencies in the
     * replies (agreements count as the initial one, the pilot's own included). Large enough that by
     * quorum intersection the entry follows every other-log entry that may already have executed,
     * small enough not to make needless cycles.
     */
    long slowPathDependency(long[] replyDeps, int n) {
        long[] sorted = replyDeps.clone();
        Arrays.sort(sorted);
        return sorted[faults(n)];
    }

    /**
     * The ballot of a takeover of a slot whose highest known ballot is {@code above}, by member
     * {@code self}, while the log's current view has default ballot {@code current}: in the newer of
     * the two views (an older one would be refused by every member that promised the current view),
     * strictly higher than {@code above} (a Prepare at a ballot already promised would let two
     * proposers share it) and above round 0, which belongs to the view's pilot and its fast path.
     */
    Ballot takeoverBallot(Ballot above, Ballot current, int self) {
        Ballot base = Ballot.max(above, current);
        return new Ballot(base.view(), Math.max(1, base.round() + 1), self);
    }

    /**
     * The slot a new pilot of a log starts proposing at (§3.10 [rec]): after the highest slot any
     * member of the majority that promised its view knows of, so that every slot anyone can have
     * chosen in an older view is recovered, never reused. ({@code highest} holds one value per member
     * that promised, the candidate's own included.)
     */
    long viewStartSlot(long[] highest) {
        long max = -1;
        for (long h : highest) max = Math.max(max, h);
        return max + 1;
    }

    /**
     * The first slot of a log kept after a snapshot whose cursor in that log is {@code snapshotCursor}
     * (execution here is at {@code cursor}, at or past it): {@code retention} executed slots stay
     * behind the snapshot for peers a little behind. Never above the snapshot's cursor: a slot above
     * it has not run in the snapshot a restart starts from (and perhaps not here), and compacting it
     * would lose a vote or a commit nobody else may hold.
     */
    long compactionPoint(long snapshotCursor, long cursor, long retention) {
        return Math.max(0, Math.min(snapshotCursor, cursor) - retention);
    }

    /**
     * Whether compaction under a snapshot whose cursor in the other log is {@code otherCursor} keeps
     * slot {@code s} (committed, it ran here), and with it every slot above it, for peers that run the
     * two logs in another interleaving ({@link CopilotEngine#firstRunAhead}). Kept while the snapshot
     * has not run an other-log slot that a peer may have run before {@code s}: one {@code s} depends on
     * ({@code dep}: it ran here ahead of it by null-dependency elimination, §4.2, or a cycle), or the
     * other log's head it ran ahead of without knowing it to be ordered after it ({@link Slot#ranBefore}).
     * Keeping a slot is always safe (compaction is optional); this decides only liveness. A seam for a
     * test twin.
     */
    boolean keptForPeers(Slot s, long otherCursor) {
        return s.committed() && (s.dep >= otherCursor || s.ranBefore >= otherCursor);
    }

    /**
     * The session table execution goes on with after resuming from snapshot checkpoint {@code c}
     * (installed from a peer, or a restart): the checkpoint's own, so that this replica skips exactly
     * the copies of commands every other replica skips at the same place. A seam for a test twin.
     */
    ExecutedCommands sessionsAfter(Checkpoint c) {
        return c.sessions();
    }

    /**
     * A member's place in the queue of candidates for a log whose pilot it has not heard from (§3.10,
     * {@link PilotElection}), for a member that pilots neither log: members in index order after the
     * log's pilot (as its established view names it), skipping the other log's pilot; -1 to not stand.
     *
     * <p>A member that the log's established view names ({@code self == pilotOfLog}) but that reaches
     * this point holds no pilot role: it promised a newer view of that log to a candidacy whose election
     * then failed (its replies were lost). It is not a live pilot, and it stands first. Skipping it as
     * "the failed pilot" left logs with nobody standing (seed 1649 of the mix, 3 nodes, 51 % message
     * loss for 3 s: every member in that state or skipping such a member as the other pilot, every
     * node up; {@code CopilotViewChangeTest.aMemberNamedByItsViewButWithoutTheRoleStands}). A member
     * named by the other log's view stands for that log, never this one, so it never runs for both at
     * once. Safe as any candidacy: the promises of a majority decide a view, not who stands.
     */
    int candidateRank(int n, int self, int pilotOfLog, int pilotOfOther) {
        if (self == pilotOfOther) return -1; // named by the other log: it stands for that one
        if (self == pilotOfLog) return 0; // named, not piloting: see above
        int rank = 0;
        for (int i = 1; i < n; i++) {
            int m = (pilotOfLog + i) % n;
            if (m == pilotOfOther) continue;
            if (m == self) return rank;
            rank++;
        }
        return -1;
    }

    /** Promises a candidate needs before it establishes its view (§3.10): a majority, its own included. */
    int viewQuorum(int n) {
        return slowQuorum(n);
    }

    /**
     * The first slot a pilot proposes fresh commands at: at the start of its view or above, and above
     * every slot of its log it holds (a pilot reserves slots durably before it sends anything for
     * them, and replay counts the reserved slots as held, so after a restart it resumes above every
     * slot it ever proposed, even one whose FastAccept left before its own vote was durable). {@code executed} (the first slot not yet
     * executed here) and {@code elected} (the pilot was just elected, not restarted) are for test twins.
     */
    long pilotFirstSlot(long viewStart, long highestHere, long executed, boolean elected) {
        return Math.max(viewStart, highestHere + 1);
    }

    /** The slot of a pilot's next proposal: its next slot, or above every slot of its log it has seen, the higher. */
    long proposalSlot(long next, long highestHere) {
        return Math.max(next, highestHere + 1);
    }

    /** One replica's answer to a Prepare, as recovery needs it. */
    record Vote(int node, Status status, Ballot accepted, List<Command> cmds, long dep) {}

    /** What a takeover does with the Prepare answers it has. */
    sealed interface Pick {
        /** Someone saw the decision: re-broadcast it. */
        record Decided(List<Command> cmds, long dep) implements Pick {}

        /** Accept this value at the takeover's ballot. */
        record Propose(List<Command> cmds, long dep) implements Pick {}

        /** Not enough is known yet: wait for more answers (or retry at a higher ballot). */
        record Wait(String why) implements Pick {}
    }

    /**
     * Recovery value picking (§3.9) for a slot, from the answers of at least a majority ({@code votes})
     * out of {@code n} members. Only the answers at the highest ballot anyone accepted at count (Paxos:
     * whatever was chosen at a lower ballot is what every proposal at a higher one carries).
     *
     * <ol>
     *   <li>A committed answer is the decision.</li>
     *   <li>An accepted answer at that ballot may have been chosen at it: keep it.</li>
     *   <li>Otherwise that ballot is the default ballot of some view, {@code (view, 0, pilot)}, and
     *       only fast-accepts were made at it. Count the members that certainly fast-accepted the
     *       value: the fast-accepted answers, plus the pilot itself when it did not answer. The pilot
     *       sends its FastAccept before its own vote is durable (Raft's leader does the same), but it
     *       acts as if it had voted whether or not the vote survived: it holds the vote in memory from
     *       before the FastAccept leaves, and after a restart it treats every slot it had reserved and
     *       holds no vote for as a vote with dependency ⊥ ({@link Slot#voteLost}) until the slot
     *       commits, so its compatibility answers never contradict the vote counted here. If f+1 of
     *       them did, keeping the value with its initial dependency is safe (a majority passed the
     *       compatibility check, so no conflicting other-log entry can have committed with a
     *       dependency below it) and required if it was fast-committed. A pilot that answers without
     *       a vote lost it in a crash, and then it had not counted itself either (its own agreement
     *       counts only once its vote is durable), so it is not counted.</li>
     *   <li>Else, if even counting every member that did not answer as a fast-accept the fast quorum
     *       cannot be reached, nothing was chosen: commit a no-op with dependency ⊥.</li>
     *   <li>Else the answers cannot tell (the paper's case 4): wait for more of them.</li>
     * </ol>
     * A fast-accept at an older view's default ballot below an accepted or fast-accepted value of a
     * newer view cannot have been chosen: the newer view's pilot proposes fresh values only above
     * every slot a majority knew when it promised that view (see {@link #viewStartSlot}).
     */
    Pick pickRecovery(List<Vote> votes, int n) {
        Ballot top = Ballot.NONE;
        for (Vote v : votes) {
            if (v.status() == Status.COMMITTED) return new Pick.Decided(v.cmds(), v.dep());
            if (v.status().atLeast(Status.PRE_ACCEPTED) && v.accepted().greaterThan(top)) top = v.accepted();
        }
        for (Vote v : votes) {
            if (v.status() == Status.ACCEPTED && v.accepted().equals(top)) return new Pick.Propose(v.cmds(), v.dep());
        }
        int pilot = top.node();
        boolean pilotAnswered = false;
        int fast = 0;
        Vote value = null;
        for (Vote v : votes) {
            if (v.node() == pilot) pilotAnswered = true;
            if (v.status() == Status.FAST_ACCEPTED && v.accepted().equals(top) && top.isInitial()) {
                fast++;
                value = v;
            }
        }
        int certain = fast + (!pilotAnswered && value != null ? 1 : 0);
        if (certain >= slowQuorum(n)) return new Pick.Propose(value.cmds(), value.dep());
        int unanswered = n - votes.size();
        if (fast + unanswered < fastQuorum(n)) return new Pick.Propose(List.of(), Slot.NO_DEP);
        return new Pick.Wait(fast + " fast-accepts among " + votes.size() + " answers: the slot may have been fast-committed");
    }

    /** What the combined order does next (§3.7 HEAD-MERGE). */
    enum Step { RUN_PILOT, RUN_COPILOT, BLOCKED }

    /**
     * One step of HEAD-MERGE at cursor {@code (a, b)}: {@code x = 0.a}, {@code y = 1.b}. An entry is
     * ready when it is committed and everything it needs from the other log has run. With both heads
     * committed and neither ready they depend on each other (a cycle): the pilot's entry goes first.
     * With null-dependency elimination (§4.2) a committed head may also run ahead of uncommitted
     * other-log entries up to its dependency when none of them can change the state.
     *
     * <p>Only the two heads and the entries between the other cursor and a head's dependency are
     * looked at, never anything further, which is what makes every replica compute the same order
     * whatever subset of commits it has seen (the "any cycle" reading of the paper diverges, §3.7).
     */
    Step next(long a, long b, Slots slots, boolean nullDepElimination, NullCheck isNull) {
        Slot x = slots.get(0, a);
        Slot y = slots.get(1, b);
        boolean xc = x != null && x.committed();
        boolean yc = y != null && y.committed();
        if (xc && x.dep < b) return Step.RUN_PILOT;
        if (yc && y.dep < a) return Step.RUN_COPILOT;
        if (xc && yc) return Step.RUN_PILOT;
        if (nullDepElimination) {
            if (xc && isNull.allNull(1, b, x.dep, x.depView)) return Step.RUN_PILOT;
            if (yc && isNull.allNull(0, a, y.dep, y.depView)) return Step.RUN_COPILOT;
        }
        return Step.BLOCKED;
    }

    /** Whether slots {@code from..to} of {@code log} can change nothing when they run (§4.2), for an entry whose dependency was taken in view {@code depView}. */
    interface NullCheck {
        boolean allNull(int log, long from, long to, int depView);
    }
}
