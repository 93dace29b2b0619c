package io.tandem.storage;

import static io.tandem.storage.stable.StableStorageContract.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import io.tandem.storage.StorageEvent.LogSynced;
import io.tandem.storage.StorageEvent.MetaSaved;
import io.tandem.storage.StorageEvent.StorageFailed;
import io.tandem.storage.memory.MemoryDisk;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** {@link NodeStorage} on {@link MemoryDisk}s, plus what only memory can do in-process: crash at any point, fill the disk. */
class MemoryNodeStorageTest extends NodeStorageContract {
    private final Map<String, MemoryDisk> disks = new HashMap<>();

    @Override
    protected NodeStorage open(String name, Consumer<StorageEvent> events, SnapshotRestorer restorer) {
        NodeStorage storage = NodeStorage.inMemory(disks.computeIfAbsent(name, n -> new MemoryDisk()), "test", NodeId.of(name), events, restorer);
        opened.add(storage);
        return storage;
    }

    @Test
    void theDiskThreadReportsSyncsBatchesAppendsAndFailuresAsMeters() {
        var registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        MemoryDisk disk = new MemoryDisk();
        EventRecorder events = new EventRecorder();
        NodeStorage storage = NodeStorage.inMemory(disk, "test", NodeId.of("m1"), StorageOptions.defaults().withMetrics(registry), events,
                (snapshot, data) -> { throw new AssertionError("no snapshot is installed in this test"); });
        opened.add(storage);
        for (long i = 1; i <= 10; i++) storage.log().append(entry(i, 1));
        events.await(LogSynced.class, e -> e.durableIndex() == 10);
        assertThat(registry.get("tandem.storage.appended.entries").tag("node", "m1").counter().count()).isEqualTo(10);
        assertThat(registry.get("tandem.storage.appended.bytes").counter().count()).isEqualTo((double) java.util.stream.LongStream.rangeClosed(1, 10).map(i -> entry(i, 1).payload().length).sum());
        assertThat(registry.get("tandem.storage.sync").timer().count()).isBetween(1L, 10L);
        assertThat(registry.get("tandem.storage.batch.ops").summary().totalAmount()).isGreaterThanOrEqualTo(10);
        assertThat(registry.get("tandem.storage.failures").counter().count()).isZero();
        disk.setFull(true);
        try {
            storage.log().append(entry(11, 1));
        } catch (StorageFailedException e) {
            // already failed: fine, the meter below is what this test is about
        }
        events.await(StorageFailed.class);
        assertThat(registry.get("tandem.storage.failures").counter().count()).isEqualTo(1);
    }

    @Test
    void aFullDiskFailsTheStorageAndNothingMoreIsAcknowledged() {
        EventRecorder events = new EventRecorder();
        NodeStorage storage = open("n1", events);
        for (long i = 1; i <= 10; i++) storage.log().append(entry(i, 1));
        events.await(LogSynced.class, e -> e.durableIndex() == 10);
        disks.get("n1").setFull(true);
        try {
            for (long i = 11; i <= 20; i++) storage.log().append(entry(i, 1));
        } catch (StorageFailedException e) {
            // The disk thread may already have failed on entry 11: later appends then fail fast.
        }
        StorageFailed failed = events.await(StorageFailed.class);
        assertThat(failed.reason()).contains("disk full");
        assertThat(storage.failure()).containsInstanceOf(StorageFullException.class);
        assertThat(storage.log().durableIndex()).isEqualTo(10);
        assertThat(events.all(LogSynced.class)).extracting(LogSynced::durableIndex).allMatch(d -> d <= 10);
        assertThatThrownBy(() -> storage.log().append(entry(storage.log().lastIndex() + 1, 1))).isInstanceOf(StorageFailedException.class)
                .hasMessageContaining("disk full").hasCauseInstanceOf(StorageFullException.class);
        assertThatThrownBy(() -> storage.meta().put("term", new byte[1], 1)).isInstanceOf(StorageFailedException.class);
        assertThatThrownBy(() -> storage.storeSnapshot(5, 1, new byte[0], out -> {}, 1)).isInstanceOf(StorageFailedException.class);
        assertThat(events.all(StorageFailed.class)).hasSize(1);
        storage.close();

        disks.get("n1").setFull(false);
        NodeStorage restarted = open("n1", new EventRecorder());
        assertThat(restarted.log().lastIndex()).isEqualTo(10);
    }

