package io.tandem.protocols.copilot;

/**
 * What a replica knows about one slot, in the order a slot moves through (copilot.md §2.2); a slot
 * never moves back. Executed slots are tracked by the execution cursor, not here.
 */
public enum Status {
    /** Nothing accepted (a promise may have been made). */
    NONE,
    /** The FastAccept failed the compatibility check here; the replica vouched for its own suggestion. */
    PRE_ACCEPTED,
    /** The FastAccept passed the compatibility check: the replica vouched for the initial dependency. */
    FAST_ACCEPTED,
    /** Accepted through the Accept phase (slow path, takeover or recovery) at some ballot. */
    ACCEPTED,
    /** Decided: the batch and its final dependency will never change. */
    COMMITTED;

    public boolean atLeast(Status s) {
        return compareTo(s) >= 0;
    }
}
