package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;
import io.tandem.engine.RequestIds;
import io.tandem.protocols.failslow.QuorumTracker;

/**
 * A pre-candidate's or candidate's state for one attempt (§5.2; pre-vote thesis §9.6): the votes
 * collected so far, a quorum over the voters of the configuration the attempt started with. Every
 * attempt (every election timeout, every pre-vote that turns into an election) gets a new one.
 */
final class CandidateState implements RoleState {
    /** True while only asking whether we could win (thesis §9.6); no term was spent yet. */
    final boolean preVote;
    final QuorumTracker votes;
    /**
     * The meta-store token of the write of our new term and self-vote; our own vote counts only once
     * it is durable, or a crash could let us vote again in this term (§5.2).
     */
    final long candidacyToken;
    boolean selfVoteCounted;
    /**
     * The leader that asked for this election with TimeoutNow (thesis §3.10) and the transfer
     * request, answered by our first entry as leader; null for an ordinary election.
     */
    final NodeId transferOrigin;
    final long transferRequestId;

    private CandidateState(boolean preVote, QuorumTracker votes, long candidacyToken, NodeId transferOrigin, long transferRequestId) {
        this.preVote = preVote;
        this.votes = votes;
        this.candidacyToken = candidacyToken;
        this.transferOrigin = transferOrigin;
        this.transferRequestId = transferRequestId;
    }

    static CandidateState preVote(QuorumTracker votes) {
        return new CandidateState(true, votes, 0, null, RequestIds.BACKGROUND);
    }

    static CandidateState election(QuorumTracker votes, long candidacyToken, NodeId transferOrigin, long transferRequestId) {
        return new CandidateState(false, votes, candidacyToken, transferOrigin, transferRequestId);
    }

    @Override
    public String toString() {
        return (preVote ? "pre-candidate" : "candidate") + "{" + votes + (transferOrigin == null ? "" : " transfer from " + transferOrigin) + "}";
    }
}
