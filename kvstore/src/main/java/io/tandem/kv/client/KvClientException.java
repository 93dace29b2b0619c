package io.tandem.kv.client;

/**
 * Base of the errors {@link TandemKvClient} reports (KV-level refusals, such as a key over the size
 * limit, are {@link io.tandem.kv.KvException}s instead).
 */
public class KvClientException extends RuntimeException {
    public KvClientException(String message) {
        super(message);
    }

    public KvClientException(String message, Throwable cause) {
        super(message, cause);
    }
}
