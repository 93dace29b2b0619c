package io.tandem.kv.client;

/** A request for one specific node (status, admin) could not reach it, or the client was closed. */
public final class KvConnectionException extends KvClientException {
    public KvConnectionException(String message) {
        super(message);
    }
}
