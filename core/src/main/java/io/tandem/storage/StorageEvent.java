package io.tandem.storage;

/** Completions of storage work, delivered to the engine on its own loop. */
public sealed interface StorageEvent {
    /**
     * Every log entry up to {@code durableIndex} was on stable storage when the disk posted this.
     * If the engine truncated or reset its log after that, the value may still name entries that
     * were since replaced: act on {@link DurableLog#durableIndex()}, which is exact on the loop,
     * and treat this event as "durability may have advanced".
     */
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
     * A snapshot transfer failed without harming local storage: a chunk of a snapshot that is no
     * longer retained was asked for, chunks arrived out of order, or received data failed its
     * size or checksum check (nothing was installed). The engine may restart the transfer.
     */
    record SnapshotFailed(SnapshotMeta snapshot, String reason, long token) implements StorageEvent {}

    /**
     * Storage failed (disk full, I/O error, corrupt data). Nothing requested after the last
     * successful completion is durable; the node must stop acknowledging anything that depends on it.
     */
    record StorageFailed(String operation, String reason) implements StorageEvent {}
}
