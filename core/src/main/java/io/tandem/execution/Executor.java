package io.tandem.execution;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Applies ordered commands to a state machine and answers reads (DESIGN §2.1): the one execution
 * core that both the real runtime and the simulator drive, so that the simulator tests the executor
 * that ships. An executor decides exactly-once execution through its sessions and reports every
 * outcome to its {@link ExecutionListener}; it never completes client futures itself, because where a
 * request's future waits (this node, another node, a simulated client) is the host's business.
 *
 * <p>Calls come from one thread at a time (the runtime's execution thread, or the simulator's only
 * thread). {@link #apply} receives entries strictly in index order starting after
 * {@link #appliedIndex()}. An executor may apply commands on worker threads of its own (the
 * parallel executors of P-SMR), but the outcomes it reports, its {@link #appliedIndex()} after
 * {@link #flush()} and its snapshots must be the same as the sequential executor's for the same
 * entries, so that every replica and every run agrees.
 */
public interface Executor {
    /** Applies the next entry (index {@code appliedIndex() + 1}; an entry at or below it is a re-delivery and ignored). */
    void apply(Committed entry);

    /** Answers {@code query} (request {@code requestId} of this node) once every entry up to {@code afterIndex} is applied. */
    void read(long requestId, long afterIndex, byte[] query);

    /**
     * Ends a batch: every entry handed to {@link #apply} so far is applied and reported, and every
     * read whose index is reached is answered. The host reports progress to the engine after it.
     */
    void flush();

    long appliedIndex();

    /**
     * The cached result of the command of {@code session} if it already executed here and its result
     * is still remembered ({@link SessionTable.Decision.Duplicate}), else null. Changes nothing. Called
     * after {@link #flush()}, on the thread that drives the executor: the host answers a request that
     * arrives after its command ran here (a client's retry, or the copy of a command that a
     * several-leader engine ordered through another member first) without waiting for it to be ordered
     * again. The default knows nothing.
     */
    default byte[] executedResult(ClientRequest.Session session) {
        return null;
    }

    /** Writes the session table and the state machine, as of {@link #appliedIndex()} (after a {@link #flush()}). */
    void writeSnapshot(OutputStream out) throws IOException;

    /** Replaces the whole state with a snapshot written by {@link #writeSnapshot}; pending reads stay pending. */
    void restoreSnapshot(InputStream in) throws IOException;
}
