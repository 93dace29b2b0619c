package io.tandem.runtime;

import io.tandem.api.OverloadedException;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Client requests of one node that are waiting for an answer. Bounded (explicit back-pressure,
 * DESIGN §4): admission beyond the limit fails at once with {@link OverloadedException}. Each
 * request is completed exactly once, by whichever of execution, a remote answer, rejection, timeout
 * or shutdown removes it first. A command with a session can also be found by its (client id,
 * sequence), so that it completes the first time that command executes here, whichever copy of it
 * (a forwarded one, a client's retry through another member) was ordered.
 *
 * <p>Issue 25 (hot path): admitting and completing a request costs no allocation beyond the request itself. Ids are
 * handed out consecutively, so a request lives in slot {@code id & (SLOTS - 1)} of an array (no boxed key, no map
 * node); the few whose slot is still held by a request {@link #SLOTS} ids older go to an overflow map. The session
 * index keeps the key it was filed under in the request, so removing it allocates nothing either.
 */
final class PendingRequests {
    /**
     * One waiting request.
     *
     * @param forwardable the submitter asked the runtime to forward it to a member that can order it
     * @param replyTo     for a request another member forwarded here: that member, which holds the caller's future
     * @param replyToId   the request's id on {@code replyTo}
     */
    record Pending(long requestId, CompletableFuture<byte[]> future, long deadlineNanos, long startNanos, ClientRequest request,
                   boolean forwardable, NodeId replyTo, long replyToId, Route route, SessionKey sessionKey) {
        boolean read() {
            return request.kind() == ClientRequest.Kind.READ;
        }

        boolean servedForAnotherMember() {
            return replyTo != null;
        }
    }

    /** Where a forwardable request went; touched by the loop thread only. */
    static final class Route {
        int forwards;
        /** The member it was last forwarded to: only that member's answer counts. */
        NodeId forwardedTo;
        long retryAtNanos;
        /** The forward count at which it last paused (so that it pauses once per run of redirects). */
        int pausedAt = -1;
    }

    /** What a new request is, before it has an id. */
    record Spec(ClientRequest.Kind kind, ClientRequest.Session session, byte[] payload, ReadPolicy readPolicy) {
        ClientRequest toRequest(long requestId) {
            return new ClientRequest(requestId, kind, session, payload, readPolicy);
        }
    }

    /** A command's (client id, sequence): the session index's key; null in a request not filed there. */
    record SessionKey(long clientId, long sequence) {}

    /**
     * Slots of the id table. A power of two; a request holds slot {@code id & (SLOTS - 1)} unless a request at least
     * SLOTS ids older still holds it. Small enough that the expiry scan (every few milliseconds) stays cheap, large
     * enough that under load (at most a few hundred requests in flight) nearly every request gets its slot.
     */
    static final int SLOTS = 1024;

    private final AtomicReferenceArray<Pending> slots = new AtomicReferenceArray<>(SLOTS);
    /** Requests whose slot was taken when they were admitted; usually empty. */
    private final Map<Long, Pending> overflow = new ConcurrentHashMap<>();
    private final AtomicInteger count = new AtomicInteger();
    private final Map<SessionKey, Pending> bySession = new ConcurrentHashMap<>();
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
    Pending admit(long now, long timeoutNanos, Spec spec, boolean forwardable) {
        return add(now, timeoutNanos, spec, forwardable, null, 0);
    }

    /** Registers a request that member {@code replyTo} forwarded here as its request {@code replyToId}. */
    Pending admitFor(NodeId replyTo, long replyToId, long now, long timeoutNanos, Spec spec) {
        return add(now, timeoutNanos, spec, false, replyTo, replyToId);
    }

    private Pending add(long now, long timeoutNanos, Spec spec, boolean forwardable, NodeId replyTo, long replyToId) {
        // Counted before it is filed, so that concurrent admissions never exceed the limit together.
        if (count.incrementAndGet() > limit) {
            count.decrementAndGet();
            throw new OverloadedException(limit + " requests are already pending on this node");
        }
        long id = nextId.getAndIncrement();
        ClientRequest.Session s = spec.session();
        SessionKey key = replyTo == null && spec.kind() == ClientRequest.Kind.COMMAND && !s.isNone() ? new SessionKey(s.clientId(), s.sequence()) : null;
        Pending p = new Pending(id, new CompletableFuture<>(), now + timeoutNanos, now, spec.toRequest(id), forwardable, replyTo, replyToId, new Route(), key);
        // Filed before admit returns: nobody can complete a request before its submitter has handed it on.
        if (!slots.compareAndSet(slot(id), null, p)) overflow.put(id, p);
        if (key != null) bySession.put(key, p);
        return p;
    }

    private static int slot(long id) {
        return (int) id & (SLOTS - 1);
    }

    /** The request, still pending (the caller does not complete it); null if already completed. */
    Pending get(long requestId) {
        Pending p = slots.get(slot(requestId));
        if (p != null && p.requestId() == requestId) return p;
        return overflow.isEmpty() ? null : overflow.get(requestId);
    }

    /** Removes the request so that the caller alone completes it; null if already completed. */
    Pending take(long requestId) {
        Pending p = unfile(requestId);
        if (p != null) forgetSession(p);
        return p;
    }

    /** Removes request {@code requestId} from the id table, if it is still there; the one thread that succeeds gets it. */
    private Pending unfile(long requestId) {
        int i = slot(requestId);
        Pending p = slots.get(i);
        if (p != null && p.requestId() == requestId) return slots.compareAndSet(i, p, null) ? counted(p) : null;
        if (overflow.isEmpty()) return null;
        return counted(overflow.remove(requestId));
    }

    /** Removes exactly {@code p} from the id table; false if another thread removed it first. */
    private boolean unfile(Pending p) {
        int i = slot(p.requestId());
        boolean removed = slots.get(i) == p ? slots.compareAndSet(i, p, null) : overflow.remove(p.requestId(), p);
        if (removed) count.decrementAndGet();
        return removed;
    }

    private Pending counted(Pending removed) {
        if (removed != null) count.decrementAndGet();
        return removed;
    }

    /** Removes the command of this node waiting for {@code session}, if any: it completes the first time that command executes here. */
    Pending takeBySession(ClientRequest.Session session) {
        // Every replica asks for every command it executes; most have nothing waiting (followers of a
        // server whose clients talk to the leader), so skip the key's allocation then.
        if (session.isNone() || bySession.isEmpty()) return null;
        Pending p = bySession.remove(new SessionKey(session.clientId(), session.sequence()));
        // Whoever removes it from the id table completes it (a timeout may have got there first).
        return p != null && unfile(p) ? p : null;
    }

    private void forgetSession(Pending p) {
        if (p.sessionKey() != null) bySession.remove(p.sessionKey(), p);
    }

    int size() {
        return count.get();
    }

    /** Removes every request whose deadline passed; the caller fails them. */
    void expire(long now, java.util.function.Consumer<Pending> onExpired) {
        forEach(p -> {
            if (now - p.deadlineNanos() >= 0 && unfile(p)) {
                forgetSession(p);
                onExpired.accept(p);
            }
        });
    }

    void failAll(Throwable cause) {
        forEach(p -> {
            if (unfile(p)) {
                forgetSession(p);
                p.future().completeExceptionally(cause);
            }
        });
    }

    /** Every request filed when the scan reaches it (a snapshot of neither table: requests may come and go meanwhile). */
    private void forEach(java.util.function.Consumer<Pending> action) {
        for (int i = 0; i < SLOTS; i++) {
            Pending p = slots.get(i);
            if (p != null) action.accept(p);
        }
        if (!overflow.isEmpty()) overflow.values().forEach(action);
    }
}
