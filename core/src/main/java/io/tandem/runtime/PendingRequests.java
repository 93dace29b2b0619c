package io.tandem.runtime;

import io.tandem.api.OverloadedException;
import java.util.Iterator;
import java.util.Map;
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
    private final AtomicLong nextId = new AtomicLong(1);
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
