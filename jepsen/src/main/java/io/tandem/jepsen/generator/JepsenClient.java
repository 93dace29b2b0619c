package io.tandem.jepsen.generator;

import java.util.concurrent.CompletableFuture;

/**
 * A client bound to one process (Jepsen's {@code jepsen.client/Client}): the interpreter opens one
 * lazily for each new process and closes it when its process crashes ({@code :info}), so a new process
 * never inherits a connection in an unknown state.
 */
public interface JepsenClient extends AutoCloseable {
    /**
     * Performs an operation. The future completes with how it ended; it may also complete
     * exceptionally, which the interpreter records as {@code :info} ("indeterminate"), or never, which
     * the interpreter's operation timeout turns into {@code :info}.
     */
    CompletableFuture<Completion> invoke(Invocation invocation);

    @Override
    void close();

    /** Opens clients. */
    @FunctionalInterface
    interface Factory {
        /**
         * A client for {@code process}, talking to node {@code node} (1-based), as Jepsen binds thread
         * {@code t} to node {@code t mod n}.
         */
        JepsenClient open(long process, int node) throws Exception;
    }
}
