package io.tandem.jepsen.workload;

import io.tandem.history.Keyword;
import io.tandem.jepsen.generator.Completion;
import io.tandem.kv.KvException;
import io.tandem.kv.client.KvConnectionException;
import io.tandem.kv.client.KvRejectedException;
import io.tandem.kv.client.KvTimeoutException;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The completion discipline of verification.md §1.4, for the KV client's errors: {@code :fail} only when
 * the operation definitely had no effect, {@code :info} when it may have. A read has no effect, so a
 * read that failed in any way is {@code :fail} (as etcd's and AfloatDB's Jepsen clients do).
 */
final class ClientErrors {
    static final Keyword TIMEOUT = Keyword.of("timeout");
    static final Keyword REJECTED = Keyword.of("rejected");
    static final Keyword CONNECTION = Keyword.of("connection");
    static final Keyword TOO_LARGE = Keyword.of("too-large");

    private ClientErrors() {}

    /** How an operation that failed with {@code error} ended. */
    static Completion completion(Object value, Throwable error, boolean read) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) e = e.getCause();
        String message = String.valueOf(e.getMessage());
        return switch (e) {
            case KvTimeoutException t -> read || !t.inDoubt()
                    ? Completion.fail(value, List.of(TIMEOUT, message))
                    : Completion.info(value, List.of(TIMEOUT, message));
            case KvRejectedException r -> switch (r.code()) {
                // Refused before or instead of being applied: definitely no effect.
                case REFUSED, BAD_REQUEST, UNSUPPORTED, UNSUPPORTED_VERSION, OVERLOADED, NOT_LEADER, UNAVAILABLE, NODE_STOPPED, UNAUTHENTICATED, FORBIDDEN ->
                        Completion.fail(value, List.of(REJECTED, Keyword.of(r.code().name().toLowerCase(java.util.Locale.ROOT)), message));
                // TIMEOUT (the server gave up waiting for the commit) and INTERNAL: it may have happened.
                case TIMEOUT, INTERNAL -> read
                        ? Completion.fail(value, List.of(REJECTED, Keyword.of(r.code().name().toLowerCase(java.util.Locale.ROOT)), message))
                        : Completion.info(value, List.of(REJECTED, Keyword.of(r.code().name().toLowerCase(java.util.Locale.ROOT)), message));
            };
            case KvException k -> Completion.fail(value, List.of(TOO_LARGE, message));
            case KvConnectionException c -> read ? Completion.fail(value, List.of(CONNECTION, message)) : Completion.info(value, List.of(CONNECTION, message));
            default -> read ? Completion.fail(value, "read failed: " + e) : Completion.info(value, "indeterminate: " + e);
        };
    }
}
