package io.tandem.storage.memory;

import io.tandem.engine.NodeId;
import io.tandem.storage.DataDirectoryMismatchException;
import io.tandem.storage.StorageOptions;
import io.tandem.storage.stable.StableStorage;

/**
 * A node's storage on a {@link MemoryDisk}, with the contract of the file storage: the same
 * identity check, the same durability rules, the same loss of unsynced appends on a crash.
 */
public final class MemoryStorage implements StableStorage {
    private final MemoryDisk disk;
    private final int owner;
    private final MemoryLog log;
    private final MemoryMetaStore meta;
    private final MemorySnapshotStore snapshots;
    private final String description;

    private MemoryStorage(MemoryDisk disk, int owner, StorageOptions options, String nodeId) {
        this.disk = disk;
        this.owner = owner;
        this.log = new MemoryLog(disk, owner);
        this.meta = new MemoryMetaStore(disk, owner);
        this.snapshots = new MemorySnapshotStore(disk, owner, options.snapshotsToKeep());
        this.description = "memory (node " + nodeId + ")";
    }

    /**
     * Opens the storage of {@code node} in cluster {@code clusterId} on {@code disk}; the first open
     * stamps the disk with that identity. {@code options.flushPolicy()} and {@code segmentBytes}
     * have no effect in memory; {@code snapshotsToKeep} does.
     *
     * @throws DataDirectoryMismatchException if the disk belongs to another cluster or node
     * @throws io.tandem.storage.StorageIOException if a store opened earlier on the disk is still open
     */
    public static MemoryStorage open(MemoryDisk disk, String clusterId, NodeId node, StorageOptions options) {
        synchronized (disk) {
            if (disk.clusterId == null) {
                disk.clusterId = clusterId;
                disk.nodeId = node.value();
            } else if (!disk.clusterId.equals(clusterId)) {
                throw new DataDirectoryMismatchException("memory disk belongs to cluster '" + disk.clusterId + "', not to cluster '"
                        + clusterId + "'; refusing to open it");
            } else if (!disk.nodeId.equals(node.value())) {
                throw new DataDirectoryMismatchException("memory disk belongs to node '" + disk.nodeId + "', not to node '" + node
                        + "'; refusing to open it");
            }
            return new MemoryStorage(disk, disk.attach(clusterId, node.value()), options, node.value());
        }
    }

    @Override
    public MemoryLog log() {
        return log;
    }

    @Override
    public MemoryMetaStore meta() {
        return meta;
    }

    @Override
    public MemorySnapshotStore snapshots() {
        return snapshots;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public void close() {
        log.close();
        meta.close();
        snapshots.close();
        disk.detach(owner);
    }
}
