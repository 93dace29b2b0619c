package io.tandem.storage;

import io.tandem.engine.NodeId;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.io.TempDir;

/** {@link NodeStorage} on real files (fsync per batch, 64 KiB segments). */
class FileNodeStorageTest extends NodeStorageContract {
    @TempDir
    Path root;

    @Override
    protected NodeStorage open(String name, Consumer<StorageEvent> events, SnapshotRestorer restorer) {
        NodeStorage storage = NodeStorage.open(root.resolve(name), "test", NodeId.of(name),
                StorageOptions.defaults().withSegmentBytes(64 << 10), events, restorer);
        opened.add(storage);
        return storage;
    }
}
