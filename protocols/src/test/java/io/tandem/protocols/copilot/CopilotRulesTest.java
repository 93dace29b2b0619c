package io.tandem.protocols.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The pure decisions of Copilot (copilot.md §8.1): quorums, compatibility, slow-path dependency, recovery picking and HEAD-MERGE. */
class CopilotRulesTest {
    private final CopilotRules rules = CopilotRules.STANDARD;

    /** A replica's slots, filled by hand. */
    private static final class Logs implements CopilotRules.Slots {
        final Map<Long, Slot>[] slots = newMaps();

        @SuppressWarnings("unchecked")
        private static Map<Long, Slot>[] newMaps() {
            return new Map[] {new HashMap<Long, Slot>(), new HashMap<Long, Slot>()};
        }

        @Override
        public Slot get(int log, long index) {
            return slots[log].get(index);
        }

        Slot put(int log, long index, Status status, long dep) {
            Slot s = new Slot(log, index);
            s.status = status;
            s.dep = s.vouchedDep = dep;
            s.cmds = List.of(cmd(log, index));
            slots[log].put(index, s);
            return s;
        }
    }

    private static Command cmd(int log, long slot) {
        return new Command(NodeId.of("n" + (log + 1)), slot + 1, new ClientRequest.Session(7, slot + 1), new byte[] {(byte) slot}, false);
    }

    @Test
    void quorumSizesFollowTheTable() {
        assertThat(List.of(3, 5, 7, 9).stream().map(rules::fastQuorum).toList()).containsExactly(2, 3, 5, 6);
        assertThat(List.of(3, 5, 7, 9).stream().map(rules::slowQuorum).toList()).containsExactly(2, 3, 4, 5);
    }

    @Test
    void compatibilityCheckTables() {
        Logs r = new Logs();
        // Nothing later known: pass.
        assertThat(rules.compatible(0, 4, 2, r, 2)).isTrue();
        // A later other-log slot whose dependency is at or above the proposal: it is already after it.
        r.put(1, 3, Status.FAST_ACCEPTED, 4);
        assertThat(rules.compatible(0, 4, 2, r, 3)).isTrue();
        // A later slot below the proposal: ordered neither way, fail.
        r.put(1, 5, Status.PRE_ACCEPTED, 3);
        assertThat(rules.compatible(0, 4, 2, r, 5)).isFalse();
        // Proposing a dependency that covers it passes again.
        assertThat(rules.compatible(0, 4, 5, r, 5)).isTrue();
        // A later slot with dependency ⊥ fails, and so does a ⊥ proposal against any known ⊥ slot.
        Logs bottom = new Logs();
        bottom.put(1, 0, Status.FAST_ACCEPTED, Slot.NO_DEP);
        assertThat(rules.compatible(0, 0, Slot.NO_DEP, bottom, 0)).isFalse();
        // A slot only promised (never processed) does not count.
        Logs promised = new Logs();
        promised.put(1, 1, Status.NONE, Slot.NO_DEP);
        assertThat(rules.compatible(0, 3, 0, promised, 1)).isTrue();
    }

    /** §3.6: P.0 and P'.0 both proposed with ⊥; whoever arrives second at a replica is rejected with a suggestion. */
    @Test
    void theWorkedExampleOfSection3_6() {
        Logs r2 = new Logs();
        assertThat(rules.compatible(0, 0, Slot.NO_DEP, r2, -1)).isTrue();
        r2.put(0, 0, Status.FAST_ACCEPTED, Slot.NO_DEP);
        assertThat(rules.compatible(1, 0, Slot.NO_DEP, r2, 0)).isFalse(); // suggests 0 (its latest P entry)
        // P'.0 gathers ⊥ (P', R4) and 0 (P, R2, R3): the 3rd smallest is 0.
        assertThat(rules.slowPathDependency(new long[] {-1, -1, 0, 0, 0}, 5)).isEqualTo(0);
    }

