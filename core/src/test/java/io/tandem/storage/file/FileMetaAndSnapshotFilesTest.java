package io.tandem.storage.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.storage.CorruptStorageException;
import io.tandem.storage.FlushPolicy;
import io.tandem.storage.SnapshotMeta;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** File-level behaviour of the meta and snapshot stores: leftovers of interrupted writes, damage. */
class FileMetaAndSnapshotFilesTest {
    @TempDir
    Path dir;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aLeftoverTempMetaFileIsIgnoredAndRemoved() throws IOException {
        FileMetaStore meta = FileMetaStore.open(dir, FlushPolicy.FSYNC);
        meta.put("term", bytes("3"));
        meta.close();
        Files.write(dir.resolve(FileMetaStore.FILE_NAME + ".tmp"), bytes("half-written"));
        FileMetaStore reopened = FileMetaStore.open(dir, FlushPolicy.FSYNC);
        assertThat(reopened.get("term")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("3")));
        assertThat(dir.resolve(FileMetaStore.FILE_NAME + ".tmp")).doesNotExist();
    }

    @Test
    void aDamagedMetaFileIsReportedNotIgnored() throws IOException {
        FileMetaStore meta = FileMetaStore.open(dir, FlushPolicy.FSYNC);
        meta.put("vote", bytes("n2"));
        Path file = dir.resolve(FileMetaStore.FILE_NAME);
        byte[] content = Files.readAllBytes(file);
        content[content.length - 6] ^= 1;
        Files.write(file, content);
        assertThatThrownBy(() -> FileMetaStore.open(dir, FlushPolicy.FSYNC))
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("checksum mismatch");
    }

    @Test
    void leftoversOfInterruptedSnapshotWritesAreRemoved() throws IOException {
        FileSnapshotStore store = FileSnapshotStore.open(dir, FlushPolicy.FSYNC, 2);
        SnapshotMeta kept = store.write(5, 1, new byte[0], out -> out.write(bytes("state")));
        Files.write(dir.resolve("snapshot-00000000000000000009-00000000000000000001.snap.3.tmp"), bytes("partial"));
        Files.write(dir.resolve("snapshot-00000000000000000009-00000000000000000001.snap.4.part"), bytes("partial"));
        FileSnapshotStore reopened = FileSnapshotStore.open(dir, FlushPolicy.FSYNC, 2);
        assertThat(reopened.list()).containsExactly(kept);
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly(FileSnapshotStore.fileName(5, 1));
        }
    }

    @Test
    void aDamagedSnapshotFooterIsReported() throws IOException {
        FileSnapshotStore store = FileSnapshotStore.open(dir, FlushPolicy.FSYNC, 2);
        store.write(5, 1, bytes("cfg"), out -> out.write(new byte[1000]));
        Path file = dir.resolve(FileSnapshotStore.fileName(5, 1));
        flip(file, Files.size(file) - 20);
        assertThatThrownBy(() -> FileSnapshotStore.open(dir, FlushPolicy.FSYNC, 2))
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining(file.toString());
    }

    @Test
    void damagedSnapshotDataIsDetectedWhenRead() throws IOException {
        FileSnapshotStore store = FileSnapshotStore.open(dir, FlushPolicy.FSYNC, 2);
        byte[] data = new byte[300_000];
        for (int i = 0; i < data.length; i++) data[i] = (byte) i;
        SnapshotMeta meta = store.write(5, 1, new byte[0], out -> out.write(data));
        flip(dir.resolve(FileSnapshotStore.fileName(5, 1)), 123_456);
        assertThatThrownBy(() -> {
            try (InputStream in = store.open(meta)) {
                in.readAllBytes();
            }
        }).isInstanceOf(CorruptStorageException.class).hasMessageContaining("checksum mismatch");
        // Closing without reading to the end still verifies.
        assertThatThrownBy(() -> {
            try (InputStream in = store.open(meta)) {
                assertThat(in.read()).isZero();
            }
        }).isInstanceOf(CorruptStorageException.class);
    }

    private static void flip(Path file, long offset) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, offset);
            one.put(0, (byte) (one.get(0) ^ 0x10)).rewind();
            channel.write(one, offset);
        }
    }
}
