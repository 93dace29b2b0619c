package io.tandem.storage;

import static io.tandem.storage.EventRecorder.awaitCondition;
import static io.tandem.storage.stable.StableStorageContract.entry;
import static io.tandem.storage.stable.StableStorageContract.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.storage.StorageEvent.LogSynced;
import io.tandem.storage.StorageEvent.MetaSaved;
import io.tandem.storage.StorageEvent.SnapshotChunkRead;
import io.tandem.storage.StorageEvent.SnapshotChunkWritten;
import io.tandem.storage.StorageEvent.SnapshotFailed;
import io.tandem.storage.StorageEvent.SnapshotInstalled;
import io.tandem.storage.StorageEvent.SnapshotTaken;
import io.tandem.storage.StorageEvent.StorageFailed;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The runtime-facing contract of {@link NodeStorage}, run on files and in memory. The test thread
 * plays the engine's loop: it alone touches the views.
 */
abstract class NodeStorageContract {
    protected final List<NodeStorage> opened = new ArrayList<>();

    /** Opens (or reopens after {@link NodeStorage#close()}) the storage of node {@code name}. */
    protected abstract NodeStorage open(String name, Consumer<StorageEvent> events, SnapshotRestorer restorer);

    @AfterEach
    void closeAll() {
        opened.forEach(NodeStorage::close);
    }

    protected NodeStorage open(String name, EventRecorder events) {
        return open(name, events, (snapshot, data) -> CompletableFuture.failedFuture(new IllegalStateException("no installs expected")));
    }

