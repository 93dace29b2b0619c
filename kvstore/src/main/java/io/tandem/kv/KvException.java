package io.tandem.kv;

import java.util.Objects;

/**
 * A request the KV service refuses, with a reason a program can act on. Thrown by the client-side
 * encoding step; the state machine turns the same refusals into {@link KvResult.Failed} results.
 */
public final class KvException extends RuntimeException {
    /** Why a request was refused. The codes are part of the wire format and never change meaning. */
    public enum Reason {
        /** The bytes are not a valid encoding: truncated, trailing bytes, bad flags, bad varint. */
        MALFORMED(1),
        /** The encoding's version byte is one this build does not speak. */
        UNSUPPORTED_VERSION(2),
        /** The operation code is unknown, or a query was sent as a command or vice versa. */
        UNKNOWN_OPERATION(3),
        /** A key (or scan bound) is longer than {@link KvLimits#maxKeyBytes()}. */
        KEY_TOO_LARGE(4),
        /** A value (or CAS expected value) is longer than {@link KvLimits#maxValueBytes()}. */
        VALUE_TOO_LARGE(5),
        /** A well-formed field with a value that makes no sense, such as a scan limit of zero. */
        INVALID_ARGUMENT(6);

        private final int code;

        Reason(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        /** The reason with this wire code, or {@code null}. */
        public static Reason ofCode(int code) {
            for (Reason reason : values()) if (reason.code == code) return reason;
            return null;
        }
    }

    private final Reason reason;

    /**
     * No stack trace: this is a verdict on a request, not a bug, and the state machine may refuse a
     * stream of bad requests on its hot path; the reason and message say everything.
     */
    public KvException(Reason reason, String message) {
        super(message, null, false, false);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public Reason reason() {
        return reason;
    }

    @Override
    public String toString() {
        return "KvException[" + reason + "]: " + getMessage();
    }
}
