package io.tandem.engine;

/** Why an engine refused a client request; the facade turns each into a typed exception. */
public sealed interface Rejection {
    /** This node cannot order the request; {@code leaderHint} is who probably can (may be null). */
    record NotLeader(NodeId leaderHint) implements Rejection {}

    /** Too much pending work; retry later (explicit back-pressure, DESIGN §4). */
    record Overloaded(String reason) implements Rejection {}

    /** The protocol cannot serve the request now (no quorum, membership change, shutting down). */
    record Unavailable(String reason) implements Rejection {}
}
