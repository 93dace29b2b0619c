package io.tandem.storage;

/**
 * Describes one snapshot of the state machine.
 *
 * @param lastIncludedIndex the last log index whose effect the snapshot contains
 * @param lastIncludedTerm  the term (or ballot) of that entry
 * @param sizeBytes         total size of the snapshot data
 * @param crc32c            checksum of the whole data, verified before a snapshot is installed
 * @param engineData        opaque engine state stored with it (e.g. the membership configuration)
 */
public record SnapshotMeta(long lastIncludedIndex, long lastIncludedTerm, long sizeBytes, int crc32c, byte[] engineData) {
    public SnapshotMeta {
        if (lastIncludedIndex < 0) throw new IllegalArgumentException("lastIncludedIndex must be >= 0");
        if (sizeBytes < 0) throw new IllegalArgumentException("sizeBytes must be >= 0");
        if (engineData == null) engineData = new byte[0];
    }
}
