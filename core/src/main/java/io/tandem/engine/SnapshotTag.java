package io.tandem.engine;

import java.util.Arrays;

/**
 * What an engine stores with a snapshot of the state machine taken at some applied index: an epoch
 * (Raft's term of that entry, a ballot round, or 0 for an engine that needs none) and opaque
 * engine data. Storage keeps both and hands them back ({@link io.tandem.storage.SnapshotMeta});
 * the runtime and the simulator never interpret them.
 *
 * @param epoch      the engine's epoch of the last entry the snapshot covers; {@code >= 0}
 * @param engineData opaque bytes stored with the snapshot
 */
public record SnapshotTag(long epoch, byte[] engineData) {
    /** No epoch, no data: the answer of engines that do not tag their snapshots. */
    public static final SnapshotTag NONE = new SnapshotTag(0, new byte[0]);

    public SnapshotTag {
        if (epoch < 0) throw new IllegalArgumentException("epoch must be >= 0, was " + epoch);
        engineData = engineData == null ? new byte[0] : engineData.clone();
    }

    public static SnapshotTag epoch(long epoch) {
        return new SnapshotTag(epoch, new byte[0]);
    }

    @Override
    public byte[] engineData() {
        return engineData.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SnapshotTag t && epoch == t.epoch && Arrays.equals(engineData, t.engineData);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(epoch) * 31 + Arrays.hashCode(engineData);
    }

    @Override
    public String toString() {
        return "SnapshotTag[epoch=" + epoch + ", engineData=" + engineData.length + " bytes]";
    }
}
