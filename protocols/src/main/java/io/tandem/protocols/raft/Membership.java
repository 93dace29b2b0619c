package io.tandem.protocols.raft;

import io.tandem.engine.AdminRequest;
import io.tandem.engine.NodeId;
import java.util.Collection;
import java.util.Optional;

/**
 * The rules of membership changes (thesis §4.1, §4.2.1): single-server changes, one at a time, each
 * a configuration entry that takes effect when appended; learners receive the log without voting
 * and are promoted once caught up. Pure decisions; {@link RaftEngine} appends the entries and
 * applies the configurations ({@code applyConfiguration}), and {@link LeadershipTransfer} runs
 * transfers (thesis §3.10).
 */
final class Membership {
    /** The configuration a request asks for, or why it cannot be had. Exactly one is non-null. */
    record Proposal(Configuration next, String problem) {
        static Proposal of(Configuration next) {
            return new Proposal(next, null);
        }

        static Proposal refused(String problem) {
            return new Proposal(null, problem);
        }
    }

    private Membership() {}

    /**
     * Why the leader may not start a membership change now, if it may not. Single-server changes are
     * safe only one at a time (thesis §4.1: any two majorities of configurations that differ by one
     * server overlap), so the previous change must have committed; and only after an entry of the
     * leader's term committed (the fix Ongaro published for single-server changes after the thesis:
     * otherwise an uncommitted change of an earlier leader and this leader's change could both take
     * effect on different majorities), and not while leadership moves.
     */
    static Optional<String> refusal(long commitIndex, long termStartIndex, long configurationIndex, boolean transferring) {
        if (commitIndex < termStartIndex) return Optional.of("the leader has not yet committed an entry of its term");
        if (configurationIndex > commitIndex) return Optional.of("another membership change is not yet committed");
        if (transferring) return Optional.of("a leadership transfer is in progress");
        return Optional.empty();
    }

    /**
     * The configuration {@code request} asks for, from {@code current}. A learner is promoted only
     * once its match index ({@code learnerMatch}, -1 if the leader does not track it) reached the
     * commit index, so adding a voter never leaves the group waiting for it to catch up (thesis
     * §4.2.1); a change that would leave no voter is refused.
     */
    static Proposal propose(Configuration current, AdminRequest request, long learnerMatch, long commitIndex) {
        NodeId node = request.node();
        return switch (request) {
            case AdminRequest.AddLearner a -> current.contains(node)
                    ? Proposal.refused(node + " is already a member: " + current)
                    : Proposal.of(current.withLearner(node));
            case AdminRequest.Promote p -> {
                if (!current.isLearner(node)) yield Proposal.refused(node + " is not a learner: " + current);
                if (learnerMatch < commitIndex) {
                    yield Proposal.refused(node + " has not caught up (match " + Math.max(0, learnerMatch) + " < commit " + commitIndex + ")");
                }
                yield Proposal.of(current.withPromoted(node));
            }
            case AdminRequest.Remove r -> {
                if (!current.contains(node)) yield Proposal.refused(node + " is not a member: " + current);
                if (current.without(node).voters().isEmpty()) yield Proposal.refused("removing " + node + " would leave no voter");
                yield Proposal.of(current.without(node));
            }
            case AdminRequest.TransferLeadership t -> throw new IllegalArgumentException("a leadership transfer is not a membership change");
        };
    }

    /**
     * A leader that removed itself hands over at once to a voter whose log is complete (it can win
     * the election TimeoutNow starts) rather than let the group wait for an election timeout.
     */
    static Optional<Peer> handoverTarget(Configuration committed, Collection<Peer> peers, long lastIndex) {
        return peers.stream().filter(p -> committed.isVoter(p.id) && p.match == lastIndex).findFirst();
    }
}
