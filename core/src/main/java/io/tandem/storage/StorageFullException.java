package io.tandem.storage;

/** The disk (or the file system's quota) has no space left; nothing of the failed write is durable. */
public final class StorageFullException extends StorageException {
    public StorageFullException(String message, Throwable cause) {
        super(message, cause);
    }
}
