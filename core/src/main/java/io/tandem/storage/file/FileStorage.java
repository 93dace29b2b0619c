package io.tandem.storage.file;

import io.tandem.engine.NodeId;
import io.tandem.storage.StorageOptions;
import io.tandem.storage.stable.StableStorage;
import java.nio.file.Path;

/**
 * A node's storage in a data directory:
 * <pre>
 * dataDir/
 *   tandem.id          identity: format version, cluster id, node id ({@link DataDirectory})
 *   tandem.lock        held while the node runs
 *   meta.dat           meta records ({@link FileMetaStore})
 *   log/log-*.seg      the write-ahead log ({@link SegmentedLog})
 *   snapshots/*.snap   snapshots ({@link FileSnapshotStore})
 * </pre>
 */
public final class FileStorage implements StableStorage {
    private final DataDirectory directory;
    private final SegmentedLog log;
    private final FileMetaStore meta;
    private final FileSnapshotStore snapshots;
    private final StorageOptions options;

    private FileStorage(DataDirectory directory, SegmentedLog log, FileMetaStore meta, FileSnapshotStore snapshots, StorageOptions options) {
        this.directory = directory;
        this.log = log;
        this.meta = meta;
        this.snapshots = snapshots;
        this.options = options;
    }

    /**
     * Opens (or creates) the data directory of {@code node} in cluster {@code clusterId} and recovers
     * its log, meta records and snapshots.
     *
     * @throws io.tandem.storage.DataDirectoryMismatchException if the directory is another cluster's,
     *         another node's, of another format version, or not a Tandem directory
     * @throws io.tandem.storage.CorruptStorageException        if stored data is damaged beyond a torn log tail
     */
    public static FileStorage open(Path dataDir, String clusterId, NodeId node, StorageOptions options) {
        boolean fsync = options.flushPolicy().fsync();
        DataDirectory directory = DataDirectory.open(dataDir, clusterId, node, fsync);
        SegmentedLog log = null;
        FileMetaStore meta = null;
        try {
            log = SegmentedLog.open(directory.path().resolve("log"), options.flushPolicy(), options.segmentBytes());
            meta = FileMetaStore.open(directory.path(), options.flushPolicy());
            FileSnapshotStore snapshots = FileSnapshotStore.open(directory.path().resolve("snapshots"), options.flushPolicy(), options.snapshotsToKeep());
            return new FileStorage(directory, log, meta, snapshots, options);
        } catch (RuntimeException e) {
            if (meta != null) meta.close();
            if (log != null) log.close();
            directory.close();
            throw e;
        }
    }

    @Override
    public SegmentedLog log() {
        return log;
    }

    @Override
    public FileMetaStore meta() {
        return meta;
    }

    @Override
    public FileSnapshotStore snapshots() {
        return snapshots;
    }

    public Path path() {
        return directory.path();
    }

    @Override
    public String description() {
        return directory.path() + " (" + options.flushPolicy() + ")";
    }

    @Override
    public void close() {
        try {
            snapshots.close();
            meta.close();
            log.close();
        } finally {
            directory.close();
        }
    }
}
