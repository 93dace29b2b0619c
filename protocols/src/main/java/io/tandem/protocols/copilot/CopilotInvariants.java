package io.tandem.protocols.copilot;

import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import io.tandem.sim.SimCluster;
import io.tandem.sim.SimInvariant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Copilot safety as simulator invariants, checked after every step. Engines created after the
 * invariants were asked for record their commits, proposals and deliveries; each check reads what is
 * new since its last look (per engine incarnation), so a run costs time linear in its events.
 *
 * <ul>
 *   <li>{@code copilot-committed-slots-agree}: no slot of either log is ever committed with two
 *       different values (batch and final dependency), by any replica, in any incarnation; so a
 *       takeover never changes a committed entry.</li>
 *   <li>{@code copilot-cross-log-order}: for two committed real entries {@code 0.i} and {@code 1.k},
 *       {@code dep(0.i) >= k} or {@code dep(1.k) >= i} (§5.3): every pair is ordered one way or the
 *       other, which is what makes the combined order the same at every replica.</li>
 *   <li>{@code copilot-ballot-never-reused}: no proposer (a pilot, a takeover, a new pilot, any of
 *       them restarted) ever sends two different values in the same phase of one slot at one ballot;
 *       so a restarted pilot never reuses a ballot.</li>
 *   <li>{@code copilot-executed-were-proposed}: every command executed was proposed by a pilot.</li>
 *   <li>{@code copilot-no-command-executed-twice}: no replica incarnation runs a command of a
 *       (client, sequence) for the first time twice, although both pilots order every command (a
 *       client's retry ordered again in the same log is handed to execution as a retry, and the
 *       session table answers it without applying it).</li>
 * </ul>
 * Agreement on the combined order itself (the same command at every index of every replica) is the
 * simulator's built-in state machine safety check.
 */
final class CopilotInvariants {
    private CopilotInvariants() {}

    static List<SimInvariant> create() {
        Observed o = new Observed();
        return List.of(
                SimInvariant.of("copilot-committed-slots-agree", o::check),
                SimInvariant.of("copilot-cross-log-order", c -> o.crossLog()),
                SimInvariant.of("copilot-ballot-never-reused", c -> o.ballotReuse()),
                SimInvariant.of("copilot-executed-were-proposed", c -> o.proposedFirst()),
                SimInvariant.of("copilot-no-command-executed-twice", c -> o.executedOnce()));
    }

    static SimInvariant noSlownessWarnings(Set<String> tolerated) {
        return SimInvariant.of("copilot-no-slowness-warning", c -> {
            for (NodeId n : c.members()) {
                Optional<CopilotEngine> e = c.engine(n, CopilotEngine.class);
                if (e.isEmpty()) continue;
                for (Map.Entry<String, Long> w : e.get().slownessWarningsByKind().entrySet()) {
                    if (!tolerated.contains(w.getKey())) return Optional.of(n + " raised " + w.getValue() + " '" + w.getKey() + "' slowness warning(s)");
                }
            }
            return Optional.empty();
        });
    }

    private record Value(long digest, boolean real, long dep, NodeId by) {}

    private record SessionKey(long client, long sequence) {}

    private record Offsets(int commits, int proposals, int deliveries, int phases, Set<SessionKey> sessions) {}

    private record PhaseKey(int log, long slot, Ballot ballot, boolean accept) {}

    private static final class Observed {
        private final Map<Long, Value>[] committed = newMaps();
        /** Committed real entries of each log, for the cross-log check: slot -> dep. */
        private final List<long[]>[] real = newLists();
        private final Set<String> proposed = new HashSet<>();
        private final IdentityHashMap<CopilotEngine, Offsets> seen = new IdentityHashMap<>();
        private final Map<PhaseKey, Long> phaseValues = new HashMap<>();
        private String crossLogViolation, unproposed, twice, reused;

        @SuppressWarnings("unchecked")
        private static Map<Long, Value>[] newMaps() {
            return new Map[] {new HashMap<Long, Value>(), new HashMap<Long, Value>()};
        }

        @SuppressWarnings("unchecked")
        private static List<long[]>[] newLists() {
            return new List[] {new ArrayList<long[]>(), new ArrayList<long[]>()};
        }