    /** The log as terms by index, and the meta records: enough to compare states. */
    private record State(long firstIndex, long[] terms, Map<String, String> meta) {
        static State of(NodeStorage storage, Map<String, String> meta) {
            DurableLog log = storage.log();
            long[] terms = new long[(int) (log.lastIndex() - log.firstIndex() + 1)];
            for (int i = 0; i < terms.length; i++) terms[i] = log.entry(log.firstIndex() + i).term();
            return new State(log.firstIndex(), terms, new TreeMap<>(meta));
        }

        boolean sameAs(State other) {
            return firstIndex == other.firstIndex && Arrays.equals(terms, other.terms) && meta.equals(other.meta);
        }

        long termAt(long index) {
            return terms[(int) (index - firstIndex)];
        }
    }

    @Test
    void aCrashAtAnyPointRecoversAPrefixOfTheCallsWithEverythingAcknowledged() {
        long seed = 20240607L;
        SplittableRandom random = new SplittableRandom(seed);
        MemoryDisk disk = disks.computeIfAbsent("n1", n -> new MemoryDisk());
        Map<String, String> meta = new TreeMap<>();
        long term = 1;
        for (int round = 0; round < 40; round++) {
            EventRecorder events = new EventRecorder();
            NodeStorage storage = open("n1", events);
            DurableLog log = storage.log();
            List<State> states = new ArrayList<>();
            states.add(State.of(storage, meta));
            Map<Long, Integer> positionOfPut = new HashMap<>();
            int calls = 1 + random.nextInt(120);
            for (int k = 1; k <= calls; k++) {
                int choice = random.nextInt(100);
                if (choice < 75 || log.lastIndex() < log.firstIndex()) {
                    log.append(entry(log.lastIndex() + 1, term));
                } else if (choice < 87) {
                    term++;
                    log.truncateSuffix(log.firstIndex() + random.nextLong(log.lastIndex() - log.firstIndex() + 1));
                } else if (choice < 98) {
                    String key = "k" + random.nextInt(3);
                    String value = round + "." + k;
                    long token = round * 1000L + k;
                    storage.meta().put(key, value.getBytes(StandardCharsets.UTF_8), token);
                    meta.put(key, value);
                    positionOfPut.put(token, k);
                } else {
                    log.resetAfter(log.lastIndex() + random.nextInt(4));
                }
                states.add(State.of(storage, meta));
            }
            long durable = log.durableIndex();
            State atCrash = states.getLast();
            if (random.nextBoolean()) disk.crash(random);
            else disk.crash();
            storage.close();
            int acknowledged = events.all(MetaSaved.class).stream().mapToInt(m -> positionOfPut.get(m.token())).max().orElse(0);

            NodeStorage recovered = open("n1", new EventRecorder());
            Map<String, String> recoveredMeta = new TreeMap<>();
            for (String key : List.of("k0", "k1", "k2")) {
                recovered.meta().get(key).ifPresent(v -> recoveredMeta.put(key, new String(v, StandardCharsets.UTF_8)));
            }
            State after = State.of(recovered, recoveredMeta);
            int position = -1;
            for (int p = states.size() - 1; p >= 0 && position < 0; p--) if (states.get(p).sameAs(after)) position = p;
            assertThat(position).as("round %d (seed %d): the recovered state is the state after some prefix of the calls", round, seed)
                    .isNotNegative();
            assertThat(position).as("round %d: every acknowledged meta write survived", round).isGreaterThanOrEqualTo(acknowledged);
            for (long i = Math.max(atCrash.firstIndex(), after.firstIndex()); i <= durable; i++) {
                assertThat(after.termAt(i)).as("round %d: durable entry %d survived", round, i).isEqualTo(atCrash.termAt(i));
            }
            assertThat(recovered.log().lastIndex()).as("round %d", round).isGreaterThanOrEqualTo(durable);
            meta = recoveredMeta;
            recovered.close();
        }
    }
}
