package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;
import io.tandem.protocols.failslow.QuorumTracker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;

/**
 * The leader's commit path as a stream of quorum waits (Raft §5.3, §5.4.2; DESIGN §3 rule 1). Each
 * proposal round waits with a {@link QuorumTracker} for {@code required} voters whose durable match
 * index reached the round's last entry; the leader's own durable write is one of those votes
 * (DESIGN §3 rule 3). Rounds only cover entries of the leader's own term, so completing one commits
 * it and everything before it (§5.4.2).
 *
 * <p>A member's acknowledgement of index {@code i} acknowledges every round up to {@code i}, so rounds
 * complete in order. The number of pending rounds is bounded: under load a new proposal extends the
 * newest round instead of adding one.
 */
final class CommitTracker {
    /** A round that reached its quorum. {@code incremental} is false if it was decided at creation, without waiting. */
    record Completed(long target, List<NodeId> responders, NodeId decidedBy, int spareMembers, long waitedNanos, boolean incremental) {}

    private static final class Round {
        final long target;
        final QuorumTracker quorum;
        final boolean decidedAtCreation;
        boolean reportedOverdue;

        Round(long target, QuorumTracker quorum, boolean decidedAtCreation) {
            this.target = target;
            this.quorum = quorum;
            this.decidedAtCreation = decidedAtCreation;
        }
    }

    private final int maxRounds;
    private final long deadlineNanos;
    private final IntUnaryOperator quorumSize;
    private List<NodeId> voters;
    /** {@link #voters} as an immutable set, so a new round's tracker copies nothing. */
    private java.util.Set<NodeId> voterSet;
    private final Map<NodeId, Long> match = new HashMap<>();
    private final ArrayDeque<Round> rounds = new ArrayDeque<>();
    private long committed;

    /**
     * @param quorumSize how many of n voters a round waits for (a majority; the engine decides)
     */
    CommitTracker(Collection<NodeId> voters, long deadlineNanos, int maxRounds, IntUnaryOperator quorumSize) {
        this.voters = List.copyOf(voters);
        this.voterSet = java.util.Set.copyOf(this.voters);
        this.deadlineNanos = deadlineNanos;
        this.maxRounds = maxRounds;
        this.quorumSize = quorumSize;
    }

    /** The highest index a quorum acknowledged. */
    long committedIndex() {
        return committed;
    }

    int pendingRounds() {
        return rounds.size();
    }

    long matchOf(NodeId member) {
        return match.getOrDefault(member, 0L);
    }

    private int required() {
        return quorumSize.applyAsInt(voters.size());
    }

    /** Starts waiting for a quorum on every entry up to {@code target}, an entry of the leader's current term. */
    List<Completed> propose(long target, long now) {
        Round last = rounds.peekLast();
        if (last != null && target <= last.target) return List.of();
        if (last != null && (rounds.size() >= maxRounds || last.quorum.createdAt() == now)) {
            rounds.pollLast(); // extend the newest round rather than grow the queue
        }
        rounds.addLast(newRound(target, now));
        return popCompleted();
    }

    private Round newRound(long target, long now) {
        QuorumTracker q = QuorumTracker.kOfN(voterSet, required(), now, now + deadlineNanos);
        for (NodeId v : voters) {
            if (matchOf(v) >= target) q.ack(v, now);
        }
        return new Round(target, q, q.isYes());
    }

    /** Records that {@code member} holds every entry up to {@code matchIndex} durably; returns the rounds it completed. */
    List<Completed> ack(NodeId member, long matchIndex, long now) {
        long previous = matchOf(member);
        if (matchIndex <= previous) return List.of();
        match.put(member, matchIndex);
        for (Round r : rounds) {
            if (r.target > matchIndex) break;
            if (r.target <= previous) continue; // acknowledged by this member's earlier match (or at the round's creation)
            r.quorum.ack(member, now);
        }
        return popCompleted();
    }

    /** Applies a new membership to every pending round (Raft thesis §4.1: the latest configuration decides). */
    List<Completed> reconfigure(Collection<NodeId> newVoters, long now) {
        voters = List.copyOf(newVoters);
        voterSet = java.util.Set.copyOf(voters);
        match.keySet().retainAll(voters);
        List<Round> old = new ArrayList<>(rounds);
        rounds.clear();
        for (Round r : old) rounds.addLast(newRound(r.target, now));
        return popCompleted();
    }

    /** Rounds past their deadline that were not reported before; each is reported once. */
    List<Long> newlyOverdue(long now) {
        List<Long> overdue = new ArrayList<>();
        for (Round r : rounds) {
            if (!r.reportedOverdue && r.quorum.isOverdue(now)) {
                r.reportedOverdue = true;
                overdue.add(r.target);
            }
        }
        return overdue;
    }

    private List<Completed> popCompleted() {
        List<Completed> done = List.of();
        while (!rounds.isEmpty() && rounds.peekFirst().quorum.isYes()) {
            Round r = rounds.pollFirst();
            if (done.isEmpty()) done = new ArrayList<>();
            committed = Math.max(committed, r.target);
            QuorumTracker q = r.quorum;
            done.add(new Completed(r.target, q.responders(), q.decidedBy(), q.spareMembers(), q.waitedNanos(), !r.decidedAtCreation));
        }
        return done;
    }
}