    @Test
    void slowPathDependencyIsTheFPlusFirstSmallestAndNeverBelowTheInitialOne() {
        assertThat(rules.slowPathDependency(new long[] {3, 9, 7}, 3)).isEqualTo(7);
        assertThat(rules.slowPathDependency(new long[] {3, 9}, 3)).isEqualTo(9);
        assertThat(rules.slowPathDependency(new long[] {3, 3, 3, 8, 4}, 5)).isEqualTo(3);
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 1000; i++) {
            int n = 3 + 2 * random.nextInt(3);
            int replies = rules.slowQuorum(n) + random.nextInt(n - rules.slowQuorum(n) + 1);
            long initial = random.nextLong(-1, 20);
            long[] deps = new long[replies];
            for (int k = 0; k < replies; k++) deps[k] = random.nextBoolean() ? initial : initial + 1 + random.nextLong(10);
            assertThat(rules.slowPathDependency(deps, n)).isGreaterThanOrEqualTo(initial);
        }
    }

    @Test
    void takeoverBallotsAreAboveTheInitialRoundAndAnyPromise() {
        assertThat(rules.takeoverBallot(Ballot.initial(0), Ballot.initial(0), 1)).isEqualTo(new Ballot(0, 1, 1));
        assertThat(rules.takeoverBallot(Ballot.NONE, Ballot.initial(1), 0).greaterThan(Ballot.initial(1))).isTrue();
        assertThat(rules.takeoverBallot(new Ballot(0, 3, 0), Ballot.initial(0), 1)).isEqualTo(new Ballot(0, 4, 1));
        assertThat(new Ballot(0, 1, 0).greaterThan(Ballot.initial(0))).isTrue();
        // In the current view when the slot's ballot is older: members that promised that view refuse older ones.
        assertThat(rules.takeoverBallot(new Ballot(0, 7, 2), Ballot.of(5, 0), 1)).isEqualTo(new Ballot(5, 1, 1));
        // A newer view outranks every round of an older one.
        assertThat(Ballot.of(5, 0).greaterThan(new Ballot(2, 99, 4))).isTrue();
    }

    @Test
    void aNewViewStartsAboveEverySlotItsMajorityKnows() {
        assertThat(rules.viewStartSlot(new long[] {4, 9, -1})).isEqualTo(10);
        assertThat(rules.viewStartSlot(new long[] {-1, -1})).isZero();
        assertThat(rules.viewQuorum(5)).isEqualTo(3);
        assertThat(rules.pilotFirstSlot(10, 3, 0, true)).isEqualTo(10);
        assertThat(rules.pilotFirstSlot(10, 12, 0, false)).isEqualTo(13);
    }

    /**
     * Across views (§3.10): only the answers at the highest ballot count. A fast-accepted value of a
     * newer view outranks an older view's accepted one; fast-accepts of an older view under a newer
     * view's value are ignored; a newer view's fast-accepts are counted with that view's pilot.
     */
    @Test
    void recoveryOnlyCountsTheHighestBallotAcrossViews() {
        List<Command> old = List.of(cmd(1, 1)), fresh = List.of(cmd(2, 2));
        Ballot newView = Ballot.of(7, 2); // view 7 of a five-member group: member 2 pilots
        List<CopilotRules.Vote> votes = List.of(
                new CopilotRules.Vote(0, Status.ACCEPTED, new Ballot(0, 3, 1), old, 5),
                new CopilotRules.Vote(2, Status.FAST_ACCEPTED, newView, fresh, 4),
                new CopilotRules.Vote(3, Status.FAST_ACCEPTED, newView, fresh, 4),
                new CopilotRules.Vote(4, Status.FAST_ACCEPTED, newView, fresh, 4));
        assertThat(rules.pickRecovery(votes, 5)).isEqualTo(new CopilotRules.Pick.Propose(fresh, 4));
        // Two fast-accepts of view 7, its pilot among them: with one member silent it may have been fast-committed.
        assertThat(rules.pickRecovery(votes.subList(0, 3), 5)).isInstanceOf(CopilotRules.Pick.Wait.class);
        // The old view's fast-accepts under view 7's do not count towards keeping the old value.
        List<CopilotRules.Vote> mixed = List.of(
                new CopilotRules.Vote(0, Status.FAST_ACCEPTED, Ballot.initial(0), old, 3),
                new CopilotRules.Vote(1, Status.FAST_ACCEPTED, Ballot.initial(0), old, 3),
                new CopilotRules.Vote(3, Status.PRE_ACCEPTED, newView, fresh, 6),
                new CopilotRules.Vote(4, Status.NONE, Ballot.NONE, null, -1),
                new CopilotRules.Vote(2, Status.NONE, Ballot.NONE, null, -1));
        assertThat(rules.pickRecovery(mixed, 5)).isEqualTo(new CopilotRules.Pick.Propose(List.of(), -1));
    }

    /**
     * Exhaustive for N = 3 and 5: every combination of what each member did with the pilot's
     * FastAccept (nothing, rejected, fast-accepted; the pilot itself fast-accepts when it proposed at
     * all) and every set of at least f+1 responders. A no-op may be picked only if the value cannot
     * have been fast-committed; keeping the value needs f+1 real fast-accepts; with every member
     * answering the pick is never left open.
     */
    @Test
    void recoveryPickingAgreesWithABruteForceOracle() {
        for (int n : new int[] {3, 5}) {
            int states = (int) Math.pow(3, n - 1);
            for (int code = 0; code < states; code++) {
                Status[] truth = new Status[n];
                truth[0] = Status.FAST_ACCEPTED; // member 0 is the pilot of log 0
                int c = code;
                for (int m = 1; m < n; m++) {
                    truth[m] = new Status[] {Status.NONE, Status.PRE_ACCEPTED, Status.FAST_ACCEPTED}[c % 3];
                    c /= 3;
                }
                int fastAccepts = 0;
                for (Status s : truth) if (s == Status.FAST_ACCEPTED) fastAccepts++;
                boolean mayHaveCommitted = fastAccepts >= rules.fastQuorum(n);
                for (int mask = 1; mask < (1 << n); mask++) {
                    if (Integer.bitCount(mask) < rules.slowQuorum(n)) continue;
                    List<CopilotRules.Vote> votes = new ArrayList<>();
                    for (int m = 0; m < n; m++) {
                        if ((mask & (1 << m)) == 0) continue;
                        Status s = truth[m];
                        votes.add(new CopilotRules.Vote(m, s, s == Status.NONE ? Ballot.NONE : Ballot.initial(0), s == Status.NONE ? null : List.of(cmd(0, 0)),
                                s == Status.FAST_ACCEPTED ? 4 : s == Status.PRE_ACCEPTED ? 6 : -1));
                    }
                    CopilotRules.Pick pick = rules.pickRecovery(votes, n);
                    String what = "n=" + n + " truth=" + java.util.Arrays.toString(truth) + " responders=" + Integer.toBinaryString(mask) + " -> " + pick;
                    switch (pick) {
                        case CopilotRules.Pick.Propose p when p.cmds().isEmpty() -> assertThat(mayHaveCommitted).as(what).isFalse();
                        case CopilotRules.Pick.Propose p -> {
                            assertThat(p.dep()).as(what).isEqualTo(4);
                            assertThat(fastAccepts).as(what).isGreaterThanOrEqualTo(rules.slowQuorum(n));
                        }
                        case CopilotRules.Pick.Wait w -> assertThat(Integer.bitCount(mask)).as(what).isLessThan(n);
                        case CopilotRules.Pick.Decided d -> throw new AssertionError(what);
                    }
                }
            }
        }
    }

    @Test
    void recoveryKeepsAnAcceptedValueOfTheHighestBallotAndAdoptsACommit() {
        List<Command> a = List.of(cmd(1, 3)), b = List.of();
        List<CopilotRules.Vote> votes = List.of(
                new CopilotRules.Vote(0, Status.ACCEPTED, new Ballot(1, 1, 0), a, 5),
                new CopilotRules.Vote(2, Status.ACCEPTED, new Ballot(1, 2, 0), b, -1),
                new CopilotRules.Vote(3, Status.FAST_ACCEPTED, Ballot.initial(1), a, 2));
        assertThat(rules.pickRecovery(votes, 5)).isEqualTo(new CopilotRules.Pick.Propose(b, -1));
        List<CopilotRules.Vote> withCommit = new ArrayList<>(votes);
        withCommit.add(new CopilotRules.Vote(4, Status.COMMITTED, Ballot.initial(1), a, 7));
        assertThat(rules.pickRecovery(withCommit, 5)).isEqualTo(new CopilotRules.Pick.Decided(a, 7));
    }

    // ---- HEAD-MERGE (§3.7) ----

    /** Runs HEAD-MERGE over what {@code known} holds; returns the slots run, as "log.slot". */
    private List<String> merge(Logs known, long[] cursor, List<String> out) {
        while (true) {
            CopilotRules.Step step = rules.next(cursor[0], cursor[1], known, false, (l, f, t, v) -> false);
            if (step == CopilotRules.Step.BLOCKED) return out;
            int log = step == CopilotRules.Step.RUN_PILOT ? 0 : 1;
            out.add(log + "." + cursor[log]);
            cursor[log]++;
        }
    }

    /** §3.7's counterexample: a replica that has not seen 0.1 committed must still run the same order as one that has. */
    @Test
    void theCounterexampleOfSection3_7RunsTheSameOrderWithPartialKnowledge() {
        Logs all = new Logs();
        all.put(0, 0, Status.COMMITTED, 1);
        all.put(1, 0, Status.COMMITTED, 0);
        all.put(1, 1, Status.COMMITTED, 1);
        all.put(0, 1, Status.COMMITTED, 1);
        List<String> full = merge(all, new long[2], new ArrayList<>());
        Logs partial = new Logs();
        partial.put(0, 0, Status.COMMITTED, 1);
        partial.put(1, 0, Status.COMMITTED, 0);
        partial.put(1, 1, Status.COMMITTED, 1);
        long[] cursor = new long[2];
        List<String> order = merge(partial, cursor, new ArrayList<>());
        partial.put(0, 1, Status.COMMITTED, 1);
        merge(partial, cursor, order);
        assertThat(full).containsExactly("0.0", "1.0", "0.1", "1.1");
        assertThat(order).isEqualTo(full);
    }

    /**
     * Random pairs of committed logs that satisfy the cross-log invariant (deps from a hidden total
     * order, some raised to make cycles, some slots no-ops with ⊥), revealed to a replica in random
     * orders: every replica runs the same order, and it respects every one-way dependency.
     */
    @Test
    void everyArrivalOrderOfCommitsGivesTheSameCombinedOrder() {
        SplittableRandom random = new SplittableRandom(19);
        for (int round = 0; round < 300; round++) {
            int total = 2 + random.nextInt(24);
            List<long[]> entries = new ArrayList<>(); // {log, slot, dep}
            long[] next = new long[2];
            for (int i = 0; i < total; i++) {
                int log = random.nextInt(2);
                long dep = next[1 - log] - 1; // everything of the other log so far
                if (random.nextInt(4) == 0) dep += 1 + random.nextInt(3); // reach forward: a possible cycle
                entries.add(new long[] {log, next[log]++, dep});
            }
            // The deps that reach forward must point at slots that exist... or not: a dep beyond the end only blocks.
            Logs truth = new Logs();
            for (long[] e : entries) {
                boolean noop = random.nextInt(8) == 0;
                Slot s = truth.put((int) e[0], e[1], Status.COMMITTED, noop ? Slot.NO_DEP : e[2]);
                if (noop) s.cmds = List.of();
            }
            List<String> reference = merge(truth, new long[2], new ArrayList<>());
            for (int order = 0; order < 5; order++) {
                List<long[]> arrival = new ArrayList<>(entries);
                for (int i = arrival.size() - 1; i > 0; i--) java.util.Collections.swap(arrival, i, random.nextInt(i + 1));
                Logs replica = new Logs();
                long[] cursor = new long[2];
                List<String> ran = new ArrayList<>();
                for (long[] e : arrival) {
                    replica.slots[(int) e[0]].put(e[1], truth.get((int) e[0], e[1]));
                    merge(replica, cursor, ran);
                }
                // No-ops (recovered slots, dependency ⊥) may move when both heads are ready; they change nothing.
                assertThat(real(truth, ran)).as("round %d arrival %d", round, order).isEqualTo(real(truth, reference));
                assertThat(ran).as("every slot runs once").hasSameSizeAs(reference).doesNotHaveDuplicates();
            }
            // Dependency order is kept wherever it is not a cycle: an entry never runs before one it needs
            // (through dependencies and log order) unless that one needs it back.
            for (int i = 0; i < reference.size(); i++) {
                for (int j = i + 1; j < reference.size(); j++) {
                    Slot early = slotOf(truth, reference.get(i)), late = slotOf(truth, reference.get(j));
                    if (early.cmds.isEmpty() || late.cmds.isEmpty()) continue;
                    boolean cycle = needs(truth, late, early);
                    assertThat(needs(truth, early, late) && !cycle).as("round %d: %s ran before %s, which it needs", round, early, late).isFalse();
                }
            }
        }
    }

    /** Whether {@code a} needs {@code b} to run first: a path of dependencies and log order (no-ops need nothing across logs). */
    private static boolean needs(Logs logs, Slot a, Slot b) {
        java.util.ArrayDeque<Slot> todo = new java.util.ArrayDeque<>(List.of(a));
        java.util.Set<String> seen = new java.util.HashSet<>();
        while (!todo.isEmpty()) {
            Slot s = todo.poll();
            if (!seen.add(s.log + "." + s.index)) continue;
            if (s.index > 0) todo.add(logs.get(s.log, s.index - 1));
            for (long k = 0; k <= s.dep; k++) {
                Slot o = logs.get(1 - s.log, k);
                if (o != null) todo.add(o);
            }
            if (s != a && s == b) return true;
        }
        return seen.contains(b.log + "." + b.index) && a != b;
    }

    private static List<String> real(Logs logs, List<String> order) {
        return order.stream().filter(name -> !slotOf(logs, name).cmds.isEmpty()).toList();
    }

    private static Slot slotOf(Logs logs, String name) {
        String[] p = name.split("\\.");
        return logs.get(Integer.parseInt(p[0]), Long.parseLong(p[1]));
    }
}
