package io.tandem.storage.memory;

import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.SnapshotWriter;
import io.tandem.storage.StorageException;
import io.tandem.storage.StorageFailedException;
import io.tandem.storage.memory.MemoryDisk.StoredSnapshot;
import io.tandem.storage.stable.SnapshotInstall;
import io.tandem.storage.stable.SnapshotRejectedException;
import io.tandem.storage.stable.StableSnapshotStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * {@link StableSnapshotStore} on a {@link MemoryDisk}. A snapshot is built in this store's memory
 * and published to the disk in one step, so a crash before that leaves nothing, as with files.
 */
public final class MemorySnapshotStore implements StableSnapshotStore {
    private final MemoryDisk disk;
    private final int owner;
    private final int snapshotsToKeep;
    private volatile StorageException failure;

    MemorySnapshotStore(MemoryDisk disk, int owner, int snapshotsToKeep) {
        this.disk = disk;
        this.owner = owner;
        this.snapshotsToKeep = snapshotsToKeep;
    }

    @Override
    public List<SnapshotMeta> list() {
        synchronized (disk) {
            disk.checkAlive(owner);
            List<SnapshotMeta> all = new ArrayList<>();
            for (StoredSnapshot s : disk.snapshots.values()) all.add(s.meta());
            return all;
        }
    }

    @Override
    public SnapshotMeta write(long lastIncludedIndex, long lastIncludedTerm, byte[] engineData, SnapshotWriter writer) {
        checkWritable("writing a snapshot");
        synchronized (disk) {
            if (!disk.snapshots.isEmpty() && lastIncludedIndex < disk.snapshots.lastKey()) {
                throw new IllegalArgumentException("snapshot at index " + lastIncludedIndex + " is older than the latest retained one at " + disk.snapshots.lastKey());
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            writer.writeTo(out);
        } catch (IOException e) {
            throw new UncheckedIOException("state machine failed writing its snapshot", e);
        }
        byte[] data = out.toByteArray();
        SnapshotMeta meta = new SnapshotMeta(lastIncludedIndex, lastIncludedTerm, data.length, crc32c(data), engineData);
        publish(meta, data);
        return meta;
    }

    @Override
    public Optional<byte[]> readChunk(SnapshotMeta snapshot, long offset, int maxBytes) {
        if (offset < 0 || maxBytes <= 0) throw new IllegalArgumentException("bad chunk request: offset " + offset + ", maxBytes " + maxBytes);
        StoredSnapshot stored = retained(snapshot);
        if (stored == null) return Optional.empty();
        if (offset > snapshot.sizeBytes()) throw new IllegalArgumentException("offset " + offset + " beyond snapshot size " + snapshot.sizeBytes());
        int end = (int) Math.min(stored.data().length, offset + maxBytes);
        return Optional.of(Arrays.copyOfRange(stored.data(), (int) offset, end));
    }

    @Override
    public InputStream open(SnapshotMeta snapshot) {
        StoredSnapshot stored = retained(snapshot);
        if (stored == null) throw new IllegalArgumentException("snapshot is not retained: " + snapshot);
        return new ByteArrayInputStream(stored.data());
    }

    @Override
    public SnapshotInstall beginInstall(SnapshotMeta snapshot) {
        checkWritable("receiving a snapshot");
        return new MemoryInstall(snapshot);
    }

    @Override
    public void close() {
        // Nothing to release.
    }

    private StoredSnapshot retained(SnapshotMeta snapshot) {
        synchronized (disk) {
            disk.checkAlive(owner);
            StoredSnapshot stored = disk.snapshots.get(snapshot.lastIncludedIndex());
            return stored != null && stored.meta().equals(snapshot) ? stored : null;
        }
    }

    private void publish(SnapshotMeta meta, byte[] data) {
        synchronized (disk) {
            checkWritable("publishing snapshot " + meta.lastIncludedIndex());
            disk.snapshots.put(meta.lastIncludedIndex(), new StoredSnapshot(meta, data));
            while (disk.snapshots.size() > snapshotsToKeep) disk.snapshots.pollFirstEntry();
        }
    }

    private void checkWritable(String operation) {
        StorageException f = failure;
        if (f != null) throw new StorageFailedException("memory snapshot store failed earlier: " + f.getMessage(), f);
        try {
            synchronized (disk) {
                disk.checkWrite(owner, operation);
            }
        } catch (StorageException e) {
            failure = e;
            throw e;
        }
    }

    private static int crc32c(byte[] data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        return (int) crc.getValue();
    }

    private final class MemoryInstall implements SnapshotInstall {
        private final SnapshotMeta snapshot;
        private final ByteArrayOutputStream received = new ByteArrayOutputStream();
        private boolean finished;

        MemoryInstall(SnapshotMeta snapshot) {
            this.snapshot = snapshot;
        }

        @Override
        public SnapshotMeta snapshot() {
            return snapshot;
        }

        @Override
        public long bytesReceived() {
            return received.size();
        }

        @Override
        public void write(byte[] chunk) throws SnapshotRejectedException {
            if (finished) throw new IllegalStateException("snapshot install already finished");
            checkWritable("receiving a snapshot");
            if (received.size() + (long) chunk.length > snapshot.sizeBytes()) {
                abort();
                throw new SnapshotRejectedException("received " + (received.size() + (long) chunk.length) + " bytes for a snapshot of "
                        + snapshot.sizeBytes() + " bytes");
            }
            received.writeBytes(chunk);
        }

        @Override
        public SnapshotMeta commit() throws SnapshotRejectedException {
            if (finished) throw new IllegalStateException("snapshot install already finished");
            byte[] data = received.toByteArray();
            String problem = null;
            if (data.length != snapshot.sizeBytes()) {
                problem = "received " + data.length + " bytes for a snapshot of " + snapshot.sizeBytes() + " bytes";
            } else if (crc32c(data) != snapshot.crc32c()) {
                problem = "checksum mismatch: received data has crc32c " + Integer.toHexString(crc32c(data))
                        + ", the snapshot says " + Integer.toHexString(snapshot.crc32c());
            } else {
                synchronized (disk) {
                    if (!disk.snapshots.isEmpty() && snapshot.lastIncludedIndex() < disk.snapshots.lastKey()) {
                        problem = "snapshot at index " + snapshot.lastIncludedIndex() + " is older than the local one at " + disk.snapshots.lastKey();
                    }
                }
            }
            if (problem != null) {
                abort();
                throw new SnapshotRejectedException(problem);
            }
            finished = true;
            publish(snapshot, data);
            return snapshot;
        }

        @Override
        public void abort() {
            finished = true;
        }
    }
}