    protected static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] data(int size, int seed) {
        byte[] data = new byte[size];
        for (int i = 0; i < size; i++) data[i] = (byte) (i * 7 + seed);
        return data;
    }

    protected static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int crc(byte[] data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        return (int) crc.getValue();
    }

    @Test
    void appendsAreReadableAtOnceAndReportedDurableByTheDiskThread() {
        EventRecorder events = new EventRecorder();
        NodeStorage storage = open("n1", events);
        DurableLog log = storage.log();
        for (long i = 1; i <= 300; i++) log.append(entry(i, 1));
        assertThat(log.lastIndex()).isEqualTo(300);
        assertThat(log.entry(123).payload()).isEqualTo(payload(123, 1));
        assertThat(log.durableIndex()).isLessThanOrEqualTo(300);
        events.await(LogSynced.class, e -> e.durableIndex() == 300);
        assertThat(log.durableIndex()).isEqualTo(300);
        assertThat(events.all(LogSynced.class)).extracting(LogSynced::durableIndex).isSorted().last().isEqualTo(300L);
    }

    @Test
    void everythingIsRecoveredOnReopen() {
        EventRecorder events = new EventRecorder();
        NodeStorage storage = open("n1", events);
        for (long i = 1; i <= 50; i++) storage.log().append(entry(i, 2));
        storage.meta().put("term", bytes("2"), 1);
        SnapshotMeta snapshot = storage.storeSnapshot(20, 2, bytes("cfg"), out -> out.write(data(5000, 1)), 9);
        storage.log().compactPrefix(20);
        storage.close();

        NodeStorage reopened = open("n1", new EventRecorder());
        assertThat(reopened.log().firstIndex()).isBetween(1L, 21L);
        assertThat(reopened.log().lastIndex()).isEqualTo(50);
        assertThat(reopened.log().durableIndex()).isEqualTo(50);
        assertThat(reopened.log().entry(50).payload()).isEqualTo(payload(50, 2));
        assertThat(reopened.meta().get("term")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("2")));
        assertThat(reopened.latestSnapshot()).contains(snapshot);
        assertThat(reopened.snapshots().latest()).contains(snapshot);
        try (InputStream in = reopened.openSnapshot(snapshot)) {
            assertThat(in.readAllBytes()).isEqualTo(data(5000, 1));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void closeFinishesQueuedWork() {
        EventRecorder events = new EventRecorder();
        NodeStorage storage = open("n1", events);
        for (long i = 1; i <= 2000; i++) storage.log().append(entry(i, 1));
        storage.meta().put("vote", bytes("n3"), 77);
        storage.close();
        assertThat(events.all(MetaSaved.class)).containsExactly(new MetaSaved("vote", 77));
        assertThat(events.all(LogSynced.class)).extracting(LogSynced::durableIndex).contains(2000L);
        assertThatThrownBy(() -> storage.log().append(entry(2001, 1))).isInstanceOf(IllegalStateException.class);
        NodeStorage reopened = open("n1", new EventRecorder());
        assertThat(reopened.log().lastIndex()).isEqualTo(2000);
    }

    @Test
    void metaIsReadableAtOnceAndSavedInCallOrderWithTheLog() {
        EventRecorder events = new EventRecorder();
        NodeStorage storage = open("n1", events);
        storage.log().append(entry(1, 1));
        storage.log().append(entry(2, 1));
        storage.log().append(entry(3, 1));
        storage.meta().put("term", bytes("2"), 10);
        assertThat(storage.meta().get("term")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("2")));
        storage.log().append(entry(4, 2));
        events.await(LogSynced.class, e -> e.durableIndex() == 4);
        List<StorageEvent> seen = events.events();
        int saved = seen.indexOf(new MetaSaved("term", 10));
        int synced3 = indexOfFirst(seen, e -> e instanceof LogSynced s && s.durableIndex() >= 3);
        int synced4 = indexOfFirst(seen, e -> e instanceof LogSynced s && s.durableIndex() == 4);
        // Appends queued before the put are durable before it; the append after it, after it.
        assertThat(synced3).isLessThan(saved);
        assertThat(saved).isLessThan(synced4);
    }

    private static int indexOfFirst(List<StorageEvent> events, java.util.function.Predicate<StorageEvent> p) {
        for (int i = 0; i < events.size(); i++) if (p.test(events.get(i))) return i;
        return -1;
    }

    @Test
    void truncationLowersTheDurableIndexAtOnceEvenIfAStaleLogSyncedIsInFlight() throws InterruptedException {
        CountDownLatch diskBlocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        EventRecorder events = new EventRecorder();
        NodeStorage storage = open("n1", event -> {
            events.accept(event);
            if (event instanceof LogSynced s && s.durableIndex() == 10 && diskBlocked.getCount() > 0) {
                diskBlocked.countDown();
                try {
                    release.await(); // hold the disk thread right after it posted LogSynced(10)
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, (snapshot, data) -> CompletableFuture.failedFuture(new IllegalStateException("no installs expected")));
        DurableLog log = storage.log();
        for (long i = 1; i <= 10; i++) log.append(entry(i, 1));
        assertThat(diskBlocked.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(log.durableIndex()).isEqualTo(10);
        // The engine learns of a conflict: entries from 6 on are replaced. LogSynced(10) is now stale.
        log.truncateSuffix(6);
        log.append(entry(6, 2));
        log.append(entry(7, 2));
        assertThat(log.durableIndex()).isEqualTo(5);
        release.countDown();
        awaitCondition(() -> log.durableIndex() == 7, "the replacement entries are durable");
        assertThat(log.entry(6).term()).isEqualTo(2);
    }

    @Test
    void resetAfterStartsTheLogAfterASnapshotIndex() {
        EventRecorder events = new EventRecorder();
        NodeStorage storage = open("n1", events);
        DurableLog log = storage.log();
        for (long i = 1; i <= 30; i++) log.append(entry(i, 1));
        log.resetAfter(500);
        assertThat(log.firstIndex()).isEqualTo(501);
        assertThat(log.lastIndex()).isEqualTo(500);
        // Before the disk applied the reset, at most what was durable before; after it, the reset point.
        assertThat(log.durableIndex()).satisfiesAnyOf(d -> assertThat(d).isLessThanOrEqualTo(30), d -> assertThat(d).isEqualTo(500));
        log.append(entry(501, 3));
        awaitCondition(() -> log.durableIndex() == 501, "the entry after the reset is durable");
        storage.close();
        NodeStorage reopened = open("n1", new EventRecorder());
        assertThat(reopened.log().firstIndex()).isEqualTo(501);
        assertThat(reopened.log().entry(501).term()).isEqualTo(3);
    }

    @Test
    void misuseIsRejectedOnTheCallersThread() {
        NodeStorage storage = open("n1", new EventRecorder());
        DurableLog log = storage.log();
        log.append(entry(1, 1));
        assertThatThrownBy(() -> log.append(entry(3, 1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> log.compactPrefix(2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> storage.meta().put("", new byte[0], 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> storage.snapshots().readChunk(new SnapshotMeta(1, 1, 10, 0, null), 11, 5, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(log.lastIndex()).isEqualTo(1);
    }

    // ---- snapshots -----------------------------------------------------------------------------

    @Test
    void aLocalSnapshotIsTakenAndStreamedInChunks() {
        EventRecorder events = new EventRecorder();
        NodeStorage storage = open("n1", events);
        byte[] state = data(100_000, 3);
        SnapshotMeta meta = storage.storeSnapshot(42, 5, bytes("members=n1,n2,n3"), out -> out.write(state), 7);
        assertThat(meta).isEqualTo(new SnapshotMeta(42, 5, state.length, crc(state), bytes("members=n1,n2,n3")));
        assertThat(events.await(SnapshotTaken.class)).isEqualTo(new SnapshotTaken(meta, 7));
        assertThat(storage.snapshots().latest()).contains(meta);

        ByteArrayOutputStream received = new ByteArrayOutputStream();
        long offset = 0;
        for (long token = 100; ; token++) {
            storage.snapshots().readChunk(meta, offset, 30_000, token);
            long t = token;
            SnapshotChunkRead chunk = events.await(SnapshotChunkRead.class, e -> e.token() == t);
            assertThat(chunk.offset()).isEqualTo(offset);
            received.writeBytes(chunk.data());
            offset += chunk.data().length;
            if (chunk.last()) break;
        }
        assertThat(received.toByteArray()).isEqualTo(state);
    }

    @Test
    void aSnapshotFromAPeerIsVerifiedInstalledAndRestored() throws Exception {
        NodeStorage leader = open("leader", new EventRecorder());
        byte[] state = data(250_000, 9);
        SnapshotMeta meta = leader.storeSnapshot(1000, 7, bytes("cfg"), out -> out.write(state), 1);

        List<byte[]> restored = new ArrayList<>();
        EventRecorder events = new EventRecorder();
        NodeStorage follower = open("follower", events, (snapshot, data) -> {
            try (data) {
                restored.add(data.readAllBytes());
                return CompletableFuture.completedFuture(null);
            } catch (IOException e) {
                return CompletableFuture.failedFuture(e);
            }
        });
        for (long i = 1; i <= 5; i++) follower.log().append(entry(i, 1));
        int chunk = 64 * 1024;
        for (int offset = 0; offset < state.length; offset += chunk) {
            byte[] piece = Arrays.copyOfRange(state, offset, Math.min(state.length, offset + chunk));
            follower.snapshots().writeChunk(meta, offset, piece, offset + chunk >= state.length, offset);
        }
        SnapshotInstalled installed = events.await(SnapshotInstalled.class);
        assertThat(installed.snapshot()).isEqualTo(meta);
        assertThat(restored).hasSize(1);
        assertThat(restored.getFirst()).isEqualTo(state);
        assertThat(events.all(SnapshotChunkWritten.class)).hasSize(4).last().extracting(SnapshotChunkWritten::last).isEqualTo(true);
        assertThat(follower.snapshots().latest()).contains(meta);
        follower.log().resetAfter(meta.lastIncludedIndex());
        follower.log().append(entry(1001, 7));
        awaitCondition(() -> follower.log().durableIndex() == 1001, "the follower's log continues after the snapshot");
    }

    @Test
    void aCorruptTransferIsRejectedAndNothingIsInstalled() {
        byte[] state = data(10_000, 1);
        SnapshotMeta meta = new SnapshotMeta(10, 1, state.length, crc(state), new byte[0]);
        byte[] damaged = state.clone();
        damaged[5000] ^= 1;
        List<SnapshotMeta> restored = new ArrayList<>();
        EventRecorder events = new EventRecorder();
        NodeStorage storage = open("n1", events, (snapshot, data) -> {
            closeQuietly(data);
            restored.add(snapshot);
            return CompletableFuture.completedFuture(null);
        });
        storage.snapshots().writeChunk(meta, 0, Arrays.copyOf(damaged, 6000), false, 1);
        storage.snapshots().writeChunk(meta, 6000, Arrays.copyOfRange(damaged, 6000, state.length), true, 2);
        assertThat(events.await(SnapshotFailed.class).reason()).contains("checksum");
        // Out of order: a chunk that does not continue the transfer.
        storage.snapshots().writeChunk(meta, 0, Arrays.copyOf(state, 1000), false, 3);
        storage.snapshots().writeChunk(meta, 2000, Arrays.copyOfRange(state, 2000, 3000), false, 4);
        assertThat(events.await(SnapshotFailed.class, e -> e.token() == 4).reason()).contains("offset 2000");
        // A fresh transfer from offset 0 succeeds.
        storage.snapshots().writeChunk(meta, 0, state, true, 5);
        events.await(SnapshotInstalled.class, e -> e.token() == 5);
        assertThat(restored).containsExactly(meta);
        assertThat(events.all(StorageFailed.class)).isEmpty();
        storage.log().append(entry(1, 1));
        events.await(LogSynced.class, e -> e.durableIndex() == 1);
    }

    @Test
    void aChunkOfASnapshotNoLongerRetainedIsReportedAsFailed() {
        EventRecorder events = new EventRecorder();
        NodeStorage storage = open("n1", events);
        SnapshotMeta old = storage.storeSnapshot(1, 1, new byte[0], out -> out.write(1), 1);
        storage.storeSnapshot(2, 1, new byte[0], out -> out.write(2), 2);
        storage.storeSnapshot(3, 1, new byte[0], out -> out.write(3), 3);
        storage.snapshots().readChunk(old, 0, 10, 4);
        assertThat(events.await(SnapshotFailed.class).reason()).contains("no longer retained");
    }

    @Test
    void aFailedRestoreFailsTheStorage() {
        byte[] state = data(1000, 4);
        SnapshotMeta meta = new SnapshotMeta(10, 1, state.length, crc(state), new byte[0]);
        EventRecorder events = new EventRecorder();
        NodeStorage storage = open("n1", events, (snapshot, data) -> {
            closeQuietly(data);
            return CompletableFuture.failedFuture(new IOException("restore broke"));
        });
        storage.snapshots().writeChunk(meta, 0, state, true, 1);
        StorageFailed failed = events.await(StorageFailed.class);
        assertThat(failed.reason()).contains("restore broke");
        assertThat(storage.failure()).isPresent();
        awaitCondition(() -> {
            try {
                storage.log().append(entry(1, 1));
                return false;
            } catch (StorageFailedException e) {
                return true;
            }
        }, "appends fail fast");
    }

    @Test
    void aStateMachineThatFailsToWriteItsSnapshotLeavesTheStorageWorking() {
        EventRecorder events = new EventRecorder();
        NodeStorage storage = open("n1", events);
        assertThatThrownBy(() -> storage.storeSnapshot(5, 1, new byte[0], out -> {
            throw new IOException("serialization bug");
        }, 1)).isInstanceOf(UncheckedIOException.class);
        assertThat(storage.failure()).isEmpty();
        storage.log().append(entry(1, 1));
        events.await(LogSynced.class, e -> e.durableIndex() == 1);
    }
}
