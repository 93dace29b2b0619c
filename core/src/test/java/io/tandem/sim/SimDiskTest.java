package io.tandem.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.storage.LogEntry;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.StorageEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SimDiskTest {
    /** A disk host with its own little clock: completions run in time order when the test says so. */
    static final class Host implements SimDisk.Host {
        private record Job(long at, long seq, Runnable run) {}

        final List<StorageEvent> events = new ArrayList<>();
        final List<byte[]> installed = new ArrayList<>();
        private final PriorityQueue<Job> jobs = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
        private long now;
        private long seq;
        private long generation;
        /** Flushes in flight at once (the storage's default: 1). */
        int syncsInFlight = 1;
        /** Latencies to hand out first, in order; then 1 µs each. */
        final java.util.ArrayDeque<Long> latencies = new java.util.ArrayDeque<>();

        @Override
        public int syncsInFlight() {
            return syncsInFlight;
        }

        @Override
        public void scheduleDisk(long delayNanos, String what, Runnable completion) {
            long gen = generation;
            jobs.add(new Job(now + delayNanos, seq++, () -> {
                if (gen == generation) completion.run();
            }));
        }

        @Override
        public void storageEvent(StorageEvent event) {
            events.add(event);
        }

        @Override
        public long diskLatency() {
            return latencies.isEmpty() ? 1_000 : latencies.removeFirst();
        }

        @Override
        public void installSnapshot(SnapshotMeta meta, byte[] data) {
            installed.add(data);
        }

        /** Runs the next completion only. */
        void step() {
            Job j = jobs.poll();
            now = j.at;
            j.run.run();
        }

        void drain() {
            while (!jobs.isEmpty()) step();
        }

        /** The process died: completions in flight never report. */
        void crash() {
            generation++;
            jobs.clear();
        }
    }

    private final Host host = new Host();
    private final SimDisk disk = new SimDisk(host);

    private static LogEntry entry(long index, long term) {
        return new LogEntry(index, term, ("e" + index + "t" + term).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void appendsBecomeDurableWhenTheFlushCompletes() {
        disk.log().append(entry(1, 1));
        disk.log().append(entry(2, 1));
        assertThat(disk.log().lastIndex()).isEqualTo(2);
        assertThat(disk.log().durableIndex()).isZero();
        assertThat(disk.log().entry(2)).usingRecursiveComparison().isEqualTo(entry(2, 1)); // readable before it is durable

        host.drain();

        assertThat(disk.log().durableIndex()).isEqualTo(2);
        // The first append started a flush at once; the second waited for the next one.
        assertThat(host.events).containsExactly(new StorageEvent.LogSynced(1), new StorageEvent.LogSynced(2));
    }

    @Test
    void writesQueuedDuringAFlushGoInTheNextOne() {
        disk.log().append(entry(1, 1));
        disk.log().append(entry(2, 1));
        disk.log().append(entry(3, 1));
        host.step();
        assertThat(host.events).containsExactly(new StorageEvent.LogSynced(1)); // the flush started with entry 1 only
        host.drain();
        assertThat(host.events).containsExactly(new StorageEvent.LogSynced(1), new StorageEvent.LogSynced(3));
        assertThat(disk.flushes()).isEqualTo(2);
    }

    @Test
    void withOverlappingSyncsAWriteDuringAFlushStartsItsOwnAndALaterSyncCoversTheEarlierOnes() {
        Host h = new Host();
        h.syncsInFlight = 2;
        h.latencies.addAll(List.of(1_000L, 100L, 1_000L));
        SimDisk d = new SimDisk(h);
        d.log().append(entry(1, 1)); // flush A: 1,000 ns
        d.log().append(entry(2, 1)); // flush B starts at once, beside A: 100 ns
        d.log().append(entry(3, 1)); // two in flight: waits
        h.step(); // B returns first: a sync makes durable everything written before it, entry 1 included
        assertThat(h.events).containsExactly(new StorageEvent.LogSynced(2));
        assertThat(d.log().durableIndex()).isEqualTo(2);
        assertThat(d.pendingWrites()).isEqualTo(1); // entry 3, in the flush started when B returned
        h.step(); // A returns: already covered by B, nothing more to report
        assertThat(h.events).containsExactly(new StorageEvent.LogSynced(2));
        h.drain();
        assertThat(h.events).containsExactly(new StorageEvent.LogSynced(2), new StorageEvent.LogSynced(3));
        assertThat(d.flushes()).isEqualTo(2);

        // A crash with syncs in flight loses what they had not made durable, as with one.
        d.log().append(entry(4, 1));
        d.log().append(entry(5, 1));
        h.crash();
        d.crash(new SplittableRandom(1), false, 0.0);
        d.recover();
        assertThat(d.log().lastIndex()).isEqualTo(3);
        d.log().append(entry(4, 2));
        h.drain();
        assertThat(d.log().durableIndex()).isEqualTo(4);
    }

    @Test
    void aCrashLosesUnsyncedWritesAndRestartRecoversTheRest() {
        disk.log().append(entry(1, 1));
        disk.log().append(entry(2, 1));
        disk.meta().put("term", new byte[] {1}, 7);
        host.drain();
        disk.log().append(entry(3, 1));
        disk.meta().put("term", new byte[] {2}, 8);
        assertThat(disk.meta().get("term")).hasValueSatisfying(v -> assertThat(v).containsExactly(2)); // reads see the latest write

        host.crash();
        disk.crash(new SplittableRandom(1), false, 0.0);
        disk.recover();

        assertThat(disk.log().lastIndex()).isEqualTo(2);
        assertThat(disk.log().durableIndex()).isEqualTo(2);
        assertThat(disk.meta().get("term")).hasValueSatisfying(v -> assertThat(v).containsExactly(1));
        assertThat(host.events).contains(new StorageEvent.MetaSaved("term", 7)).doesNotContain(new StorageEvent.MetaSaved("term", 8));
    }

    @Test
    void aTornRecordIsDetectedAndDroppedOnRecovery() {
        // Find a random stream whose crash tears the pending append (the choice is a coin flip).
        long seed = 0;
        SimDisk torn;
        Host h;
        do {
            h = new Host();
            torn = new SimDisk(h);
            torn.log().append(entry(1, 1));
            h.drain();
            torn.log().append(entry(2, 1));
            torn.log().append(entry(3, 1));
            h.crash();
            torn.crash(new SplittableRandom(seed++), true, 0.0);
        } while (torn.tornRecordsWritten() == 0);
        assertThat(torn.imageLastIndex()).isEqualTo(2); // the torn record is on the platter...

        torn.recover();

        assertThat(torn.tornRecordsDropped()).isEqualTo(1); // ...and recovery cut it off by its checksum
        assertThat(torn.log().lastIndex()).isEqualTo(1);
        assertThat(torn.log().entry(1)).usingRecursiveComparison().isEqualTo(entry(1, 1));
    }

    @Test
    void unsyncedWritesMaySurviveButOnlyAsAPrefix() {
        for (long seed = 0; seed < 50; seed++) {
            Host h = new Host();
            SimDisk d = new SimDisk(h);
            d.log().append(entry(1, 1));
            h.drain();
            for (long i = 2; i <= 6; i++) d.log().append(entry(i, 1));
            h.crash();
            d.crash(new SplittableRandom(seed), false, 1.0);
            d.recover();
            long last = d.log().lastIndex();
            assertThat(last).isBetween(1L, 6L);
            for (long i = 1; i <= last; i++) assertThat(d.log().entry(i)).usingRecursiveComparison().isEqualTo(entry(i, 1));
        }
    }

    @Test
    void aPendingTruncationLowersTheDurableIndexAtOnce() {
        for (long i = 1; i <= 5; i++) disk.log().append(entry(i, 1));
        host.drain();
        disk.log().truncateSuffix(4);
        assertThat(disk.log().durableIndex()).isEqualTo(3);
        disk.log().append(entry(4, 2));
        assertThat(disk.log().durableIndex()).isEqualTo(3);
        host.drain();
        assertThat(disk.log().durableIndex()).isEqualTo(4);

        host.crash();
        disk.crash(new SplittableRandom(1), false, 0.0);
        disk.recover();
        assertThat(disk.log().lastIndex()).isEqualTo(4);
        assertThat(disk.log().entry(4).term()).isEqualTo(2);
    }

    @Test
    void anUnsyncedTruncationIsUndoneByACrash() {
        for (long i = 1; i <= 5; i++) disk.log().append(entry(i, 1));
        host.drain();
        disk.log().truncateSuffix(3);
        host.crash();
        disk.crash(new SplittableRandom(1), false, 0.0);
        disk.recover();
        assertThat(disk.log().lastIndex()).isEqualTo(5); // the old suffix is back: engines must not assume otherwise
    }

    @Test
    void compactionAndResetAreDurableAfterTheirFlush() {
        for (long i = 1; i <= 5; i++) disk.log().append(entry(i, 1));
        disk.log().compactPrefix(2);
        assertThat(disk.log().firstIndex()).isEqualTo(3);
        host.drain();
        host.crash();
        disk.crash(new SplittableRandom(1), false, 0.0);
        disk.recover();
        assertThat(disk.log().firstIndex()).isEqualTo(3);
        assertThat(disk.log().lastIndex()).isEqualTo(5);

        disk.log().resetAfter(10);
        assertThat(disk.log().firstIndex()).isEqualTo(11);
        assertThat(disk.log().lastIndex()).isEqualTo(10);
        disk.log().append(entry(11, 3));
        host.drain();
        host.crash();
        disk.crash(new SplittableRandom(1), false, 0.0);
        disk.recover();
        assertThat(disk.log().firstIndex()).isEqualTo(11);
        assertThat(disk.log().entry(11).term()).isEqualTo(3);
    }

    @Test
    void aSnapshotTravelsInChunksAndIsVerifiedBeforeInstall() {
        byte[] data = "the whole state of the machine".getBytes(StandardCharsets.UTF_8);
        SnapshotMeta meta = new SnapshotMeta(9, 2, data.length, SimDisk.crc32c(data), new byte[0]);
        disk.storeTakenSnapshot(meta, data, 1);
        assertThat(disk.snapshots().latest()).isEmpty(); // durable only once written
        host.drain();
        assertThat(disk.snapshots().latest()).contains(meta);

        disk.snapshots().readChunk(meta, 0, 10, 2);
        disk.snapshots().readChunk(meta, 19, 100, 3);
        host.drain();
        assertThat(host.events).contains(new StorageEvent.SnapshotTaken(meta, 1));
        var reads = host.events.stream().filter(e -> e instanceof StorageEvent.SnapshotChunkRead).map(e -> (StorageEvent.SnapshotChunkRead) e).toList();
        assertThat(reads).hasSize(2);
        assertThat(reads.get(0).last()).isFalse();
        assertThat(reads.get(1).last()).isTrue();
        assertThat(new String(reads.get(1).data(), StandardCharsets.UTF_8)).isEqualTo("the machine");

        Host peerHost = new Host();
        SimDisk peer = new SimDisk(peerHost);
        peer.snapshots().writeChunk(meta, 0, java.util.Arrays.copyOfRange(data, 0, 12), false, 4);
        peer.snapshots().writeChunk(meta, 12, java.util.Arrays.copyOfRange(data, 12, data.length), true, 5);
        peerHost.drain();
        assertThat(peerHost.events).containsExactly(
                new StorageEvent.SnapshotChunkWritten(meta, 0, false, 4),
                new StorageEvent.SnapshotChunkWritten(meta, 12, true, 5),
                new StorageEvent.SnapshotInstalled(meta, 5));
        assertThat(peerHost.installed).hasSize(1);
        assertThat(peer.snapshots().latest()).contains(meta);
    }

    @Test
    void aCorruptOrDisorderedSnapshotIsRefused() {
        byte[] data = "0123456789".getBytes(StandardCharsets.UTF_8);
        SnapshotMeta badCrc = new SnapshotMeta(3, 1, data.length, SimDisk.crc32c(data) ^ 1, new byte[0]);
        disk.snapshots().writeChunk(badCrc, 0, data, true, 1);
        host.drain();
        // A failed transfer is not a storage failure: SnapshotFailed, as the real NodeStorage reports it.
        assertThat(host.events).singleElement().isInstanceOfSatisfying(StorageEvent.SnapshotFailed.class, f -> assertThat(f.token()).isEqualTo(1));
        assertThat(host.installed).isEmpty();
        assertThat(disk.snapshots().latest()).isEmpty();

        SnapshotMeta good = new SnapshotMeta(3, 1, data.length, SimDisk.crc32c(data), new byte[0]);
        disk.snapshots().writeChunk(good, 0, java.util.Arrays.copyOfRange(data, 0, 4), false, 2);
        disk.snapshots().writeChunk(good, 6, java.util.Arrays.copyOfRange(data, 6, 10), true, 3); // skips bytes 4..5
        host.drain();
        assertThat(host.events.getLast()).isInstanceOfSatisfying(StorageEvent.SnapshotFailed.class, f -> assertThat(f.token()).isEqualTo(3));
        assertThat(host.installed).isEmpty();
    }
}
