package io.tandem.api;

/**
 * The protocol does not support this kind of request at all (an admin operation it has no
 * implementation of); unlike {@link UnavailableException}, retrying cannot help.
 */
public final class UnsupportedRequestException extends TandemException {
    public UnsupportedRequestException(String message) {
        super(message);
    }
}
