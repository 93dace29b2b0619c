package io.tandem.storage.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import io.tandem.storage.DataDirectoryMismatchException;
import io.tandem.storage.StorageFailedException;
import io.tandem.storage.StorageFullException;
import io.tandem.storage.StorageIOException;
import io.tandem.storage.StorageOptions;
import io.tandem.storage.stable.StableStorage;
import io.tandem.storage.stable.StableStorageContract;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The storage contract in memory; a crash keeps a random prefix of the unsynced appends. */
class MemoryStorageContractTest extends StableStorageContract {
    private final MemoryDisk disk = new MemoryDisk();
    private final SplittableRandom random = new SplittableRandom(42);

    @Override
    protected StableStorage open() {
        return MemoryStorage.open(disk, "contract", NodeId.of("n1"), StorageOptions.defaults());
    }

    @Override
    protected StableStorage crashAndReopen(StableStorage old) {
        disk.crash(random);
        return open();
    }

    @Test
    void aPlainCrashLosesEveryUnsyncedAppend() {
        storage = open();
        for (long i = 1; i <= 10; i++) storage.log().append(entry(i, 1));
        storage.log().sync();
        for (long i = 11; i <= 20; i++) storage.log().append(entry(i, 1));
        disk.crash();
        storage = open();
        assertThat(storage.log().lastIndex()).isEqualTo(10);
    }

    @Test
    void aStoreOfACrashedProcessCanNoLongerWrite() {
        StableStorage dead = open();
        dead.log().append(entry(1, 1));
        disk.crash();
        assertThatThrownBy(() -> dead.log().sync()).isInstanceOf(StorageIOException.class).hasMessageContaining("crashed");
        storage = open();
        assertThat(storage.log().lastIndex()).isZero();
    }

    @Test
    void aFullDiskFailsWritesAndTheStoreThenFailsFast() {
        storage = open();
        storage.log().append(entry(1, 1));
        storage.log().sync();
        disk.setFull(true);
        assertThatThrownBy(() -> storage.log().append(entry(2, 1))).isInstanceOf(StorageFullException.class);
        disk.setFull(false);
        assertThatThrownBy(() -> storage.log().append(entry(2, 1))).isInstanceOf(StorageFailedException.class);
        disk.setFull(true);
        assertThatThrownBy(() -> storage.meta().put("k", new byte[1])).isInstanceOf(StorageFullException.class);
        assertThatThrownBy(() -> storage.snapshots().write(1, 1, new byte[0], out -> {})).isInstanceOf(StorageFullException.class);
        assertThat(disk.durableLastIndex()).isEqualTo(1);
    }

    @Test
    void aDiskOfAnotherClusterOrNodeIsRefused() {
        open().close();
        assertThatThrownBy(() -> MemoryStorage.open(disk, "other", NodeId.of("n1"), StorageOptions.defaults()))
                .isInstanceOf(DataDirectoryMismatchException.class).hasMessageContaining("cluster 'contract'");
        assertThatThrownBy(() -> MemoryStorage.open(disk, "contract", NodeId.of("n2"), StorageOptions.defaults()))
                .isInstanceOf(DataDirectoryMismatchException.class).hasMessageContaining("node 'n1'");
    }

    @Test
    void aDiskInUseCannotBeOpenedTwice() {
        storage = open();
        assertThatThrownBy(this::open).isInstanceOf(StorageIOException.class).hasMessageContaining("in use");
    }
}
