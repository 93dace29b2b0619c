package io.tandem.runtime;

import io.tandem.storage.DurableLog;
import io.tandem.storage.MetaStore;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.SnapshotStore;
import io.tandem.storage.StorageEvent;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.Consumer;

/** The storage of one node as the runtime drives it: engine-facing views plus the completion feed. */
public interface RuntimeStorage extends AutoCloseable {
    /** Restores the state machine from a snapshot received from a peer, before it is reported installed. */
    @FunctionalInterface
    interface SnapshotRestorer {
        void restore(SnapshotMeta snapshot, InputStream data) throws IOException;
    }

    DurableLog log();

    MetaStore meta();

    SnapshotStore snapshots();

    /** Starts the disk work; completions are handed to {@code completions} from the disk thread. */
    void start(Consumer<StorageEvent> completions, SnapshotRestorer restorer);

    /**
     * Stores a snapshot of the local state machine taken at {@code lastIncludedIndex}; completes with
     * {@link StorageEvent.SnapshotTaken} carrying {@code token}.
     */
    void saveSnapshot(long lastIncludedIndex, long lastIncludedTerm, byte[] data, long token);

    @Override
    void close();
}
