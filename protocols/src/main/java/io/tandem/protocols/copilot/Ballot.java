package io.tandem.protocols.copilot;

/**
 * The ballot of one slot (copilot.md §2.3): compared by {@code round}, then by {@code node} (the index
 * of the member that proposes with it). Round 0 belongs to the slot's pilot and is the only ballot at
 * which the fast path may commit; a fast takeover or recovery prepares a higher round under its own
 * node index, so no two members ever propose with the same ballot.
 *
 * <p>Views are static in this engine (the pilot of log L is member L), so the spec's view component is
 * always 0 and is left out.
 */
public record Ballot(int round, int node) implements Comparable<Ballot> {
    /** Below every real ballot: nothing promised or accepted yet. */
    public static final Ballot NONE = new Ballot(-1, -1);

    public Ballot {
        if (round < -1 || node < -1) throw new IllegalArgumentException("ballot (" + round + ", " + node + ") is out of range");
    }

    /** The default ballot of every slot of the log whose pilot is member {@code pilot}. */
    public static Ballot initial(int pilot) {
        return new Ballot(0, pilot);
    }

    public boolean isInitial() {
        return round == 0;
    }

    /** The least ballot of member {@code node} above this one. */
    public Ballot next(int node) {
        return new Ballot(round + 1, node);
    }

    @Override
    public int compareTo(Ballot o) {
        return round != o.round ? Integer.compare(round, o.round) : Integer.compare(node, o.node);
    }

    public boolean greaterThan(Ballot o) {
        return compareTo(o) > 0;
    }

    public static Ballot max(Ballot a, Ballot b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    @Override
    public String toString() {
        return round < 0 ? "-" : round + "." + node;
    }
}
