package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A k-of-n wait with a deadline, DepFast's QuorumEvent (DESIGN §3 rule 1): it decides YES once
 * {@code required} members acknowledged, NO once so many refused that YES is impossible, and is
 * overdue after its deadline. No single member can hold it up unless {@code required == n}. It
 * remembers who answered, in order, so the slowness detector can see which members form quorums.
 *
 * <p>Pure bookkeeping: time is passed in, nothing is scheduled.
 */
final class QuorumTracker {
    enum Outcome { PENDING, YES, NO }

    private final Set<NodeId> members;
    private final int required;
    private final long createdAt;
    private final long deadline;
    private final LinkedHashSet<NodeId> acks = new LinkedHashSet<>();
    private final Set<NodeId> refusals = new LinkedHashSet<>();
    private Outcome outcome = Outcome.PENDING;
    private long decidedAt = -1;
    /** The member whose acknowledgement decided YES. */
    private NodeId decidedBy;

    QuorumTracker(Collection<NodeId> members, int required, long createdAt, long deadline) {
        this.members = Set.copyOf(members);
        if (required < 1 || required > this.members.size()) {
            throw new IllegalArgumentException("required must be in [1, " + this.members.size() + "], was " + required);
        }
        this.required = required;
        this.createdAt = createdAt;
        this.deadline = deadline;
    }

    /** A strict majority of {@code n}. */
    static int majority(int n) {
        return n / 2 + 1;
    }

    /** Records an acknowledgement; returns true if it is the one that decided YES. Non-members and repeats are ignored. */
    boolean ack(NodeId member, long now) {
        if (!members.contains(member) || refusals.contains(member) || !acks.add(member)) return false;
        if (outcome == Outcome.PENDING && acks.size() >= required) {
            outcome = Outcome.YES;
            decidedAt = now;
            decidedBy = member;
            return true;
        }
        return false;
    }

    /** Records a refusal; returns true if it made YES impossible. */
    boolean refuse(NodeId member, long now) {
        if (!members.contains(member) || acks.contains(member) || !refusals.add(member)) return false;
        if (outcome == Outcome.PENDING && members.size() - refusals.size() < required) {
            outcome = Outcome.NO;
            decidedAt = now;
            return true;
        }
        return false;
    }

    Outcome outcome() {
        return outcome;
    }

    boolean isYes() {
        return outcome == Outcome.YES;
    }

    /** Still undecided after its deadline. An overdue quorum may still succeed; the caller decides what to do. */
    boolean isOverdue(long now) {
        return outcome == Outcome.PENDING && now - deadline >= 0;
    }

    boolean hasAcked(NodeId member) {
        return acks.contains(member);
    }

    int ackCount() {
        return acks.size();
    }

    int required() {
        return required;
    }

    Set<NodeId> members() {
        return members;
    }

    /** Members that acknowledged, in the order they did. */
    List<NodeId> responders() {
        return new ArrayList<>(acks);
    }

    /** Members that had not answered when the quorum was decided (only meaningful after YES). */
    int spareMembers() {
        return members.size() - acks.size() - refusals.size();
    }

    NodeId decidedBy() {
        return decidedBy;
    }

    long createdAt() {
        return createdAt;
    }

    /** Nanoseconds from creation to the decision, or -1 while pending. */
    long waitedNanos() {
        return decidedAt < 0 ? -1 : decidedAt - createdAt;
    }

    @Override
    public String toString() {
        return outcome + " " + acks.size() + "/" + required + " of " + members.size() + " acks=" + acks;
    }
}
