package io.tandem.storage.stable;

/**
 * A snapshot received from a peer does not match its {@link io.tandem.storage.SnapshotMeta}
 * (size, checksum) or is older than the local one. Nothing was installed and the local storage
 * is unharmed; the transfer can be restarted.
 */
public final class SnapshotRejectedException extends Exception {
    public SnapshotRejectedException(String message) {
        super(message);
    }
}
