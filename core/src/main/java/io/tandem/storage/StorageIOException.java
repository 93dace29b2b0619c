package io.tandem.storage;

/** An I/O error other than a full disk: a failed write, fsync, rename or read. */
public final class StorageIOException extends StorageException {
    public StorageIOException(String message, Throwable cause) {
        super(message, cause);
    }

    public StorageIOException(String message) {
        super(message, null);
    }
}
