package io.tandem.statemachine;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The user's deterministic service, replicated by Tandem. Commands are applied one at a time in
 * the agreed order on an execution thread, never on the protocol loop; queries run on the same
 * thread between commands, so an implementation needs no locking of its own.
 *
 * <p>Determinism is the user's contract: the same commands in the same order must produce the
 * same state and results on every replica (no clocks, randomness or iteration over unordered hashes).
 */
public interface StateMachine {
    /**
     * Applies a command and returns its result for the client.
     *
     * @param index the command's position in the replicated order
     */
    byte[] apply(long index, byte[] command);

    /**
     * Applies a command like {@link #apply} and returns its result unencoded: the executor keeps it for
     * exactly-once answers and asks for the bytes only when a client waits for them, a retry repeats the
     * command or a snapshot is written ({@link CommandResult}'s contract). A machine whose results cost an
     * allocation to encode overrides this; the default encodes at once.
     */
    default CommandResult applyForResult(long index, byte[] command) {
        return CommandResult.of(apply(index, command));
    }

    /** Answers a read without changing state. */
    byte[] query(byte[] query);

    /** Writes the whole state; the stream is closed by the caller. */
    void snapshot(OutputStream out) throws IOException;

    /** Replaces the whole state with one written by {@link #snapshot}. */
    void restore(InputStream in) throws IOException;

    /**
     * Ends a batch of commands: the executor calls it on the execution thread after a run of
     * {@link #apply} calls (its {@code flush}), before it reports them applied, and calls it again
     * after every later batch. A machine that has seen this call may hold back making its changes
     * visible to other threads until the next one (it still answers {@link #query} and writes
     * {@link #snapshot} with every command applied so far). The default does nothing.
     */
    default void endBatch() {}
}
