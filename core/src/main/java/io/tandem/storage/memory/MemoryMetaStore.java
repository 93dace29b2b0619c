package io.tandem.storage.memory;

import io.tandem.storage.StorageException;
import io.tandem.storage.StorageFailedException;
import io.tandem.storage.stable.StableMetaStore;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** {@link StableMetaStore} on a {@link MemoryDisk}: every put is durable (and atomic) at once. */
public final class MemoryMetaStore implements StableMetaStore {
    private final MemoryDisk disk;
    private final int owner;
    private StorageException failure;
    private boolean closed;

    MemoryMetaStore(MemoryDisk disk, int owner) {
        this.disk = disk;
        this.owner = owner;
    }

    @Override
    public Optional<byte[]> get(String key) {
        synchronized (disk) {
            checkOpen();
            byte[] value = disk.meta.get(key);
            return value == null ? Optional.empty() : Optional.of(value.clone());
        }
    }

    @Override
    public Map<String, byte[]> all() {
        synchronized (disk) {
            checkOpen();
            TreeMap<String, byte[]> copy = new TreeMap<>();
            disk.meta.forEach((k, v) -> copy.put(k, v.clone()));
            return copy;
        }
    }

    @Override
    public void putAll(Map<String, byte[]> values) {
        synchronized (disk) {
            checkOpen();
            if (failure != null) throw new StorageFailedException("memory meta store failed earlier: " + failure.getMessage(), failure);
            values.forEach(StableMetaStore::checkRecord);
            try {
                disk.checkWrite(owner, "writing meta records");
            } catch (StorageException e) {
                failure = e;
                throw e;
            }
            values.forEach((key, value) -> disk.meta.put(key, value.clone()));
        }
    }

    @Override
    public void close() {
        closed = true;
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("memory meta store is closed");
        disk.checkAlive(owner);
    }
}
