package io.tandem.engine;

import java.util.Objects;

/**
 * An operator's request to change who is in the group or who leads it, handed to
 * {@link Engine#onAdmin}. It completes through the same pending-request machinery as a client
 * command: the engine rejects it ({@link EngineContext#reject}) or orders an entry carrying its
 * request id, and the request completes (with an empty result) when that entry is applied.
 * Membership changes are single-server: add a learner, let it catch up, promote it.
 */
public sealed interface AdminRequest {
    /** The node the request is about. */
    NodeId node();

    /** A short name for messages and logs ("add-learner", "promote", "remove", "transfer-leadership"). */
    String operation();

    /** Adds a non-voting member that starts receiving the order. */
    record AddLearner(NodeId node) implements AdminRequest {
        public AddLearner {
            Objects.requireNonNull(node, "node");
        }

        @Override
        public String operation() {
            return "add-learner";
        }
    }

    /** Makes a caught-up learner a voter. */
    record Promote(NodeId node) implements AdminRequest {
        public Promote {
            Objects.requireNonNull(node, "node");
        }

        @Override
        public String operation() {
            return "promote";
        }
    }

    /** Removes a voter or a learner; a leader that removes itself hands over leadership. */
    record Remove(NodeId node) implements AdminRequest {
        public Remove {
            Objects.requireNonNull(node, "node");
        }

        @Override
        public String operation() {
            return "remove";
        }
    }

    /** Hands leadership to a caught-up voter; completes when the new leader has committed an entry of its own. */
    record TransferLeadership(NodeId node) implements AdminRequest {
        public TransferLeadership {
            Objects.requireNonNull(node, "node");
        }

        @Override
        public String operation() {
            return "transfer-leadership";
        }
    }
}
