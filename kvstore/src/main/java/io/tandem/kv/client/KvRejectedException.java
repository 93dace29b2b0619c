package io.tandem.kv.client;

import io.tandem.kv.net.ErrorCode;

/** The server refused the request with an error that retrying will not fix (or the client refused it: {@link ErrorCode#OVERLOADED}). */
public final class KvRejectedException extends KvClientException {
    private final ErrorCode code;

    public KvRejectedException(ErrorCode code, String message) {
        super(code + ": " + message);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
