package io.tandem.kv.net;

/**
 * Why the server did not answer a request with a result. The wire codes never change meaning; a
 * client that receives a code it does not know treats it as {@link #INTERNAL}.
 */
public enum ErrorCode {
    /** This node does not lead; the error names the leader and its client address when known. Retry there. */
    NOT_LEADER(1, true),
    /** Too much pending work on the node; retry after a pause. */
    OVERLOADED(2, true),
    /** The node could not answer within its request timeout. A write may or may not have been applied. */
    TIMEOUT(3, true),
    /** The protocol cannot serve the request now (no quorum, an election, a membership change); retry. */
    UNAVAILABLE(4, true),
    /** The node is shutting down or stopped after a failure; try another member. */
    NODE_STOPPED(5, true),
    /** The frame or request is not valid (the connection is closed after this answer). */
    BAD_REQUEST(6, false),
    /** The frame's version byte is one this server does not speak (the connection is closed). */
    UNSUPPORTED_VERSION(7, false),
    /** The server does not offer this request (an admin request that is switched off, or another protocol's). */
    UNSUPPORTED(8, false),
    /**
     * The node refused the request for a reason the message gives, for example a session sequence
     * older than one already applied for that client (the request was overtaken and is never applied).
     */
    REFUSED(9, false),
    /** An unexpected failure on the server; the message says what. */
    INTERNAL(10, false),
    /**
     * The connection is not authenticated, or the token it presented is not valid: present a client
     * certificate or a token (the connection is closed after a failed authentication).
     */
    UNAUTHENTICATED(11, false),
    /** The client is authenticated but lacks the role this request needs (admin requests need {@code admin}); nothing was done. */
    FORBIDDEN(12, false);

    private final int code;
    private final boolean retryable;

    ErrorCode(int code, boolean retryable) {
        this.code = code;
        this.retryable = retryable;
    }

    public int code() {
        return code;
    }

    /** Whether the same request may succeed if sent again (possibly to another member). */
    public boolean retryable() {
        return retryable;
    }

    /** The error with this wire code; unknown codes read as {@link #INTERNAL}. */
    public static ErrorCode ofCode(int code) {
        for (ErrorCode c : values()) if (c.code == code) return c;
        return INTERNAL;
    }
}
