package io.tandem.protocols.raft;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * A leader's bookkeeping for linearizable reads without log writes (thesis §6.4 ReadIndex) and for
 * its lease (thesis §6.4.1), for one term; it lives in {@link LeaderState} and is dropped with it.
 *
 * <p>A read gets a read index, the commit index once the leader committed an entry of its term,
 * and is served once a quorum acknowledged a heartbeat round sent after the read arrived. Reads
 * share rounds: those waiting when a round is sent ride on it, the rest wait for the next one, and
 * at most one round carrying reads is outstanding. A round a quorum acknowledged confirms every
 * earlier round too, and extends the lease from the moment it was <em>sent</em> (the followers'
 * promise not to vote runs from when they heard it, which is later). This class only keeps the
 * books; {@link RaftEngine} sends the rounds and decides which are acknowledged.
 */
final class LeaderReads {
    /** A read waiting for leadership confirmation; {@code readIndex} is 0 until it is known. */
    record PendingRead(long requestId, long readIndex) {}

    /** A heartbeat broadcast; once a quorum acknowledged it, its reads are served and the lease extended. */
    record HeartbeatRound(long seq, long sentAt, List<PendingRead> reads) {}

    private final int maxRounds;
    private final List<PendingRead> awaitingTermCommit = new ArrayList<>();
    private final List<PendingRead> awaitingRound = new ArrayList<>();
    private final ArrayDeque<HeartbeatRound> rounds = new ArrayDeque<>();
    private long leaseExpiresAt;

    /** @param maxRounds rounds remembered; the reads of older ones wait for the next round (bounded, DESIGN §3 rule 2) */
    LeaderReads(int maxRounds) {
        this.maxRounds = maxRounds;
    }

    /** Reads waiting, in any stage (the admission bound counts them all). */
    int pending() {
        int n = awaitingTermCommit.size() + awaitingRound.size();
        for (HeartbeatRound round : rounds) n += round.reads().size();
        return n;
    }

    /** The leader has not committed an entry of its term yet, so it does not know the read index. */
    void awaitTermCommit(long requestId) {
        awaitingTermCommit.add(new PendingRead(requestId, 0));
    }

    /** A read whose read index is known waits for the next round. */
    void awaitRound(long requestId, long readIndex) {
        awaitingRound.add(new PendingRead(requestId, readIndex));
    }

    /**
     * An entry of the leader's term committed at {@code commitIndex}: reads that waited for it get it
     * as their read index and wait for a round. True if any did.
     */
    boolean termCommitted(long commitIndex) {
        if (awaitingTermCommit.isEmpty()) return false;
        for (PendingRead r : awaitingTermCommit) awaitingRound.add(new PendingRead(r.requestId(), commitIndex));
        awaitingTermCommit.clear();
        return true;
    }

    /** True if reads wait for a round that has not been sent. */
    boolean readsWaitForRound() {
        return !awaitingRound.isEmpty();
    }

    /** The request of the first read waiting for a round (the next round's cause, DESIGN §3 rule 4). */
    long firstWaitingRequestId() {
        return awaitingRound.getFirst().requestId();
    }

    /** True if a round carrying reads is outstanding (then new reads wait for the next one). */
    boolean readRoundOutstanding() {
        for (HeartbeatRound round : rounds) {
            if (!round.reads().isEmpty()) return true;
        }
        return false;
    }

    /** Round {@code seq} was sent at {@code sentAt}; the reads waiting for a round ride on it. */
    void roundSent(long seq, long sentAt) {
        List<PendingRead> reads = awaitingRound.isEmpty() ? List.of() : new ArrayList<>(awaitingRound);
        awaitingRound.clear();
        rounds.addLast(new HeartbeatRound(seq, sentAt, reads));
        while (rounds.size() > maxRounds) awaitingRound.addAll(rounds.pollFirst().reads());
    }

    /**
     * Finds the newest round a quorum acknowledged ({@code acknowledged} tests a round's sequence
     * number), extends the lease to {@code leaseNanos} after it was sent, and returns the reads of it
     * and of every earlier round, oldest first, to be served at their read index; null if no round
     * is acknowledged (an empty list means one was, carrying no reads).
     */
    List<PendingRead> confirm(LongPredicate acknowledged, long leaseNanos) {
        HeartbeatRound confirmed = null;
        for (HeartbeatRound round : rounds) {
            if (acknowledged.test(round.seq())) confirmed = round;
        }
        if (confirmed == null) return null;
        leaseExpiresAt = Math.max(leaseExpiresAt, confirmed.sentAt() + leaseNanos);
        List<PendingRead> served = new ArrayList<>();
        while (!rounds.isEmpty() && rounds.peekFirst().seq() <= confirmed.seq()) served.addAll(rounds.pollFirst().reads());
        return served;
    }

    /** Rounds no quorum acknowledged within {@code timeoutNanos} are dropped; their reads wait for the next round. */
    void expire(long now, long timeoutNanos) {
        while (!rounds.isEmpty() && now - rounds.peekFirst().sentAt() >= timeoutNanos) {
            awaitingRound.addAll(rounds.pollFirst().reads());
        }
    }

    /** True until the lease a confirmed round gave runs out (the engine adds the other conditions). */
    boolean leaseRunning(long now) {
        return now < leaseExpiresAt;
    }

    /** Ends the lease at once (a leadership transfer overrides the followers' promise). */
    void endLease() {
        leaseExpiresAt = 0;
    }

    long leaseExpiresAt() {
        return leaseExpiresAt;
    }

    /** Every read still waiting, oldest stage first, and forgets them: leadership ended, they must be redirected. */
    List<PendingRead> drain() {
        List<PendingRead> all = new ArrayList<>(awaitingTermCommit);
        all.addAll(awaitingRound);
        for (HeartbeatRound round : rounds) all.addAll(round.reads());
        awaitingTermCommit.clear();
        awaitingRound.clear();
        rounds.clear();
        return all;
    }
}
