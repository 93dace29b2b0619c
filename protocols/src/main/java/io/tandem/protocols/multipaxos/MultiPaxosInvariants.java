package io.tandem.protocols.multipaxos;

import io.tandem.engine.NodeId;
import io.tandem.sim.SimCluster;
import io.tandem.sim.SimInvariant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * MultiPaxos safety as simulator invariants, checked after every step. They follow every vote an
 * acceptor made durable and every slot a replica executed (through the engines' bounded histories)
 * and remember them for the whole run, so {@link #create()} gives a fresh set per run.
 *
 * <ul>
 *   <li>{@code multipaxos-one-value-chosen-per-slot}: in one (slot, ballot) acceptors only ever vote for
 *       one value (one proposer per ballot, one value per slot), and a value is chosen when a write
 *       quorum voted for it in the same ballot: no slot ever has two different values chosen.</li>
 *   <li>{@code multipaxos-replicas-agree}: every replica executes the same value in each slot, that
 *       value is the one the acceptors' votes chose, and no client request is executed in two slots.</li>
 *   <li>{@code multipaxos-ballots-increase}: the ballots a proposer puts on the wire only grow, across
 *       restarts too, and no two proposers ever use the same ballot.</li>
 * </ul>
 */
final class MultiPaxosInvariants {
    private MultiPaxosInvariants() {}

    static List<SimInvariant> create() {
        Observed o = new Observed();
        return List.of(
                SimInvariant.of("multipaxos-one-value-chosen-per-slot", o::oneValueChosenPerSlot),
                SimInvariant.of("multipaxos-replicas-agree", o::replicasAgree),
                SimInvariant.of("multipaxos-ballots-increase", o::ballotsIncrease));
    }

    /** The leaders' slowness detectors stay quiet, except for the {@code tolerated} kinds of warning. */
    static SimInvariant noSlownessWarnings(Set<String> tolerated) {
        return SimInvariant.of("multipaxos-no-slowness-warning", c -> {
            for (NodeId n : c.members()) {
                Optional<MultiPaxosEngine> e = c.engine(n, MultiPaxosEngine.class);
                if (e.isEmpty() || e.get().leader() == null) continue;
                for (Map.Entry<String, Long> w : e.get().leader().slownessWarningsByKind().entrySet()) {
                    if (!tolerated.contains(w.getKey())) return Optional.of(n + " raised " + w.getValue() + " '" + w.getKey() + "' slowness warning(s)");
                }
            }
            return Optional.empty();
        });
    }

    /** The votes of one ballot in one slot. */
    private static final class BallotVotes {
        final Ballot ballot;
        final long digest;
        long acceptors;

        BallotVotes(Ballot ballot, long digest) {
            this.ballot = ballot;
            this.digest = digest;
        }
    }

    private static final class SlotState {
        final List<BallotVotes> ballots = new ArrayList<>(2);
        Long chosenDigest;
        Ballot chosenAt;
    }

    private static final class Observed {
        private QuorumSystem quorums;
        private final Map<Long, SlotState> slots = new HashMap<>();
        private final Map<Acceptor, Long> voteCursor = new IdentityHashMap<>();
        private final Map<Replica, Long> executionCursor = new IdentityHashMap<>();
        private final Map<Long, Long> executedDigest = new HashMap<>();
        /** The slot each client request (origin, request id) was executed in. */
        private final Map<String, Long> requestSlot = new HashMap<>();
        private final Map<NodeId, Ballot> lastBallot = new HashMap<>();
        private final Map<Ballot, NodeId> ballotOwner = new HashMap<>();

        Optional<String> oneValueChosenPerSlot(SimCluster c) {
            for (NodeId n : c.members()) {
                Optional<MultiPaxosEngine> e = c.engine(n, MultiPaxosEngine.class);
                if (e.isEmpty() || e.get().acceptor() == null || e.get().topology() == null) continue;
                if (quorums == null) quorums = e.get().topology().quorums();
                Acceptor a = e.get().acceptor();
                VoteHistory h = a.history();
                if (h == null) return Optional.of("the engines keep no vote history: create them after asking the protocol for its invariants");
                long bit = quorums.bit(n);
                Long cursor = voteCursor.get(a);
                if (cursor == null) {
                    // A new incarnation: the durable votes it recovered count as cast (they may be the only copy of a vote that made a choice).
                    for (Map.Entry<Long, Acceptor.StoredVote> v : a.votes().entrySet()) {
                        if (!a.isDurable(v.getValue())) continue;
                        Optional<String> bad = vote(n, bit, v.getKey(), v.getValue().ballot(), ValueCodec.digest(v.getValue().value()));
                        if (bad.isPresent()) return bad;
                    }
                    cursor = h.count();
                }
                if (h.count() - cursor > VoteHistory.CAPACITY) return Optional.of(n + " cast more votes in one step than its history keeps");
                for (long seq = cursor; seq < h.count(); seq++) {
                    Optional<String> bad = vote(n, bit, h.slot(seq), h.ballot(seq), h.digest(seq));
                    if (bad.isPresent()) return bad;
                }
                voteCursor.put(a, h.count());
            }
            return Optional.empty();
        }

        private Optional<String> vote(NodeId acceptor, long bit, long slot, Ballot ballot, long digest) {
            SlotState s = slots.computeIfAbsent(slot, k -> new SlotState());
            BallotVotes votes = null;
            for (BallotVotes b : s.ballots) {
                if (b.ballot.equals(ballot)) votes = b;
            }
            if (votes == null) {
                votes = new BallotVotes(ballot, digest);
                s.ballots.add(votes);
            } else if (votes.digest != digest) {
                return Optional.of(acceptor + " voted for a different value in slot " + slot + " at ballot " + ballot + " than " + quorums.membersOf(votes.acceptors)
                        + " did: two values proposed in one ballot");
            }
            votes.acceptors |= bit;
            if (!quorums.isWriteQuorum(votes.acceptors)) return Optional.empty();
            if (s.chosenDigest == null) {
                s.chosenDigest = digest;
                s.chosenAt = ballot;
            } else if (s.chosenDigest != digest) {
                return Optional.of("slot " + slot + " had a value chosen at ballot " + s.chosenAt + " and a different one at ballot " + ballot
                        + " (write quorum " + quorums.membersOf(votes.acceptors) + ")");
            }
            return Optional.empty();
        }

        /** Every replica executes the chosen value of each slot, the same everywhere, and each client request in one slot only. */
        Optional<String> replicasAgree(SimCluster c) {
            for (NodeId n : c.members()) {
                Optional<MultiPaxosEngine> e = c.engine(n, MultiPaxosEngine.class);
                if (e.isEmpty() || e.get().replica() == null) continue;
                Replica r = e.get().replica();
                ExecutionHistory h = r.history();
                if (h == null) return Optional.of("the engines keep no execution history: create them after asking the protocol for its invariants");
                long cursor = executionCursor.getOrDefault(r, 0L);
                if (h.count() - cursor > ExecutionHistory.CAPACITY) return Optional.of(n + " executed more slots in one step than its history keeps");
                for (long seq = cursor; seq < h.count(); seq++) {
                    long slot = h.slot(seq);
                    long digest = h.digest(seq);
                    Long other = executedDigest.putIfAbsent(slot, digest);
                    if (other != null && other != digest) return Optional.of(n + " executed a different value in slot " + slot + " than another replica did");
                    SlotState s = slots.get(slot);
                    if (quorums != null && (s == null || s.chosenDigest == null)) {
                        return Optional.of(n + " executed slot " + slot + " but no write quorum of acceptors voted for any value there");
                    }
                    if (s != null && s.chosenDigest != null && s.chosenDigest != digest) {
                        return Optional.of(n + " executed a value in slot " + slot + " that differs from the value chosen at ballot " + s.chosenAt);
                    }
                    if (h.origin(seq) != null) {
                        // A request gets one slot; a client's retry is a new request. Two slots mean a leader proposed it twice.
                        Long first = requestSlot.putIfAbsent(h.origin(seq) + "#" + h.requestId(seq), slot);
                        if (first != null && first != slot) {
                            return Optional.of("request " + h.requestId(seq) + " of " + h.origin(seq) + " was executed in slots " + first + " and " + slot);
                        }
                    }
                }
                executionCursor.put(r, h.count());
            }
            return Optional.empty();
        }

        Optional<String> ballotsIncrease(SimCluster c) {
            for (NodeId n : c.members()) {
                Optional<MultiPaxosEngine> e = c.engine(n, MultiPaxosEngine.class);
                if (e.isEmpty() || e.get().leader() == null) continue;
                Ballot b = e.get().leader().ballotInUse();
                if (b == null) continue;
                int index = e.get().topology().leaderIndex(n);
                if (b.proposer() != index) return Optional.of(n + " (proposer " + index + ") used ballot " + b + ", which belongs to proposer " + b.proposer());
                Ballot previous = lastBallot.put(n, b);
                if (previous != null && b.lessThan(previous)) return Optional.of(n + " used ballot " + b + " after ballot " + previous);
                NodeId owner = ballotOwner.putIfAbsent(b, n);
                if (owner != null && !owner.equals(n)) return Optional.of(n + " and " + owner + " both used ballot " + b);
            }
            return Optional.empty();
        }
    }
}
