package io.tandem.statemachine;

/**
 * A command's result as the state machine made it, turned into the client's bytes only when somebody
 * needs them (issue 25). Every replica applies every command and keeps its result for exactly-once
 * answers, but only the node whose client waits, a retry of the command, or a snapshot ever reads the
 * bytes: on the other replicas the encoding was work for nothing.
 *
 * <p>Contract: {@link #encode} returns the same bytes every time it is called, on every replica, whenever
 * it is called: the result must depend only on the command and the state it was applied to, so the state
 * machine must never change anything the result refers to afterwards (immutable values, or copies). Called
 * on the thread that drives the executor, like {@link StateMachine#apply}.
 */
public interface CommandResult {
    /** The result's bytes for the client; the caller must not modify them. */
    byte[] encode();

    /** A result that is bytes already. */
    static CommandResult of(byte[] bytes) {
        return new Encoded(bytes == null ? EMPTY_BYTES : bytes);
    }

    /** Shared by {@link #EMPTY} and nulls: never modified. */
    byte[] EMPTY_BYTES = new byte[0];

    /** The empty result (a command that answers nothing). */
    CommandResult EMPTY = new Encoded(EMPTY_BYTES);

    /** Bytes that are the result already. */
    record Encoded(byte[] bytes) implements CommandResult {
        public Encoded {
            java.util.Objects.requireNonNull(bytes, "bytes");
        }

        @Override
        public byte[] encode() {
            return bytes;
        }
    }
}
