package io.tandem.sim;

/**
 * Why a run failed.
 *
 * @param kind       the class of failure; the minimizer keeps a fault schedule only if the same kind persists
 * @param check      which check fired (an invariant's name, "linearizability", "liveness", ...)
 * @param message    what was seen
 * @param atNanos    virtual time of the failure
 * @param nodeStatus one status line per node at the failure
 */
public record SimFailure(Kind kind, String check, String message, long atNanos, java.util.List<String> nodeStatus) {
    public enum Kind {
        /** A built-in or protocol invariant was violated. */
        SAFETY,
        /** The client history is not linearizable. */
        LINEARIZABILITY,
        /** After everything was healed, the clients did not get their answers within the bound. */
        LIVENESS,
        /** An engine threw from a handler, or misused its context. */
        ENGINE_ERROR,
        /** The run needed more events than allowed (a message storm or a livelock). */
        EVENT_BUDGET
    }

    public String summary() {
        return kind + " " + check + " at " + SimTime.clock(atNanos) + ": " + message;
    }
}
