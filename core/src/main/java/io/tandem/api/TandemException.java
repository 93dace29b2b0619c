package io.tandem.api;

/** Base of every error Tandem reports through a future or a call (DESIGN §4). */
public class TandemException extends RuntimeException {
    public TandemException(String message) {
        super(message);
    }

    public TandemException(String message, Throwable cause) {
        super(message, cause);
    }
}
