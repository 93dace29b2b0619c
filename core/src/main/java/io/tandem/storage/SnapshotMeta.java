package io.tandem.storage;

import java.util.Arrays;
import java.util.Objects;

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
        if (lastIncludedTerm < 0) throw new IllegalArgumentException("lastIncludedTerm must be >= 0");
        if (sizeBytes < 0) throw new IllegalArgumentException("sizeBytes must be >= 0");
        if (engineData == null) engineData = new byte[0];
    }

    // A record compares arrays by reference; two descriptions of the same snapshot (one read back
    // from disk, one received from a peer) must be equal, so engineData is compared by content.
    @Override
    public boolean equals(Object o) {
        return o instanceof SnapshotMeta m
                && lastIncludedIndex == m.lastIncludedIndex
                && lastIncludedTerm == m.lastIncludedTerm
                && sizeBytes == m.sizeBytes
                && crc32c == m.crc32c
                && Arrays.equals(engineData, m.engineData);
    }

    @Override
    public int hashCode() {
        return Objects.hash(lastIncludedIndex, lastIncludedTerm, sizeBytes, crc32c, Arrays.hashCode(engineData));
    }

    @Override
    public String toString() {
        return "SnapshotMeta[index=" + lastIncludedIndex + ", term=" + lastIncludedTerm + ", size=" + sizeBytes
                + ", crc32c=" + Integer.toHexString(crc32c) + ", engineData=" + engineData.length + " bytes]";
    }
}
