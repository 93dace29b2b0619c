package io.tandem.sim;

import io.tandem.storage.DurableLog;
import io.tandem.storage.LogEntry;
import io.tandem.storage.MetaStore;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.SnapshotStore;
import io.tandem.storage.StorageEvent;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import java.util.zip.CRC32C;

/**
 * The simulated disk of one node, with the same contract as the real storage (DESIGN §6): the
 * engine-facing {@link DurableLog}, {@link MetaStore} and {@link SnapshotStore} accept work at once
 * and report durability later as {@link StorageEvent}s. Log and meta writes go through one ordered
 * queue with group commit: a flush covers everything queued when it started and completes after a
 * sampled latency. What a crash keeps is the durable image: flushed writes, optionally a random
 * prefix of the unsynced ones (the OS wrote them back), and optionally one torn record after them,
 * which recovery detects by its checksum and drops, as the real log cuts a torn tail.
 */
final class SimDisk {
    /** What the disk needs from its node: scheduling, delivery to the engine and the execution layer. */
    interface Host {
        /** Runs {@code completion} after {@code delayNanos}, unless the node crashes first. */
        void scheduleDisk(long delayNanos, String what, Runnable completion);

        /** Hands a completion to the engine (queued while the node is paused). */
        void storageEvent(StorageEvent event);

        /** One sampled disk latency for this node, slow-node factor included. */
        long diskLatency();

        /**
         * The latency of one group-committed flush of {@code entries} log appends and {@code bytes}
         * in all; the simulator's default ignores the size ({@link #diskLatency()}), the cost model
         * charges it (io.tandem.sim.cost.DiskModel).
         */
        default long flushLatency(int entries, long bytes) {
            return diskLatency();
        }

        /**
         * Runs {@code completion} when one group-committed flush of {@code entries} log appends and {@code bytes} is
         * durable, unless the node crashes first: after {@link #flushLatency}, or, under the cost model with a disk
         * shared by the nodes of one machine, when that device's commit covering it ends (io.tandem.sim.cost.DiskDevice).
         */
        default void flush(int entries, long bytes, Runnable completion) {
            scheduleDisk(flushLatency(entries, bytes), "flush", completion);
        }

        /** A snapshot received from a peer is durable: restore the state machine from it. */
        void installSnapshot(SnapshotMeta meta, byte[] data);

        /**
         * How many group-committed flushes the storage keeps in flight at once: 1 (the real storage's one disk thread,
         * one write + sync round at a time), or more for a what-if of a storage whose syncs overlap (a write issued
         * during a sync starts its own sync at once instead of waiting the running one out).
         */
        default int syncsInFlight() {
            return 1;
        }
    }

    private sealed interface Op {
        record Append(LogEntry entry) implements Op {}

        record Truncate(long fromIndex) implements Op {}

        record Compact(long upToIndex) implements Op {}

        record Reset(long afterIndex) implements Op {}

        record PutMeta(String key, byte[] value, long token) implements Op {}
    }

    /** A log record as it lies on the platter: the entry and the checksum written with it. */
    private record StoredRecord(LogEntry entry, int checksum) {
        boolean intact() {
            return checksum == SimDisk.checksum(entry);
        }
    }

    record StoredSnapshot(SnapshotMeta meta, byte[] data) {}

    private final Host host;

    /** Index, term, length and checksum in front of each record: what the real log writes beside the payload. */
    static final int RECORD_HEADER_BYTES = 24;

    // The durable image: what survives a crash.
    private final List<StoredRecord> records = new ArrayList<>();
    private long imageFirst = 1;
    private final TreeMap<String, byte[]> durableMeta = new TreeMap<>();
    private StoredSnapshot durableSnapshot;

    // Volatile state of the current incarnation.
    /** Writes not durable yet, in call order; the first {@link #covered} of them are in flushes already running. */
    private final List<Op> pending = new ArrayList<>();
    private int covered;
    /** The flushes running, oldest first: each the number of pending writes it covers. */
    private final java.util.ArrayDeque<Flight> inFlight = new java.util.ArrayDeque<>();
    private Log log;
    private TreeMap<String, byte[]> volatileMeta;
    private ByteArrayOutputStream incoming;
    private SnapshotMeta incomingMeta;

    private long tornRecordsWritten;
    private long tornRecordsDropped;
    private long flushes;

    SimDisk(Host host) {
        this.host = Objects.requireNonNull(host);
        recover();
    }

    DurableLog log() {
        return log;
    }

    MetaStore meta() {
        return meta;
    }

    SnapshotStore snapshots() {
        return snapshots;
    }

