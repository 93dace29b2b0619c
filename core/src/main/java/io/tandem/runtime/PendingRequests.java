package io.tandem.runtime;

import io.tandem.api.OverloadedException;
import java.util.Iterator;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Client requests of one node that are waiting for an answer. Bounded (explicit back-pressure,
 * DESIGN §4): admission beyond the limit fails at once with {@link OverloadedException}. Each
 * request is completed exactly once, by whichever of execution, rejection, timeout or shutdown
 * removes it first.
 */
final class PendingRequests {
    record Pending(long requestId, CompletableFuture<byte[]> future, long deadlineNanos, long startNanos, boolean read) {}

    private final Map<Long, Pending> byId = new ConcurrentHashMap<>();
    /**
     * Ids start at a random point of [1, 2^62) rather than 1: engines re-deliver committed entries after a
     * restart with the origin and request id they were submitted under, and execution completes the
     * request with that id on the origin; a new life of the node must never hand out those ids again.
     */
    private final AtomicLong nextId = new AtomicLong(new SplittableRandom().nextLong(1, 1L << 62));
    private final int limit;

    PendingRequests(int limit) {
        this.limit = limit;
    }

    /** Registers a new request or throws {@link OverloadedException} when {@code limit} are pending. */
    Pending admit(long now, long timeoutNanos, boolean read) {
        if (byId.size() >= limit) throw new OverloadedException(limit + " requests are already pending on this node");
        Pending p = new Pending(nextId.getAndIncrement(), new CompletableFuture<>(), now + timeoutNanos, now, read);
        byId.put(p.requestId(), p);
        return p;
    }

    /** Removes the request so that the caller alone completes it; null if already completed. */
    Pending take(long requestId) {
        return byId.remove(requestId);
    }

    int size() {
        return byId.size();
    }

    /** Removes every request whose deadline passed; the caller fails them. */
    void expire(long now, java.util.function.Consumer<Pending> onExpired) {
        for (Iterator<Pending> it = byId.values().iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (now - p.deadlineNanos() >= 0 && byId.remove(p.requestId(), p)) onExpired.accept(p);
        }
    }

    void failAll(Throwable cause) {
        for (Long id : byId.keySet()) {
            Pending p = byId.remove(id);
            if (p != null) p.future().completeExceptionally(cause);
        }
    }
}
