package io.tandem.api;

/** Explicit back-pressure: too much work is pending; retry later, ideally with backoff. */
public final class OverloadedException extends TandemException {
    public OverloadedException(String message) {
        super(message);
    }
}
