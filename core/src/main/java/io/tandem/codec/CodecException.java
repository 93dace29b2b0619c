package io.tandem.codec;

/** Bytes that cannot be decoded: a malformed frame, an unknown type, a truncated body. */
public class CodecException extends RuntimeException {
    public CodecException(String message) {
        super(message);
    }

    public CodecException(String message, Throwable cause) {
        super(message, cause);
    }
}
