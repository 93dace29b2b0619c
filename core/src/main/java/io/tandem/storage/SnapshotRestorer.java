package io.tandem.storage;

import io.tandem.statemachine.StateMachine;
import java.io.InputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * How {@link NodeStorage} hands a snapshot received from a peer to the state machine. It is
 * called on the disk thread once the snapshot is verified and durable; the state machine belongs
 * to the execution thread, so an implementation passes the work there and completes the returned
 * stage when the state machine reflects the snapshot. Only then is
 * {@link StorageEvent.SnapshotInstalled} posted. A stage completed exceptionally means the state
 * machine is in an unknown state: the storage fails ({@link StorageEvent.StorageFailed}) and the
 * node must stop.
 *
 * <p>The runtime normally uses {@link #using(StateMachine, Executor)}.
 */
@FunctionalInterface
public interface SnapshotRestorer {
    /**
     * Restores the state machine from {@code data}, which the implementation must close. The
     * stream verifies the snapshot's checksum again as it reaches its end.
     */
    CompletionStage<?> restore(SnapshotMeta snapshot, InputStream data);

    /** Restores {@code machine} with {@link StateMachine#restore} on {@code executionThread}. */
    static SnapshotRestorer using(StateMachine machine, Executor executionThread) {
        return (snapshot, data) -> {
            CompletableFuture<Void> done = new CompletableFuture<>();
            try {
                executionThread.execute(() -> {
                    try (InputStream in = data) {
                        machine.restore(in);
                        done.complete(null);
                    } catch (Throwable t) {
                        done.completeExceptionally(t);
                    }
                });
            } catch (RuntimeException rejected) {
                try {
                    data.close();
                } catch (Exception closeFailure) {
                    rejected.addSuppressed(closeFailure);
                }
                done.completeExceptionally(rejected);
            }
            return done;
        };
    }
}
