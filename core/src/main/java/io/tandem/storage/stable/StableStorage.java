package io.tandem.storage.stable;

/**
 * One node's blocking storage: its log, meta records and snapshots, opened together after the
 * data directory's identity (cluster, node, format version) was checked. Implementations:
 * {@link io.tandem.storage.file.FileStorage} and {@link io.tandem.storage.memory.MemoryStorage}.
 */
public interface StableStorage extends AutoCloseable {
    StableLog log();

    StableMetaStore meta();

    StableSnapshotStore snapshots();

    /** Where the data lives, for logs and reports ("/var/lib/tandem/n1 (FSYNC)", "memory"). */
    String description();

    /** Closes all three stores (without syncing the log) and releases the directory. */
    @Override
    void close();
}
