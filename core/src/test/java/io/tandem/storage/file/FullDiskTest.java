package io.tandem.storage.file;

import static io.tandem.storage.EventRecorder.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import io.tandem.storage.EventRecorder;
import io.tandem.storage.FlushPolicy;
import io.tandem.storage.LogEntry;
import io.tandem.storage.NodeStorage;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.StorageEvent.LogSynced;
import io.tandem.storage.StorageEvent.StorageFailed;
import io.tandem.storage.StorageFailedException;
import io.tandem.storage.StorageFullException;
import io.tandem.storage.StorageOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A really full disk: each test mounts a 512 KiB tmpfs, fills it through the storage and checks
 * that "No space left on device" becomes a typed failure, that nothing unsynced is acknowledged,
 * that writes then fail fast, and that the node recovers its acknowledged data on restart.
 * Needs root (mount); skipped with a message where mounting is impossible.
 */
class FullDiskTest {
    private static final NodeId NODE = NodeId.of("n1");

    @TempDir
    Path root;
    private Path mount;

    @BeforeEach
    void mountTinyTmpfs() throws Exception {
        mount = root.resolve("tiny");
        Files.createDirectories(mount);
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", mount.toString()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean mounted = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        Assumptions.assumeTrue(mounted, "cannot mount a tmpfs to fill (needs root and CAP_SYS_ADMIN): " + output.trim());
    }

    @AfterEach
    void unmount() throws Exception {
        Process p = new ProcessBuilder("umount", mount.toString()).redirectErrorStream(true).start();
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            new ProcessBuilder("umount", "-l", mount.toString()).redirectErrorStream(true).start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static LogEntry kibEntry(long index) {
        byte[] payload = new byte[1024];
        Arrays.fill(payload, (byte) index);
        return new LogEntry(index, 1, payload);
    }

    private NodeStorage openNode(EventRecorder events) {
        return openNode(events, FlushPolicy.FSYNC);
    }

    private NodeStorage openNode(EventRecorder events, FlushPolicy policy) {
        return NodeStorage.open(mount.resolve("n1"), "full", NODE, StorageOptions.of(policy).withSegmentBytes(64 << 10),
                events, (s, d) -> CompletableFuture.failedFuture(new IllegalStateException("no installs")));
    }

    @Test
    void aFullDiskStopsAcknowledgementsAndTheNodeRecoversWhatWasAcknowledged() {
        fillTheLogAndRecover(FlushPolicy.FSYNC);
    }

    /**
     * Without fsync the log writes through a shared mapping of the segment's tail (session 19): a page of
     * it that the file system cannot back faults instead of returning ENOSPC, and that fault must still
     * become the typed disk-full failure, with nothing unwritten acknowledged.
     */
    @Test
    void aFullDiskWithoutFsyncIsTheSameTypedFailure() {
        fillTheLogAndRecover(FlushPolicy.NO_FSYNC);
    }

    private void fillTheLogAndRecover(FlushPolicy policy) {
        EventRecorder events = new EventRecorder();
        NodeStorage storage = openNode(events, policy);
        long appended = 0;
        try {
            // 1 KiB entries into 512 KiB: the disk fills long before 2000. Stay a little ahead of the disk.
            while (appended < 2000) {
                storage.log().append(kibEntry(appended + 1));
                appended++;
                long target = appended - 16;
                if (target > 0) awaitCondition(() -> storage.log().durableIndex() >= target || storage.failure().isPresent(), "progress");
                if (storage.failure().isPresent()) break;
            }
        } catch (StorageFailedException e) {
            assertThat(e).hasCauseInstanceOf(StorageFullException.class);
        }
        StorageFailed failed = events.await(StorageFailed.class);
        assertThat(failed.reason()).contains("disk full").contains("No space left on device");
        assertThat(storage.failure()).containsInstanceOf(StorageFullException.class);
        long durable = storage.log().durableIndex();
        long lastAcknowledged = events.all(LogSynced.class).stream().mapToLong(LogSynced::durableIndex).max().orElse(0);
        assertThat(durable).isEqualTo(lastAcknowledged).isLessThan(storage.log().lastIndex()).isGreaterThan(100);
        assertThatThrownBy(() -> storage.log().append(kibEntry(storage.log().lastIndex() + 1)))
                .isInstanceOf(StorageFailedException.class).hasMessageContaining("No space left on device");
        assertThatThrownBy(() -> storage.meta().put("term", new byte[] {1}, 1)).isInstanceOf(StorageFailedException.class);
        assertThat(events.all(StorageFailed.class)).hasSize(1);
        storage.close();
        // Later events never acknowledged more than was synced.
        assertThat(events.all(LogSynced.class)).allMatch(e -> e.durableIndex() <= durable);

        // Restart on the still-full disk: recovery cuts whatever partial tail the failed write left.
        EventRecorder afterRestart = new EventRecorder();
        NodeStorage restarted = openNode(afterRestart, policy);
        assertThat(restarted.log().lastIndex()).isGreaterThanOrEqualTo(durable);
        for (long i = restarted.log().firstIndex(); i <= durable; i++) {
            assertThat(restarted.log().entry(i).payload()).as("entry %d", i).isEqualTo(kibEntry(i).payload());
        }
        restarted.close();
    }

    @Test
    void aMetaWriteOnAFullDiskFailsAndKeepsThePreviousValue() throws IOException {
        FileStorage storage = FileStorage.open(mount.resolve("n1"), "full", NODE, StorageOptions.defaults());
        storage.meta().put("vote", "n2".getBytes(StandardCharsets.UTF_8));
        fillDisk();
        assertThatThrownBy(() -> storage.meta().put("vote", new byte[128 << 10]))
                .isInstanceOf(StorageFullException.class).hasMessageContaining("No space left on device");
        assertThatThrownBy(() -> storage.meta().put("vote", new byte[1])).isInstanceOf(StorageFailedException.class);
        storage.close();
        FileMetaStore reopened = FileMetaStore.open(mount.resolve("n1"), FlushPolicy.FSYNC);
        assertThat(reopened.get("vote")).hasValueSatisfying(v -> assertThat(new String(v, StandardCharsets.UTF_8)).isEqualTo("n2"));
    }

    @Test
    void aSnapshotWriteOnAFullDiskFailsAndLeavesNoSnapshot() throws IOException {
        FileStorage storage = FileStorage.open(mount.resolve("n1"), "full", NODE, StorageOptions.defaults());
        SnapshotMeta small = storage.snapshots().write(1, 1, new byte[0], out -> out.write(new byte[1000]));
        assertThatThrownBy(() -> storage.snapshots().write(2, 1, new byte[0], (OutputStream out) -> {
            byte[] block = new byte[64 << 10];
            for (int i = 0; i < 64; i++) out.write(block); // 4 MiB into 512 KiB
        })).isInstanceOf(StorageFullException.class).hasMessageContaining("No space left on device");
        assertThat(storage.snapshots().list()).containsExactly(small);
        storage.close();
        FileSnapshotStore reopened = FileSnapshotStore.open(mount.resolve("n1").resolve("snapshots"), FlushPolicy.FSYNC, 2);
        assertThat(reopened.list()).containsExactly(small);
    }

    private void fillDisk() throws IOException {
        try (OutputStream filler = Files.newOutputStream(mount.resolve("filler"))) {
            byte[] block = new byte[4096];
            while (true) filler.write(block);
        } catch (IOException e) {
            assertThat(e).hasMessageContaining("No space left on device");
        }
    }
}
