package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;
import io.tandem.sim.SimCluster;
import io.tandem.sim.SimInvariant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Raft's safety properties (Figure 3 of the Raft paper) as simulator invariants, checked after
 * every step of a run. They remember what they saw earlier in the run, so {@link #create()} gives
 * a fresh set per run. Each check is incremental: it looks at what changed since the last step.
 */
final class RaftInvariants {
    private RaftInvariants() {}

    static List<SimInvariant> create() {
        Observed observed = new Observed();
        return List.of(
                SimInvariant.of("raft-election-safety", observed::electionSafety),
                SimInvariant.of("raft-log-matching", observed::logMatching),
                SimInvariant.of("raft-leader-completeness", observed::leaderCompleteness),
                SimInvariant.of("raft-committed-entries-agree", observed::committedEntriesAgree),
                SimInvariant.of("raft-monotonic-commit", observed::monotonicCommit));
    }

    /**
     * The slowness detector stays quiet: no warning of any kind except {@code tolerated} ones. Used
     * to check that a healthy or slow-minority run raises nothing, and that the broken fail-slow
     * engines are caught.
     */
    static SimInvariant noSlownessWarnings(java.util.Set<String> tolerated) {
        return SimInvariant.of("raft-no-slowness-warning", c -> {
            for (NodeId n : c.members()) {
                Optional<RaftEngine> e = c.engine(n, RaftEngine.class);
                if (e.isEmpty()) continue;
                for (Map.Entry<String, Long> w : e.get().slownessWarningsByKind().entrySet()) {
                    if (!tolerated.contains(w.getKey())) return Optional.of(n + " raised " + w.getValue() + " '" + w.getKey() + "' slowness warning(s)");
                }
            }
            return Optional.empty();
        });
    }

    /** Everything the invariants of one run remember. */
    private static final class Observed {
        /** §5.2 Election Safety: the leader of each term ever seen. */
        private final Map<Long, NodeId> leaderOfTerm = new HashMap<>();
        /** The payload of each (index, term) ever seen in any log: a leader creates one entry per index in its term. */
        private final Map<Long, Map<Long, byte[]>> entryAt = new HashMap<>();
        /** Per engine instance: up to which index its log was checked, and the term there then. */
        private final Map<RaftEngine, long[]> checkedUpTo = new IdentityHashMap<>();
        /**
         * Every entry some node considered committed: index to {entry term, term in which it was first
         * seen committed}. The first node to see an index committed is the leader that committed it.
         */
        private final TreeMap<Long, long[]> committed = new TreeMap<>();
        /** Per engine instance (the commit index is volatile, so it restarts with the engine): last commit seen. */
        private final Map<RaftEngine, Long> lastCommit = new IdentityHashMap<>();
        /** Per engine instance: up to which index its committed entries were recorded. */
        private final Map<RaftEngine, Long> committedChecked = new IdentityHashMap<>();
        /** Per engine instance: the term in which it was last checked as a new leader. */
        private final Map<RaftEngine, Long> checkedLeaderTerm = new IdentityHashMap<>();

        private static Optional<RaftEngine> raft(SimCluster c, NodeId n) {
            return c.engine(n, RaftEngine.class);
        }

        /** At most one leader per term, over the whole run (§5.2). */
        Optional<String> electionSafety(SimCluster c) {
            for (NodeId n : c.members()) {
                Optional<RaftEngine> e = raft(c, n);
                if (e.isEmpty() || e.get().role() != RaftEngine.Role.LEADER) continue;
                NodeId previous = leaderOfTerm.putIfAbsent(e.get().currentTerm(), n);
                if (previous != null && !previous.equals(n)) {
                    return Optional.of(previous + " and " + n + " were both leaders of term " + e.get().currentTerm());
                }
            }
            return Optional.empty();
        }

        /**
         * Log Matching (§5.3): an index and a term identify one entry. Checked on every node's new or
         * rewritten suffix; entries up to a node's commit index never change, so a rewrite is looked for
         * from there.
         */
        Optional<String> logMatching(SimCluster c) {
            for (NodeId n : c.members()) {
                Optional<RaftEngine> opt = raft(c, n);
                if (opt.isEmpty()) continue;
                RaftEngine e = opt.get();
                long[] checked = checkedUpTo.computeIfAbsent(e, k -> new long[] {e.baseIndex(), 0});
                long from = checked[0];
                if (from > e.lastIndex() || (from >= e.firstIndex() && e.termAt(from) != checked[1])) {
                    from = Math.min(e.commitIndex(), e.lastIndex()); // the suffix was truncated or rewritten
                }
                from = Math.max(from, e.firstIndex() - 1);
                // Terms never decrease along a log, from its snapshot base on: every log is a prefix of some
                // leader's, and a leader appends only in its own, newest term (§5.3, §7). Checked at the base
                // on every step, since an install moves the base under entries already checked.
                if (e.lastIndex() >= e.firstIndex() && e.termAt(e.firstIndex()) < e.termAt(e.baseIndex())) {
                    return Optional.of(n + "'s log goes back from term " + e.termAt(e.baseIndex()) + " at its snapshot base " + e.baseIndex()
                            + " to term " + e.termAt(e.firstIndex()) + " at index " + e.firstIndex());
                }
                for (long i = from + 1; i <= e.lastIndex(); i++) {
                    long term = e.termAt(i);
                    if (term < e.termAt(i - 1)) {
                        return Optional.of(n + "'s log goes back from term " + e.termAt(i - 1) + " at index " + (i - 1) + " to term " + term + " at index " + i);
                    }
                    byte[] payload = e.payloadAt(i);
                    byte[] seen = entryAt.computeIfAbsent(i, k -> new HashMap<>()).putIfAbsent(term, payload);
                    if (seen != null && !Arrays.equals(seen, payload)) {
                        return Optional.of(n + " holds a different entry at index " + i + " term " + term + " than another log did");
                    }
                }
                checked[0] = e.lastIndex();
                checked[1] = e.termAt(e.lastIndex());
            }
            return Optional.empty();
        }

        /** No two nodes consider different entries committed at one index (§5.4.3, State Machine Safety at the log). */
        Optional<String> committedEntriesAgree(SimCluster c) {
            for (NodeId n : c.members()) {
                Optional<RaftEngine> opt = raft(c, n);
                if (opt.isEmpty()) continue;
                RaftEngine e = opt.get();
                long upTo = Math.min(e.commitIndex(), e.lastIndex());
                long from = Math.max(committedChecked.getOrDefault(e, e.baseIndex()), e.firstIndex() - 1);
                if (upTo > from) committedChecked.put(e, upTo);
                for (long i = from + 1; i <= upTo; i++) {
                    long term = e.termAt(i);
                    long[] known = committed.putIfAbsent(i, new long[] {term, e.currentTerm()});
                    if (known != null && known[0] != term) {
                        return Optional.of(n + " committed index " + i + " with term " + term + " but it was committed with term " + known[0] + " before");
                    }
                }
            }
            return Optional.empty();
        }

        /** Leader Completeness (§5.4): a leader holds every entry committed in an earlier term. */
        Optional<String> leaderCompleteness(SimCluster c) {
            for (NodeId n : c.members()) {
                Optional<RaftEngine> opt = raft(c, n);
                if (opt.isEmpty() || opt.get().role() != RaftEngine.Role.LEADER) continue;
                RaftEngine e = opt.get();
                Long checkedTerm = checkedLeaderTerm.put(e, e.currentTerm());
                if (checkedTerm != null && checkedTerm == e.currentTerm()) continue; // checked when it became leader
                for (Map.Entry<Long, long[]> c2 : committed.tailMap(e.baseIndex(), false).entrySet()) {
                    long index = c2.getKey();
                    long entryTerm = c2.getValue()[0];
                    if (c2.getValue()[1] < e.currentTerm() && e.termAt(index) != entryTerm) {
                        return Optional.of("leader " + n + " of term " + e.currentTerm() + " has term " + e.termAt(index) + " at index " + index
                                + ", committed in term " + c2.getValue()[1] + " with entry term " + entryTerm);
                    }
                }
            }
            return Optional.empty();
        }

        /** A node's commit index never decreases while it runs (it is volatile: a restart starts from the snapshot). */
        Optional<String> monotonicCommit(SimCluster c) {
            for (NodeId n : c.members()) {
                Optional<RaftEngine> opt = raft(c, n);
                if (opt.isEmpty()) continue;
                RaftEngine e = opt.get();
                Long previous = lastCommit.put(e, e.commitIndex());
                if (previous != null && e.commitIndex() < previous) {
                    return Optional.of(n + " commit index went back from " + previous + " to " + e.commitIndex());
                }
            }
            return Optional.empty();
        }
    }
}
