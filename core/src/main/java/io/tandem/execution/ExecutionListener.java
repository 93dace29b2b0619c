package io.tandem.execution;

import io.tandem.engine.Committed;
import io.tandem.statemachine.CommandResult;

/** Where an {@link Executor} reports outcomes; called on the thread that drives the executor. */
public interface ExecutionListener {
    /** How one committed command ended. */
    sealed interface Outcome {
        /**
         * Applied now; {@code value} is the state machine's answer (empty for a no-op), not yet encoded: a
         * host that answers nobody for this command never pays for its bytes (issue 25).
         */
        record Applied(CommandResult value) implements Outcome {
            public Applied {
                java.util.Objects.requireNonNull(value, "value");
            }

            public Applied(byte[] result) {
                this(CommandResult.of(result));
            }

            /** The answer's bytes, encoded at each call ({@link CommandResult#encode}): call it once, when a reply needs them. */
            public byte[] result() {
                return value.encode();
            }
        }

        /** A retry of a command applied earlier: answered with the cached result, not applied again. */
        record Duplicate(byte[] result) implements Outcome {}

        /**
         * Below the session's low watermark: never applied now. Its client declared it would not ask
         * again, so nobody should be waiting; whoever is gets an indeterminate answer.
         */
        record Stale(long floor) implements Outcome {}
    }

    /**
     * The command at {@code entry.index()} was executed (or found a duplicate or stale). A no-op is
     * reported (as applied, with an empty result) only when it names an origin: it answers a request
     * that changed no state, such as a membership change; background no-ops are not reported.
     */
    void executed(Committed entry, Outcome outcome);

    /**
     * Optimistic P-SMR only (opt-psmr.md §3.3, the algorithm's variant): a command failed its safety
     * check on this replica and was not executed; order {@code taggedCommand}, its conservative copy,
     * through the engine like any command (no session, no reply expected). Every replica re-sends;
     * the executor runs the first copy ordered and drops the others, and reports the original
     * command's outcome when that copy executes.
     */
    default void resubmit(byte[] taggedCommand) {
        throw new UnsupportedOperationException("this host cannot order a re-sent command; optimistic P-SMR needs a host that implements ExecutionListener.resubmit");
    }

    /** Read {@code requestId} was answered; {@code error} is non-null if the state machine's query threw. */
    void readAnswered(long requestId, byte[] result, RuntimeException error);
}
