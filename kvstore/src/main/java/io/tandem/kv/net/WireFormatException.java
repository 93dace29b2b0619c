package io.tandem.kv.net;

/** Bytes that are not a valid frame of the client protocol. */
public final class WireFormatException extends RuntimeException {
    private final boolean versionMismatch;

    public WireFormatException(String message) {
        this(message, false);
    }

    WireFormatException(String message, boolean versionMismatch) {
        super(message, null, false, false);
        this.versionMismatch = versionMismatch;
    }

    /** True if only the version byte was wrong (answered with {@link ErrorCode#UNSUPPORTED_VERSION}). */
    public boolean versionMismatch() {
        return versionMismatch;
    }
}
