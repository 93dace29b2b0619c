package io.tandem.storage;

/**
 * Thrown by every write after storage has failed once. After a failed write or fsync the state of
 * the files is unknown (Linux may even report a retried fsync as successful), so a failed store
 * never retries: it refuses further work until the node restarts and recovery re-validates the
 * data. {@link #getCause()} is the original failure.
 */
public final class StorageFailedException extends StorageException {
    public StorageFailedException(String message, StorageException cause) {
        super(message, cause);
    }
}