        /** Reads every engine's new events; reports agreement violations, and keeps the others for their own checks. */
        Optional<String> check(SimCluster cluster) {
            for (NodeId node : cluster.members()) {
                Optional<CopilotEngine> oe = cluster.engine(node, CopilotEngine.class);
                if (oe.isEmpty()) continue;
                CopilotEngine e = oe.get();
                Offsets off = seen.getOrDefault(e, new Offsets(0, 0, 0, 0, new HashSet<>()));
                for (int i = off.phases(); i < e.proposalEvents.size() && reused == null; i++) {
                    CopilotEngine.ProposalEvent p = e.proposalEvents.get(i);
                    long digest = SlotRecord.digest(p.cmds(), p.dep());
                    Long before = phaseValues.putIfAbsent(new PhaseKey(p.log(), p.slot(), p.ballot(), p.accept()), digest);
                    if (before != null && before != digest) {
                        reused = node + " sent a second value for slot " + p.log() + "." + p.slot() + " at ballot " + p.ballot() + (p.accept() ? " (Accept)" : " (FastAccept)");
                    }
                }
                for (int i = off.proposals(); i < e.proposals.size(); i++) proposed.add(key(e.proposals.get(i).origin(), e.proposals.get(i).requestId()));
                for (int i = off.commits(); i < e.commitEvents.size(); i++) {
                    CopilotEngine.CommitEvent c = e.commitEvents.get(i);
                    Value v = new Value(SlotRecord.digest(c.cmds(), c.dep()), !c.cmds().isEmpty(), c.dep(), node);
                    Value first = committed[c.log()].putIfAbsent(c.slot(), v);
                    if (first != null && first.digest() != v.digest()) {
                        return Optional.of("slot " + c.log() + "." + c.slot() + " committed as " + describe(first) + " on " + first.by() + " but as "
                                + describe(v) + " on " + node);
                    }
                    if (first == null && v.real()) crossLogCheck(c.log(), c.slot(), c.dep());
                }
                for (int i = off.deliveries(); i < e.deliveries.size(); i++) {
                    CopilotEngine.Delivery delivery = e.deliveries.get(i);
                    Committed d = delivery.entry();
                    if (unproposed == null && !proposed.contains(key(d.origin(), d.requestId()))) {
                        unproposed = node + " executed request " + d.origin() + "#" + d.requestId() + " at index " + d.index() + " which no pilot proposed";
                    }
                    if (twice == null && !d.session().isNone() && !delivery.retry() && !off.sessions().add(new SessionKey(d.session().clientId(), d.session().sequence()))) {
                        twice = node + " executed the command of client " + d.session().clientId() + " sequence " + d.session().sequence() + " twice (index " + d.index() + ")";
                    }
                }
                seen.put(e, new Offsets(e.commitEvents.size(), e.proposals.size(), e.deliveries.size(), e.proposalEvents.size(), off.sessions()));
            }
            return Optional.empty();
        }

        private void crossLogCheck(int log, long slot, long dep) {
            if (crossLogViolation != null) return;
            for (long[] o : real[1 - log]) {
                long oSlot = o[0], oDep = o[1];
                if (!(dep >= oSlot || oDep >= slot)) {
                    crossLogViolation = "committed " + log + "." + slot + " (dep " + dep + ") and " + (1 - log) + "." + oSlot + " (dep " + oDep
                            + ") are ordered neither way";
                    return;
                }
            }
            real[log].add(new long[] {slot, dep});
        }

        Optional<String> crossLog() {
            return Optional.ofNullable(crossLogViolation);
        }

        Optional<String> ballotReuse() {
            return Optional.ofNullable(reused);
        }

        Optional<String> proposedFirst() {
            return Optional.ofNullable(unproposed);
        }

        Optional<String> executedOnce() {
            return Optional.ofNullable(twice);
        }

        private static String key(NodeId origin, long requestId) {
            return origin + "#" + requestId;
        }

        private static String describe(Value v) {
            return (v.real() ? "a batch" : "a no-op") + " with dep " + v.dep() + " (digest " + Long.toHexString(v.digest()) + ")";
        }
    }
}
