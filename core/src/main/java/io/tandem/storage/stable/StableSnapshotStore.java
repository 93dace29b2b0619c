package io.tandem.storage.stable;

import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.SnapshotWriter;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;

/**
 * Durable snapshots of the state machine, blocking. Thread-safe: the execution thread writes
 * local snapshots while the disk thread reads chunks for peers and installs received ones.
 *
 * <p>Each snapshot is stored with its {@link SnapshotMeta} and a CRC32C over its data; it becomes
 * visible only once complete and durable (write to a temporary name, fsync, atomic rename, fsync
 * of the directory). The newest {@code snapshotsToKeep} are retained, ordered by
 * {@link SnapshotMeta#lastIncludedIndex()}.
 */
public interface StableSnapshotStore extends AutoCloseable {
    /** Retained snapshots, oldest first. */
    List<SnapshotMeta> list();

    default Optional<SnapshotMeta> latest() {
        List<SnapshotMeta> all = list();
        return all.isEmpty() ? Optional.empty() : Optional.of(all.getLast());
    }

    /**
     * Streams a snapshot out of {@code writer} (on the calling thread), checksums it and stores it
     * durably. {@code lastIncludedIndex} must not be older than the latest retained snapshot.
     * An {@link java.io.IOException} of the writer itself (not of the storage) is rethrown as
     * {@link java.io.UncheckedIOException} and leaves the store usable.
     */
    SnapshotMeta write(long lastIncludedIndex, long lastIncludedTerm, byte[] engineData, SnapshotWriter writer);

    /**
     * Reads up to {@code maxBytes} of {@code snapshot}'s data at {@code offset}; empty if the
     * snapshot is no longer retained.
     */
    Optional<byte[]> readChunk(SnapshotMeta snapshot, long offset, int maxBytes);

    /**
     * Opens {@code snapshot}'s data. The stream verifies the checksum when it reaches the end (or is
     * closed, reading the rest) and throws {@link io.tandem.storage.CorruptStorageException} on a
     * mismatch.
     */
    InputStream open(SnapshotMeta snapshot);

    /** Starts receiving {@code snapshot} from a peer. */
    SnapshotInstall beginInstall(SnapshotMeta snapshot);

    @Override
    void close();
}
