package io.tandem.storage.stable;

import io.tandem.storage.SnapshotMeta;

/**
 * A snapshot being received from a peer, chunk by chunk in order. It stays invisible until
 * {@link #commit()} has verified its size and checksum and made it durable; a crash or
 * {@link #abort()} before that leaves no trace.
 */
public interface SnapshotInstall extends AutoCloseable {
    SnapshotMeta snapshot();

    long bytesReceived();

    /** Appends the next chunk. */
    void write(byte[] chunk) throws SnapshotRejectedException;

    /** Verifies the data against {@link #snapshot()}, then makes it the durable latest snapshot. */
    SnapshotMeta commit() throws SnapshotRejectedException;

    /** Discards the partial data. Idempotent; no-op after {@link #commit()}. */
    void abort();

    @Override
    default void close() {
        abort();
    }
}
