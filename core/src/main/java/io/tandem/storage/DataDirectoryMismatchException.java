package io.tandem.storage;

/**
 * A data directory (or in-memory disk) was refused because it belongs to another cluster or
 * node, was written by another storage format version, or is not a Tandem data directory at all.
 * Opening it would mix two nodes' histories, so the node refuses to start.
 */
public final class DataDirectoryMismatchException extends StorageException {
    public DataDirectoryMismatchException(String message) {
        super(message, null);
    }
}
