package io.tandem.api;

/**
 * No answer within the request timeout. The outcome is unknown: a command may still be applied
 * later (retry it with the same session and sequence to get exactly-once).
 */
public final class RequestTimeoutException extends TandemException {
    public RequestTimeoutException(String message) {
        super(message);
    }
}
