package io.tandem.protocols.failslow;

import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A wait for a quorum with a deadline, DepFast's QuorumEvent (DESIGN §3 rule 1): it decides YES once
 * the members that acknowledged contain a quorum of its {@link QuorumRule} ({@code k} of {@code n},
 * or a read or write quorum of a quorum system), NO once so many refused that YES is impossible, and
 * is overdue after its deadline. Whoever the acknowledging members are does not matter, so no single
 * member can hold it up unless the rule needs every member. It remembers who answered, in order, and
 * whose answer decided, so the {@link SlownessDetector} can see which members form quorums.
 *
 * <p>Pure bookkeeping: time is passed in, nothing is scheduled, which keeps engines deterministic.
 */
public final class QuorumTracker {
    public enum Outcome { PENDING, YES, NO }

    /** A deadline that never comes, for waits whose caller bounds them some other way. */
    public static final long NO_DEADLINE = Long.MAX_VALUE;

    private final Set<NodeId> members;
    private final QuorumRule rule;
    private final long createdAt;
    private final long deadline;
    private final LinkedHashSet<NodeId> acks = new LinkedHashSet<>();
    private final Set<NodeId> refusals = new LinkedHashSet<>();
    private Outcome outcome = Outcome.PENDING;
    private long decidedAt = -1;
    /** The member whose acknowledgement decided YES. */
    private NodeId decidedBy;

    /**
     * @param deadline the time after which the wait is {@linkplain #isOverdue overdue}, or {@link #NO_DEADLINE}
     */
    public QuorumTracker(Collection<NodeId> members, QuorumRule rule, long createdAt, long deadline) {
        this.members = Set.copyOf(members);
        this.rule = rule;
        this.createdAt = createdAt;
        this.deadline = deadline;
    }

    /** k-of-n rules for small k, made once: a leader creates a tracker for every proposal round. */
    private static final QuorumRule[] AT_LEAST = new QuorumRule[16];

    static {
        for (int k = 1; k < AT_LEAST.length; k++) AT_LEAST[k] = QuorumRule.atLeast(k);
    }

    /** A wait for any {@code required} of {@code members}. */
    public static QuorumTracker kOfN(Collection<NodeId> members, int required, long createdAt, long deadline) {
        int n = members instanceof Set<?> set ? set.size() : Set.copyOf(members).size();
        if (required < 1 || required > n) throw new IllegalArgumentException("required must be in [1, " + n + "], was " + required);
        return new QuorumTracker(members, required < AT_LEAST.length ? AT_LEAST[required] : QuorumRule.atLeast(required), createdAt, deadline);
    }

    /** A strict majority of {@code n}. */
    public static int majority(int n) {
        return n / 2 + 1;
    }

    /** Records an acknowledgement; returns true if it is the one that decided YES. Non-members and repeats are ignored. */
    public boolean ack(NodeId member, long now) {
        if (!members.contains(member) || refusals.contains(member) || !acks.add(member)) return false;
        if (outcome == Outcome.PENDING && rule.isQuorum(acks)) {
            outcome = Outcome.YES;
            decidedAt = now;
            decidedBy = member;
            return true;
        }
        return false;
    }

    /** Records a refusal; returns true if it made YES impossible. */
    public boolean refuse(NodeId member, long now) {
        if (!members.contains(member) || acks.contains(member) || !refusals.add(member)) return false;
        if (outcome == Outcome.PENDING) {
            Set<NodeId> stillPossible = new HashSet<>(members);
            stillPossible.removeAll(refusals);
            if (!rule.isQuorum(stillPossible)) {
                outcome = Outcome.NO;
                decidedAt = now;
                return true;
            }
        }
        return false;
    }

    public Outcome outcome() {
        return outcome;
    }

    public boolean isYes() {
        return outcome == Outcome.YES;
    }

    /** Still undecided after its deadline. An overdue quorum may still succeed; the caller decides what to do. */
    public boolean isOverdue(long now) {
        return outcome == Outcome.PENDING && deadline != NO_DEADLINE && now - deadline >= 0;
    }

    public boolean hasAcked(NodeId member) {
        return acks.contains(member);
    }

    public int ackCount() {
        return acks.size();
    }

    public Set<NodeId> members() {
        return members;
    }

    /** Members that acknowledged, in the order they did. */
    public List<NodeId> responders() {
        return new ArrayList<>(acks);
    }

    /** Members that had not answered when the quorum was decided (only meaningful after YES). */
    public int spareMembers() {
        return members.size() - acks.size() - refusals.size();
    }

    public NodeId decidedBy() {
        return decidedBy;
    }

    public long createdAt() {
        return createdAt;
    }

    /** Nanoseconds from creation to the decision, or -1 while pending. */
    public long waitedNanos() {
        return decidedAt < 0 ? -1 : decidedAt - createdAt;
    }

    @Override
    public String toString() {
        return outcome + " " + acks.size() + " of " + members.size() + " acks=" + acks;
    }
}
