package io.tandem.kv.client;

/**
 * No answer within the request timeout (the cluster may have no leader, or no member was
 * reachable). For a write, {@link #inDoubt()} says whether some attempt reached a server: the
 * write may then have been applied, at most once, and may still be applied later.
 */
public final class KvTimeoutException extends KvClientException {
    private final boolean inDoubt;

    public KvTimeoutException(String message, boolean inDoubt) {
        super(message);
        this.inDoubt = inDoubt;
    }

    /** True if this was a write that may have been applied. */
    public boolean inDoubt() {
        return inDoubt;
    }
}
