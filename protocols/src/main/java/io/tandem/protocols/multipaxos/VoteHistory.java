package io.tandem.protocols.multipaxos;

/**
 * The last votes an acceptor made durable, in a fixed ring (no allocation, no payloads kept: values
 * are digests). It exists so the simulator's invariants can follow every vote cast in a run, after
 * every step, without scanning vote tables; in production it costs a few hundred kilobytes.
 */
final class VoteHistory {
    static final int CAPACITY = 8192;

    private final long[] slots = new long[CAPACITY];
    private final long[] rounds = new long[CAPACITY];
    private final int[] proposers = new int[CAPACITY];
    private final long[] digests = new long[CAPACITY];
    private long count;

    void record(long slot, Ballot ballot, long digest) {
        int i = (int) (count % CAPACITY);
        slots[i] = slot;
        rounds[i] = ballot.round();
        proposers[i] = ballot.proposer();
        digests[i] = digest;
        count++;
    }

    /** Votes recorded so far; those with sequence numbers in [max(0, count - CAPACITY), count) are still readable. */
    long count() {
        return count;
    }

    long slot(long seq) {
        return slots[index(seq)];
    }

    Ballot ballot(long seq) {
        int i = index(seq);
        return new Ballot(rounds[i], proposers[i]);
    }

    long digest(long seq) {
        return digests[index(seq)];
    }

    private int index(long seq) {
        if (seq < 0 || seq >= count || seq < count - CAPACITY) throw new IndexOutOfBoundsException("vote " + seq + " is not retained (recorded " + count + ")");
        return (int) (seq % CAPACITY);
    }
}
