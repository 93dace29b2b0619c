package io.tandem.storage.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import io.tandem.storage.CorruptStorageException;
import io.tandem.storage.DataDirectoryMismatchException;
import io.tandem.storage.StorageIOException;
import io.tandem.storage.StorageOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataDirectoryTest {
    private static final NodeId N1 = NodeId.of("n1");

    @TempDir
    Path root;

    @Test
    void theFirstOpenStampsTheIdentityAndLaterOpensAcceptIt() throws IOException {
        Path dir = root.resolve("data");
        DataDirectory.open(dir, "blue", N1, true).close();
        assertThat(Files.readString(dir.resolve(DataDirectory.IDENTITY_FILE)))
                .contains("format-version=" + DataDirectory.FORMAT_VERSION, "cluster-id=blue", "node-id=n1", "checksum=");
        try (DataDirectory again = DataDirectory.open(dir, "blue", N1, true)) {
            assertThat(again.clusterId()).isEqualTo("blue");
            assertThat(again.node()).isEqualTo(N1);
        }
    }

    @Test
    void anotherClustersDirectoryIsRefused() {
        DataDirectory.open(root, "blue", N1, true).close();
        assertThatThrownBy(() -> DataDirectory.open(root, "green", N1, true))
                .isInstanceOf(DataDirectoryMismatchException.class)
                .hasMessageContaining("belongs to cluster 'blue', not to cluster 'green'")
                .hasMessageContaining(root.toString());
    }

    @Test
    void anotherNodesDirectoryIsRefused() {
        DataDirectory.open(root, "blue", N1, true).close();
        assertThatThrownBy(() -> FileStorage.open(root, "blue", NodeId.of("n2"), StorageOptions.defaults()))
                .isInstanceOf(DataDirectoryMismatchException.class)
                .hasMessageContaining("belongs to node 'n1', not to node 'n2'");
    }

    @Test
    void anotherFormatVersionIsRefused() throws IOException {
        DataDirectory.writeIdentity(root, DataDirectory.FORMAT_VERSION + 1, "blue", "n1", false);
        assertThatThrownBy(() -> DataDirectory.open(root, "blue", N1, true))
                .isInstanceOf(DataDirectoryMismatchException.class)
                .hasMessageContaining("format version " + (DataDirectory.FORMAT_VERSION + 1))
                .hasMessageContaining("reads format version " + DataDirectory.FORMAT_VERSION);
    }

    @Test
    void aForeignDirectoryIsRefusedAndLeftUntouched() throws IOException {
        Files.writeString(root.resolve("notes.txt"), "mine");
        assertThatThrownBy(() -> DataDirectory.open(root, "blue", N1, true))
                .isInstanceOf(DataDirectoryMismatchException.class)
                .hasMessageContaining("not a Tandem data directory");
        try (var entries = Files.list(root)) {
            assertThat(entries.map(p -> p.getFileName().toString())).containsExactly("notes.txt");
        }
    }

    @Test
    void aDamagedIdentityIsReportedAsCorruption() throws IOException {
        DataDirectory.open(root, "blue", N1, true).close();
        Path identity = root.resolve(DataDirectory.IDENTITY_FILE);
        Files.writeString(identity, Files.readString(identity).replace("cluster-id=blue", "cluster-id=bluf"));
        assertThatThrownBy(() -> DataDirectory.open(root, "blue", N1, true))
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining("identity checksum mismatch");
    }

    @Test
    void aDirectoryInUseIsRefused() {
        try (DataDirectory first = DataDirectory.open(root, "blue", N1, true)) {
            assertThat(first.path()).isEqualTo(root.toAbsolutePath().normalize());
            assertThatThrownBy(() -> DataDirectory.open(root, "blue", N1, true))
                    .isInstanceOf(StorageIOException.class)
                    .hasMessageContaining("in use");
        }
        DataDirectory.open(root, "blue", N1, true).close();
    }

    @Test
    void invalidClusterIdsAreRejected() {
        assertThatThrownBy(() -> DataDirectory.open(root, " ", N1, true)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DataDirectory.open(root, "a\nb", N1, true)).isInstanceOf(IllegalArgumentException.class);
    }
}
