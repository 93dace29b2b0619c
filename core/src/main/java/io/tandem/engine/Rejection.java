package io.tandem.engine;

import java.util.List;

/** Why an engine refused a client request; the facade turns each into a typed exception. */
public sealed interface Rejection {
    /**
     * This node cannot order the request; {@code targets} are the members that probably can, best
     * first: the leader for a leader-based engine, several members for engines that order
     * everywhere (Copilot's two pilots, any proxy leader). Empty when none is known (an election is
     * under way). The runtime forwards a request submitted on this node to them.
     */
    record Redirect(List<NodeId> targets) implements Rejection {
        public Redirect {
            targets = List.copyOf(targets);
        }

        /** A redirect to one leader, or to nobody known when {@code leaderHint} is null. */
        public static Redirect to(NodeId leaderHint) {
            return new Redirect(leaderHint == null ? List.of() : List.of(leaderHint));
        }

        /** The best target, or null when none is known. */
        public NodeId leaderHint() {
            return targets.isEmpty() ? null : targets.get(0);
        }
    }

    /** Too much pending work; retry later (explicit back-pressure, DESIGN §4). */
    record Overloaded(String reason) implements Rejection {}

    /** The protocol cannot serve the request now (no quorum, membership change, shutting down). */
    record Unavailable(String reason) implements Rejection {}
}
