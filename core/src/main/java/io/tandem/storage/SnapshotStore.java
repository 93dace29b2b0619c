package io.tandem.storage;

import java.util.Optional;

/**
 * The engine's view of snapshots (DESIGN §6). Non-blocking; results arrive as
 * {@link StorageEvent}s. Taking a snapshot of the local state machine is requested with
 * {@link io.tandem.engine.EngineContext#takeSnapshot}; this interface moves snapshots between peers
 * in chunks.
 */
public interface SnapshotStore {
    /** The newest complete snapshot, if any. */
    Optional<SnapshotMeta> latest();

    /**
     * Reads up to {@code maxBytes} of {@code snapshot} at {@code offset}; completes with
     * {@link StorageEvent.SnapshotChunkRead}, or {@link StorageEvent.SnapshotFailed} if the snapshot
     * is no longer retained (a newer one replaced it: restart the transfer from {@link #latest()}).
     */
    void readChunk(SnapshotMeta snapshot, long offset, int maxBytes, long token);

    /**
     * Writes a chunk of a snapshot received from a peer. Chunks arrive in order from offset 0. After
     * the last chunk the data is verified against {@code snapshot.crc32c()}, the state machine is
     * restored from it and {@link StorageEvent.SnapshotInstalled} follows; a bad checksum, a chunk
     * out of order or a snapshot older than the local one gives {@link StorageEvent.SnapshotFailed}
     * and nothing is installed. A chunk at offset 0 starts a new transfer, abandoning any other.
     */
    void writeChunk(SnapshotMeta snapshot, long offset, byte[] data, boolean last, long token);
}
