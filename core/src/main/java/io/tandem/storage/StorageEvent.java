package io.tandem.storage;

/** Completions of storage work, delivered to the engine on its own loop. */
public sealed interface StorageEvent {
    /** Every log entry up to {@code durableIndex} is on stable storage. */
    record LogSynced(long durableIndex) implements StorageEvent {}

    /** The meta record {@code key} written with {@code token} is durable. */
    record MetaSaved(String key, long token) implements StorageEvent {}

    /** A snapshot of the local state machine was taken and stored. */
    record SnapshotTaken(SnapshotMeta snapshot, long token) implements StorageEvent {}

    record SnapshotChunkRead(SnapshotMeta snapshot, long offset, byte[] data, boolean last, long token) implements StorageEvent {}

    record SnapshotChunkWritten(SnapshotMeta snapshot, long offset, boolean last, long token) implements StorageEvent {}

    /** A snapshot received from a peer is durable and the state machine now reflects it. */
    record SnapshotInstalled(SnapshotMeta snapshot, long token) implements StorageEvent {}

    /**
     * Storage failed (disk full, I/O error, corrupt data). Nothing requested after the last
     * successful completion is durable; the node must stop acknowledging anything that depends on it.
     */
    record StorageFailed(String operation, String reason) implements StorageEvent {}
}
