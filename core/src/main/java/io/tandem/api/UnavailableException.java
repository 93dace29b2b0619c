package io.tandem.api;

/** The protocol cannot serve the request now (no quorum, reconfiguration); retry later. */
public final class UnavailableException extends TandemException {
    public UnavailableException(String message) {
        super(message);
    }
}
