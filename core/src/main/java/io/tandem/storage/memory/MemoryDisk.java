package io.tandem.storage.memory;

import io.tandem.storage.LogEntry;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.StorageFullException;
import io.tandem.storage.StorageIOException;
import java.util.ArrayList;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * The "disk" of one node for in-memory storage: it outlives the stores opened on it, the way a
 * data directory outlives a process, so tests can crash a node and recover it without files.
 *
 * <p>It keeps what a real disk keeps: synced log entries, meta records and published snapshots,
 * plus log appends written but not yet synced (the page cache). {@link #crash()} loses the
 * unsynced appends; {@link #crash(RandomGenerator)} keeps a random prefix of them, as a real disk
 * may. Either way every store opened before the crash is fenced: like a dead process, it can no
 * longer touch the disk (its calls throw). {@link #setFull} makes every write fail with
 * {@link StorageFullException}, to exercise the disk-full path.
 *
 * <p>Thread-safe; all state is guarded by this object's monitor.
 */
public final class MemoryDisk {
    // Identity, set by the first open.
    String clusterId;
    String nodeId;

    // Log: durable entries are log[0..], with index logFirst + i; unsynced ones follow them.
    final ArrayList<LogEntry> log = new ArrayList<>();
    final ArrayList<LogEntry> unsynced = new ArrayList<>();
    long logFirst = 1;

    final TreeMap<String, byte[]> meta = new TreeMap<>();
    final TreeMap<Long, StoredSnapshot> snapshots = new TreeMap<>();

    private int generation;
    private boolean inUse;
    private boolean full;

    record StoredSnapshot(SnapshotMeta meta, byte[] data) {}

    /** Simulates a crash of the node using this disk: unsynced log appends are lost. */
    public synchronized void crash() {
        crashKeeping(0);
    }

    /** Simulates a crash where the disk had already persisted a random prefix of the unsynced appends. */
    public synchronized void crash(RandomGenerator random) {
        crashKeeping(random.nextInt(unsynced.size() + 1));
    }

    private void crashKeeping(int keptUnsynced) {
        log.addAll(unsynced.subList(0, keptUnsynced));
        unsynced.clear();
        generation++;
        inUse = false;
    }

    /** While full, every write (log append or sync, meta put, snapshot) fails with {@link StorageFullException}. */
    public synchronized void setFull(boolean full) {
        this.full = full;
    }

    /** Entries that survived so far: what a recovery would see (for tests). */
    public synchronized long durableLastIndex() {
        return logFirst + log.size() - 1;
    }

    synchronized int attach(String clusterId, String nodeId) {
        if (inUse) throw new StorageIOException("memory disk of node " + nodeId + " is in use by another store; close or crash() it first");
        inUse = true;
        return generation;
    }

    synchronized void detach(int owner) {
        if (owner == generation) inUse = false;
    }

    /** Throws unless the store of {@code owner} is still alive and the disk has room. */
    void checkWrite(int owner, String what) {
        checkAlive(owner);
        if (full) throw new StorageFullException(what + ": disk full (No space left on device, simulated)", null);
    }

    void checkAlive(int owner) {
        if (owner != generation) throw new StorageIOException("the disk crashed; this store belongs to a dead process");
    }
}
