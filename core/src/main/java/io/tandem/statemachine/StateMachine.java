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

    /**
     * {@link #applyForResult(long, byte[])} of the command in {@code buffer[offset, offset + length)}: the
     * executor hands over the log entry's own bytes with the command inside them (issue 25: no copy of the
     * command per entry on every replica). The machine must not write into {@code buffer}, nor keep it or a
     * part of it in its state or result: it is the log's entry (copy what it keeps, as a decoder does). The
     * default copies the range out and calls {@link #applyForResult(long, byte[])}.
     */
    default CommandResult applyForResult(long index, byte[] buffer, int offset, int length) {
        byte[] command = offset == 0 && length == buffer.length ? buffer : java.util.Arrays.copyOfRange(buffer, offset, offset + length);
        return applyForResult(index, command);
    }

    /**
     * {@link #applyForResult(long, byte[], int, int)} with the member the command was submitted on as the engine
     * delivered it ({@link io.tandem.engine.Committed#origin}; null if the engine named none): what the executor
     * calls. A machine that needs to know who sent each command, and runs over a protocol that names it
     * ({@link io.tandem.engine.Protocol#deliversSenderAsOrigin}), reads it here instead of carrying it in every
     * command (the channel's receiver). The default ignores it.
     */
    default CommandResult applyForResult(long index, io.tandem.engine.NodeId origin, byte[] buffer, int offset, int length) {
        return applyForResult(index, buffer, offset, length);
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
     *
     * <p>A machine may also hold its changes back from other threads for longer, across several
     * batches, and make them visible only when asked (issue 25: the KV store's B+-tree copies every leaf
     * a published version can see before it changes it, so publishing at every batch cost a leaf copy per
     * put). What stays guaranteed: {@link #query} and {@link #snapshot} on the execution thread see every
     * command applied before them, so every read and snapshot the executor serves after a command was
     * applied sees it; other threads see some earlier whole state (never a part of a command or of a
     * batch), and how stale it may get is the machine's to document ({@code KvStateMachine}: a bounded
     * number of batches, or the next batch once such a reader has asked).
     */
    default void endBatch() {}
}
