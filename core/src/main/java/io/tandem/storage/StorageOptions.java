package io.tandem.storage;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;

/**
 * Tuning of a node's storage.
 *
 * @param flushPolicy     whether batches are fsynced ({@link FlushPolicy#FSYNC}, the default)
 * @param segmentBytes    size at which the log rolls to a new segment file; compaction deletes
 *                        whole segments, so this is also the granularity of reclaimed space
 * @param snapshotsToKeep how many snapshots are retained (at least 1); keeping 2 lets a peer finish
 *                        reading the previous snapshot while a new one is written
 * @param metrics         where the disk thread's meters ({@code tandem.storage.*}) are registered;
 *                        {@code null} for none
 */
public record StorageOptions(FlushPolicy flushPolicy, long segmentBytes, int snapshotsToKeep, MeterRegistry metrics) {
    public static final long DEFAULT_SEGMENT_BYTES = 64L << 20;
    public static final int DEFAULT_SNAPSHOTS_TO_KEEP = 2;

    public StorageOptions {
        Objects.requireNonNull(flushPolicy, "flushPolicy");
        if (segmentBytes < 4096 || segmentBytes > (1L << 30)) {
            throw new IllegalArgumentException("segmentBytes must be in [4 KiB, 1 GiB], was " + segmentBytes);
        }
        if (snapshotsToKeep < 1) throw new IllegalArgumentException("snapshotsToKeep must be >= 1, was " + snapshotsToKeep);
    }

    public static StorageOptions defaults() {
        return new StorageOptions(FlushPolicy.FSYNC, DEFAULT_SEGMENT_BYTES, DEFAULT_SNAPSHOTS_TO_KEEP, null);
    }

    public static StorageOptions of(FlushPolicy flushPolicy) {
        return defaults().withFlushPolicy(flushPolicy);
    }

    public StorageOptions withFlushPolicy(FlushPolicy policy) {
        return new StorageOptions(policy, segmentBytes, snapshotsToKeep, metrics);
    }

    public StorageOptions withSegmentBytes(long bytes) {
        return new StorageOptions(flushPolicy, bytes, snapshotsToKeep, metrics);
    }

    public StorageOptions withSnapshotsToKeep(int count) {
        return new StorageOptions(flushPolicy, segmentBytes, count, metrics);
    }

    /** Registers the storage meters in {@code registry} ({@code null}: none). */
    public StorageOptions withMetrics(MeterRegistry registry) {
        return new StorageOptions(flushPolicy, segmentBytes, snapshotsToKeep, registry);
    }
}
