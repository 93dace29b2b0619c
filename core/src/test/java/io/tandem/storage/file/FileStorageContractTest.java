package io.tandem.storage.file;

import io.tandem.engine.NodeId;
import io.tandem.storage.StorageOptions;
import io.tandem.storage.stable.StableStorage;
import io.tandem.storage.stable.StableStorageContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storage contract on real files. A "crash" here closes the files without syncing: appends
 * still in the log's write buffer are lost, as in a killed process; what reached the page cache
 * survives (process crashes with {@code kill -9} are tested in {@link KillNineCrashTest}).
 */
class FileStorageContractTest extends StableStorageContract {
    @TempDir
    Path dir;

    @Override
    protected StableStorage open() {
        return FileStorage.open(dir, "contract", NodeId.of("n1"), StorageOptions.defaults().withSegmentBytes(4096));
    }

    @Override
    protected StableStorage crashAndReopen(StableStorage old) {
        old.close();
        return open();
    }
}