    Optional<StoredSnapshot> durableSnapshot() {
        return Optional.ofNullable(durableSnapshot);
    }

    long tornRecordsWritten() {
        return tornRecordsWritten;
    }

    long tornRecordsDropped() {
        return tornRecordsDropped;
    }

    long flushes() {
        return flushes;
    }

    /** Writes still waiting for a flush to complete. */
    int pendingWrites() {
        return pending.size();
    }

    /** The highest index in the durable image (what a crash now would keep, before torn-tail recovery). */
    long imageLastIndex() {
        return imageFirst + records.size() - 1;
    }

    /**
     * The node crashed: unsynced writes are lost, except that with probability {@code unsyncedSurvival}
     * a random prefix of them reached the platter, and with {@code tornWrites} the first lost log
     * append may be left half-written.
     */
    void crash(RandomGenerator random, boolean tornWrites, double unsyncedSurvival) {
        int keep = 0;
        if (unsyncedSurvival > 0 && !pending.isEmpty() && random.nextDouble() < unsyncedSurvival) keep = random.nextInt(pending.size() + 1);
        for (int i = 0; i < keep; i++) applyDurably(pending.get(i));
        if (tornWrites && keep < pending.size() && pending.get(keep) instanceof Op.Append(LogEntry entry) && random.nextBoolean()) {
            records.add(new StoredRecord(entry, ~checksum(entry)));
            tornRecordsWritten++;
        }
        pending.clear();
        covered = 0;
        inFlight.clear();
        incoming = null;
        incomingMeta = null;
        log = null;
        volatileMeta = null;
    }

    /** Restart: scan the durable image, cut a torn tail, and rebuild the engine-facing views from it. */
    void recover() {
        for (int i = 0; i < records.size(); i++) {
            if (!records.get(i).intact()) {
                tornRecordsDropped += records.size() - i;
                records.subList(i, records.size()).clear();
                break;
            }
        }
        log = new Log(imageFirst, records.stream().map(StoredRecord::entry).toList(), imageLastIndex());
        volatileMeta = new TreeMap<>(durableMeta);
    }

    /** One running flush: the writes it covers (the next ones after the flushes before it). */
    private static final class Flight {
        final int writes;

        Flight(int writes) {
            this.writes = writes;
        }
    }

    private void submit(Op op) {
        pending.add(op);
        if (inFlight.size() < host.syncsInFlight()) startFlush();
    }

    private void startFlush() {
        int batch = pending.size() - covered;
        int entries = 0;
        long bytes = 0;
        for (Op op : pending.subList(covered, pending.size())) {
            switch (op) {
                case Op.Append(LogEntry entry) -> {
                    entries++;
                    bytes += entry.payload().length + RECORD_HEADER_BYTES;
                }
                case Op.PutMeta(String key, byte[] value, long token) -> bytes += key.length() + value.length + RECORD_HEADER_BYTES;
                default -> {}
            }
        }
        Flight flight = new Flight(batch);
        covered += batch;
        inFlight.addLast(flight);
        host.flush(entries, bytes, () -> completeFlush(flight));
    }

    /**
     * {@code flight}'s sync returned. A sync makes durable everything written before it was asked for, so it completes the
     * flushes started before it too (with overlapping syncs a later one can return first); one that returns after a later
     * one completed it finds itself gone and does nothing.
     */
    private void completeFlush(Flight flight) {
        if (!inFlight.contains(flight)) return;
        flushes++;
        int batch = 0;
        while (true) {
            Flight f = inFlight.removeFirst();
            batch += f.writes;
            if (f == flight) break;
        }
        covered -= batch;
        boolean touchedLog = false;
        List<StorageEvent> events = new ArrayList<>();
        for (int i = 0; i < batch; i++) {
            Op op = pending.removeFirst();
            applyDurably(op);
            if (op instanceof Op.PutMeta(String key, byte[] value, long token)) events.add(new StorageEvent.MetaSaved(key, token));
            else touchedLog = true;
        }
        log.durableIndex = durablePrefix();
        while (pending.size() > covered && inFlight.size() < host.syncsInFlight()) startFlush();
        for (StorageEvent e : events) host.storageEvent(e);
        if (touchedLog) host.storageEvent(new StorageEvent.LogSynced(log.durableIndex));
    }

    /** The highest index on which the durable image and the engine's log agree. */
    private long durablePrefix() {
        long cap = imageLastIndex();
        for (Op op : pending) {
            switch (op) {
                case Op.Truncate t -> cap = Math.min(cap, t.fromIndex() - 1);
                case Op.Reset r -> cap = Math.min(cap, r.afterIndex());
                default -> {}
            }
        }
        return cap;
    }

