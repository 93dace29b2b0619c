package io.tandem.protocols.copilot;

/**
 * The ballot of one slot (copilot.md §2.3 [rec]): compared by {@code view}, then {@code round}, then
 * {@code node} (the index of the member that proposes with it). A log's view number names its pilot
 * ({@code view % n}, see {@link PilotElection}), so two members never share a view, and round 0 of a
 * view, {@code (view, 0, pilot)}, is the default ballot of that pilot's slots: the only ballot at which
 * the fast path may commit. A fast takeover or recovery prepares a higher round under its own node
 * index, so no two members ever propose with the same ballot; a new view outranks every ballot of
 * every older one, which is what lets a new pilot take a whole log over with one round of promises.
 */
public record Ballot(int view, int round, int node) implements Comparable<Ballot> {
    /** Below every real ballot: nothing promised or accepted yet. */
    public static final Ballot NONE = new Ballot(-1, -1, -1);

    public Ballot {
        if (view < -1 || round < -1 || node < -1) throw new IllegalArgumentException("ballot (" + view + ", " + round + ", " + node + ") is out of range");
    }

    /** The default ballot of the first view of {@code log}: view {@code log}, whose pilot is member {@code log}. */
    public static Ballot initial(int log) {
        return new Ballot(log, 0, log);
    }

    /** The default ballot of view {@code view}, whose pilot is member {@code pilot}. */
    public static Ballot of(int view, int pilot) {
        return new Ballot(view, 0, pilot);
    }

    public boolean isInitial() {
        return round == 0;
    }

    @Override
    public int compareTo(Ballot o) {
        if (view != o.view) return Integer.compare(view, o.view);
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
        return round < 0 ? "-" : view + "." + round + "." + node;
    }
}
