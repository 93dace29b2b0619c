package io.tandem.protocols.multipaxos;

/**
 * A Paxos ballot (a "round" in the Compartmentalization paper, spec §1.3): a round number and the
 * proposer that owns it, ordered by round, then by proposer. Every proposer owns its own ballots, so
 * two proposers never run Phase 1 or Phase 2 with the same ballot; a proposer never reuses one either,
 * because it persists the highest round before using it ({@link Leader}).
 *
 * @param round    1 and up for real ballots; 0 only for {@link #ZERO}
 * @param proposer the index of the owning proposer in {@link Topology#leaders()}; -1 only for {@link #ZERO}
 */
public record Ballot(long round, int proposer) implements Comparable<Ballot> {
    /** Lower than every real ballot: the promise of an acceptor that has promised nothing. */
    public static final Ballot ZERO = new Ballot(0, -1);

    public Ballot {
        if (round < 0) throw new IllegalArgumentException("round must be >= 0, was " + round);
        if (round == 0 && proposer != -1) throw new IllegalArgumentException("round 0 is only Ballot.ZERO");
        if (round > 0 && proposer < 0) throw new IllegalArgumentException("a ballot of round " + round + " needs a proposer index >= 0");
    }

    @Override
    public int compareTo(Ballot other) {
        int byRound = Long.compare(round, other.round);
        return byRound != 0 ? byRound : Integer.compare(proposer, other.proposer);
    }

    public boolean isZero() {
        return round == 0;
    }

    public boolean greaterThan(Ballot other) {
        return compareTo(other) > 0;
    }

    public boolean lessThan(Ballot other) {
        return compareTo(other) < 0;
    }

    public static Ballot max(Ballot a, Ballot b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    @Override
    public String toString() {
        return isZero() ? "0" : round + "." + proposer;
    }
}
