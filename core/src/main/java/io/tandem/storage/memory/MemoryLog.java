package io.tandem.storage.memory;

import io.tandem.storage.LogEntry;
import io.tandem.storage.StorageException;
import io.tandem.storage.StorageFailedException;
import io.tandem.storage.stable.StableLog;
import java.util.function.Consumer;

/** {@link StableLog} on a {@link MemoryDisk}: appends sit in the disk's page cache until {@link #sync()}. */
public final class MemoryLog implements StableLog {
    private final MemoryDisk disk;
    private final int owner;
    private StorageException failure;
    private boolean closed;

    MemoryLog(MemoryDisk disk, int owner) {
        this.disk = disk;
        this.owner = owner;
    }

    @Override
    public long firstIndex() {
        synchronized (disk) {
            return disk.logFirst;
        }
    }

    @Override
    public long lastIndex() {
        synchronized (disk) {
            return disk.logFirst + disk.log.size() + disk.unsynced.size() - 1;
        }
    }

    @Override
    public long syncedIndex() {
        synchronized (disk) {
            return disk.logFirst + disk.log.size() - 1;
        }
    }

    @Override
    public LogEntry entry(long index) {
        synchronized (disk) {
            checkOpen();
            long first = disk.logFirst;
            long last = lastIndex();
            if (index < first || index > last) throw new IndexOutOfBoundsException("log index " + index + " outside [" + first + ", " + last + "]");
            int slot = (int) (index - first);
            return slot < disk.log.size() ? disk.log.get(slot) : disk.unsynced.get(slot - disk.log.size());
        }
    }

    @Override
    public void forEach(long fromIndex, Consumer<LogEntry> action) {
        long last;
        synchronized (disk) {
            checkOpen();
            if (fromIndex < disk.logFirst) throw new IndexOutOfBoundsException("log index " + fromIndex + " is before the first retained " + disk.logFirst);
            last = lastIndex();
        }
        for (long index = fromIndex; index <= last; index++) action.accept(entry(index));
    }

    @Override
    public void append(LogEntry entry) {
        synchronized (disk) {
            checkWritable("append");
            if (entry.index() != lastIndex() + 1) {
                throw new IllegalArgumentException("append of index " + entry.index() + " to a log ending at " + lastIndex());
            }
            if (entry.payload().length > MAX_PAYLOAD_BYTES) throw new IllegalArgumentException("payload exceeds " + MAX_PAYLOAD_BYTES + " bytes");
            disk.unsynced.add(entry);
        }
    }

    @Override
    public long sync() {
        synchronized (disk) {
            checkWritable("sync");
            disk.log.addAll(disk.unsynced);
            disk.unsynced.clear();
            return syncedIndex();
        }
    }

    @Override
    public void truncateSuffix(long fromIndex) {
        synchronized (disk) {
            checkWritable("truncate");
            if (fromIndex < disk.logFirst) {
                throw new IllegalArgumentException("cannot truncate from " + fromIndex + ": entries before " + disk.logFirst + " are compacted");
            }
            if (fromIndex > lastIndex()) return;
            sync();
            disk.log.subList((int) (fromIndex - disk.logFirst), disk.log.size()).clear();
        }
    }

    @Override
    public void compactPrefix(long upToIndex) {
        synchronized (disk) {
            checkWritable("compact");
            if (upToIndex < disk.logFirst) return;
            if (upToIndex > lastIndex()) {
                throw new IllegalArgumentException("cannot compact up to " + upToIndex + " beyond the last index " + lastIndex() + "; use resetAfter");
            }
            sync();
            disk.log.subList(0, (int) (upToIndex - disk.logFirst + 1)).clear();
            disk.logFirst = upToIndex + 1;
        }
    }

    @Override
    public void resetAfter(long lastIncludedIndex) {
        synchronized (disk) {
            checkWritable("reset");
            if (lastIncludedIndex < 0) throw new IllegalArgumentException("lastIncludedIndex must be >= 0, was " + lastIncludedIndex);
            disk.unsynced.clear();
            disk.log.clear();
            disk.logFirst = lastIncludedIndex + 1;
        }
    }

    @Override
    public void close() {
        closed = true;
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("memory log is closed");
        disk.checkAlive(owner);
    }

    private void checkWritable(String operation) {
        checkOpen();
        if (failure != null) throw new StorageFailedException("memory log failed earlier and accepts no more writes: " + failure.getMessage(), failure);
        try {
            disk.checkWrite(owner, operation);
        } catch (StorageException e) {
            failure = e;
            throw e;
        }
    }
}