    private void applyDurably(Op op) {
        switch (op) {
            case Op.Append(LogEntry entry) -> {
                if (entry.index() != imageLastIndex() + 1) throw new IllegalStateException("disk image out of order: " + entry.index() + " after " + imageLastIndex());
                records.add(new StoredRecord(entry, checksum(entry)));
            }
            case Op.Truncate(long from) -> {
                int keep = (int) Math.max(0, Math.min(records.size(), from - imageFirst));
                records.subList(keep, records.size()).clear();
            }
            case Op.Compact(long upTo) -> {
                int drop = (int) Math.max(0, Math.min(records.size(), upTo - imageFirst + 1));
                records.subList(0, drop).clear();
                imageFirst = Math.max(imageFirst, upTo + 1);
            }
            case Op.Reset(long after) -> {
                records.clear();
                imageFirst = after + 1;
            }
            case Op.PutMeta(String key, byte[] value, long token) -> durableMeta.put(key, value);
        }
    }

    private static int checksum(LogEntry entry) {
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(16).putLong(entry.index()).putLong(entry.term()).flip());
        crc.update(entry.payload());
        return (int) crc.getValue();
    }

    static int crc32c(byte[] data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        return (int) crc.getValue();
    }

    /** The engine's view of its log: the whole retained suffix in memory, mutations queued to the disk. */
    final class Log implements DurableLog {
        private long first;
        private final ArrayList<LogEntry> entries;
        private long durableIndex;

        private Log(long first, List<LogEntry> entries, long durableIndex) {
            this.first = first;
            this.entries = new ArrayList<>(entries);
            this.durableIndex = durableIndex;
        }

        @Override
        public long firstIndex() {
            return first;
        }

        @Override
        public long lastIndex() {
            return first + entries.size() - 1;
        }

        @Override
        public long durableIndex() {
            return durableIndex;
        }

        @Override
        public LogEntry entry(long index) {
            if (index < first || index > lastIndex()) {
                throw new IndexOutOfBoundsException("log index " + index + " outside [" + first + ", " + lastIndex() + "]");
            }
            return entries.get((int) (index - first));
        }

        @Override
        public void append(LogEntry entry) {
            if (entry.index() != lastIndex() + 1) {
                throw new IllegalArgumentException("append of index " + entry.index() + " but the log ends at " + lastIndex());
            }
            entries.add(entry);
            submit(new Op.Append(entry));
        }

        @Override
        public void truncateSuffix(long fromIndex) {
            if (fromIndex > lastIndex()) return;
            if (fromIndex < first) throw new IllegalArgumentException("cannot truncate from " + fromIndex + ": entries before " + first + " are compacted");
            entries.subList((int) (fromIndex - first), entries.size()).clear();
            durableIndex = Math.min(durableIndex, fromIndex - 1);
            submit(new Op.Truncate(fromIndex));
        }

        @Override
        public void compactPrefix(long upToIndex) {
            if (upToIndex < first) return;
            if (upToIndex > lastIndex()) throw new IllegalArgumentException("cannot compact up to " + upToIndex + ": the log ends at " + lastIndex());
            entries.subList(0, (int) (upToIndex - first + 1)).clear();
            first = upToIndex + 1;
            submit(new Op.Compact(upToIndex));
        }

        @Override
        public void resetAfter(long lastIncludedIndex) {
            if (lastIncludedIndex < 0) throw new IllegalArgumentException("lastIncludedIndex must be >= 0");
            entries.clear();
            first = lastIncludedIndex + 1;
            durableIndex = Math.min(durableIndex, lastIncludedIndex);
            submit(new Op.Reset(lastIncludedIndex));
        }
    }

    private final MetaStore meta = new MetaStore() {
        @Override
        public Optional<byte[]> get(String key) {
            return Optional.ofNullable(volatileMeta.get(key));
        }

        @Override
        public void put(String key, byte[] value, long token) {
            Objects.requireNonNull(key, "key");
            byte[] copy = value.clone();
            volatileMeta.put(key, copy);
            submit(new Op.PutMeta(key, copy, token));
        }
    };

    /** Stores a snapshot of the local state machine; durable (atomically, by rename) when the write completes. */
    void storeTakenSnapshot(SnapshotMeta snapshot, byte[] data, long token) {
        host.scheduleDisk(host.diskLatency(), "snapshot-write", () -> {
            if (durableSnapshot == null || snapshot.lastIncludedIndex() >= durableSnapshot.meta().lastIncludedIndex()) {
                durableSnapshot = new StoredSnapshot(snapshot, data);
            }
            host.storageEvent(new StorageEvent.SnapshotTaken(snapshot, token));
        });
    }

    private static boolean sameSnapshot(SnapshotMeta a, SnapshotMeta b) {
        return a.lastIncludedIndex() == b.lastIncludedIndex() && a.lastIncludedTerm() == b.lastIncludedTerm()
                && a.sizeBytes() == b.sizeBytes() && a.crc32c() == b.crc32c();
    }

    private final SnapshotStore snapshots = new SnapshotStore() {
        @Override
        public Optional<SnapshotMeta> latest() {
            return durableSnapshot == null ? Optional.empty() : Optional.of(durableSnapshot.meta());
        }

        @Override
        public void readChunk(SnapshotMeta snapshot, long offset, int maxBytes, long token) {
            if (offset < 0 || maxBytes <= 0) throw new IllegalArgumentException("readChunk needs offset >= 0 and maxBytes > 0");
            host.scheduleDisk(host.diskLatency(), "snapshot-read", () -> {
                StoredSnapshot stored = durableSnapshot;
                if (stored == null || !sameSnapshot(stored.meta(), snapshot)) {
                    host.storageEvent(new StorageEvent.SnapshotFailed(snapshot, "snapshot at index " + snapshot.lastIncludedIndex() + " is no longer stored", token));
                    return;
                }
                if (offset > stored.data().length) {
                    host.storageEvent(new StorageEvent.SnapshotFailed(snapshot, "offset " + offset + " beyond the snapshot's " + stored.data().length + " bytes", token));
                    return;
                }
                int end = (int) Math.min(stored.data().length, offset + (long) maxBytes);
                byte[] chunk = Arrays.copyOfRange(stored.data(), (int) offset, end);
                host.storageEvent(new StorageEvent.SnapshotChunkRead(snapshot, offset, chunk, end == stored.data().length, token));
            });
        }

        @Override
        public void writeChunk(SnapshotMeta snapshot, long offset, byte[] data, boolean last, long token) {
            if (offset == 0) {
                incoming = new ByteArrayOutputStream();
                incomingMeta = snapshot;
            } else if (incoming == null || !sameSnapshot(incomingMeta, snapshot) || incoming.size() != offset) {
                String why = "chunk at offset " + offset + " does not continue the snapshot being received";
                host.scheduleDisk(host.diskLatency(), "snapshot-chunk", () -> host.storageEvent(new StorageEvent.SnapshotFailed(snapshot, why, token)));
                return;
            }
            incoming.writeBytes(data);
            if (!last) {
                host.scheduleDisk(host.diskLatency(), "snapshot-chunk", () -> host.storageEvent(new StorageEvent.SnapshotChunkWritten(snapshot, offset, false, token)));
                return;
            }
            byte[] whole = incoming.toByteArray();
            incoming = null;
            incomingMeta = null;
            host.scheduleDisk(host.diskLatency(), "snapshot-install", () -> {
                if (whole.length != snapshot.sizeBytes() || crc32c(whole) != snapshot.crc32c()) {
                    host.storageEvent(new StorageEvent.SnapshotFailed(snapshot, "snapshot at index " + snapshot.lastIncludedIndex() + " failed verification (size or crc32c); nothing installed", token));
                    return;
                }
                if (durableSnapshot != null && snapshot.lastIncludedIndex() < durableSnapshot.meta().lastIncludedIndex()) {
                    // The contract (SnapshotStore#writeChunk): never installed over a newer one. Installs
                    // complete after independent latencies here, so an older transfer can finish last.
                    host.storageEvent(new StorageEvent.SnapshotFailed(snapshot, "snapshot at index " + snapshot.lastIncludedIndex()
                            + " is older than the local one at " + durableSnapshot.meta().lastIncludedIndex() + "; nothing installed", token));
                    return;
                }
                durableSnapshot = new StoredSnapshot(snapshot, whole);
                host.installSnapshot(snapshot, whole);
                host.storageEvent(new StorageEvent.SnapshotChunkWritten(snapshot, offset, true, token));
                host.storageEvent(new StorageEvent.SnapshotInstalled(snapshot, token));
            });
        }
    };

    /** For tests: the durable meta record, as a crash now would keep it. */
    Optional<byte[]> durableMeta(String key) {
        return Optional.ofNullable(durableMeta.get(key));
    }

    Map<String, byte[]> durableMetaView() {
        return java.util.Collections.unmodifiableMap(durableMeta);
    }
}
