package io.tandem.runtime;

import io.tandem.api.OverloadedException;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import io.tandem.statemachine.CommandResult;
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
 * index is a slot table too (hashed by session), with its own overflow map.
 */
final class PendingRequests {
    /**
     * One waiting request. It is answered through its {@code future} or, if it was submitted with one, its {@code answer}
     * (the other is null); {@link #complete} and {@link #fail} pick the one. Only the thread that removed it from the
     * table ({@link #take}, {@link #takeBySession}, expiry, {@link #failAll}) completes it, so it is answered once.
     *
     * @param forwardable    the submitter asked the runtime to forward it to a member that can order it
     * @param replyTo        for a request another member forwarded here: that member, which holds the caller's future
     * @param replyToId      the request's id on {@code replyTo}
     * @param filedBySession whether the session index holds it (a command with a session, submitted here)
     */
    record Pending(long requestId, CompletableFuture<byte[]> future, RequestAnswer answer, long deadlineNanos, long startNanos,
                   ClientRequest request, boolean forwardable, NodeId replyTo, long replyToId, Route route, boolean filedBySession) {
        boolean read() {
            return request.kind() == ClientRequest.Kind.READ;
        }

        boolean servedForAnotherMember() {
            return replyTo != null;
        }

        /** Completes it with {@code result}'s bytes (a future) or the result itself (an answer). */
        void complete(CommandResult result) {
            if (answer != null) answer.completed(result);
            else future.complete(result.encode());
        }

        void complete(byte[] result) {
            if (answer != null) answer.completed(CommandResult.of(result));
            else future.complete(result);
        }

        void fail(Throwable error) {
            if (answer != null) answer.failed(error);
            else future.completeExceptionally(error);
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

    /** A command's (client id, sequence): the key of the session index's overflow map. */
    private record SessionKey(long clientId, long sequence) {}

    /**
     * Slots of the id table. A power of two; a request holds slot {@code id & (SLOTS - 1)} unless a request at least
     * SLOTS ids older still holds it. Small enough that the expiry scan (every few milliseconds) stays cheap, large
     * enough that under load (at most a few hundred requests in flight) nearly every request gets its slot.
     */
    static final int SLOTS = 1024;
    /** Slots of the session index: with ~100 commands in flight about 2 % of them find their slot taken. */
    static final int SESSION_SLOTS = 4096;

    private final AtomicReferenceArray<Pending> slots = new AtomicReferenceArray<>(SLOTS);
    /** Requests whose slot was taken when they were admitted; usually empty. */
    private final Map<Long, Pending> overflow = new ConcurrentHashMap<>();
    private final AtomicInteger count = new AtomicInteger();
    /**
     * The session index: a command filed by session sits in slot {@link #sessionSlot} of its (client id, sequence),
     * or in {@link #sessionOverflow} if another request holds that slot (issue 25: a map put and remove per put, and a
     * key object, cost more than the slot's CAS). Two requests of the same session (a client's retry through this
     * node while its first try still waits) may both be filed; either may be taken by session: they wait for the
     * same command, so either answer is right, and the other is taken by its id or expires as before.
     */
    private final AtomicReferenceArray<Pending> bySession = new AtomicReferenceArray<>(SESSION_SLOTS);
    private final Map<SessionKey, Pending> sessionOverflow = new ConcurrentHashMap<>();
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
        return add(now, timeoutNanos, spec, forwardable, null, 0, null);
    }

    /** {@link #admit}, answered through {@code answer} instead of a future. */
    Pending admit(long now, long timeoutNanos, Spec spec, boolean forwardable, RequestAnswer answer) {
        return add(now, timeoutNanos, spec, forwardable, null, 0, java.util.Objects.requireNonNull(answer, "answer"));
    }

    /** Registers a request that member {@code replyTo} forwarded here as its request {@code replyToId}. */
    Pending admitFor(NodeId replyTo, long replyToId, long now, long timeoutNanos, Spec spec) {
        return add(now, timeoutNanos, spec, false, replyTo, replyToId, null);
    }

    private Pending add(long now, long timeoutNanos, Spec spec, boolean forwardable, NodeId replyTo, long replyToId, RequestAnswer answer) {
        // Counted before it is filed, so that concurrent admissions never exceed the limit together.
        if (count.incrementAndGet() > limit) {
            count.decrementAndGet();
            throw new OverloadedException(limit + " requests are already pending on this node");
        }
        long id = nextId.getAndIncrement();
        ClientRequest.Session s = spec.session();
        boolean bySessionToo = replyTo == null && spec.kind() == ClientRequest.Kind.COMMAND && !s.isNone();
        Pending p = new Pending(id, answer == null ? new CompletableFuture<>() : null, answer, now + timeoutNanos, now, spec.toRequest(id),
                forwardable, replyTo, replyToId, new Route(), bySessionToo);
        // Filed before admit returns: nobody can complete a request before its submitter has handed it on.
        if (!slots.compareAndSet(slot(id), null, p)) overflow.put(id, p);
        if (bySessionToo && !bySession.compareAndSet(sessionSlot(s.clientId(), s.sequence()), null, p)) {
            sessionOverflow.put(new SessionKey(s.clientId(), s.sequence()), p);
        }
        return p;
    }

    /** The session index's slot of (client id, sequence): a multiplicative hash, its top bits. */
    private static int sessionSlot(long clientId, long sequence) {
        long h = (clientId * 0x9E3779B97F4A7C15L) ^ (sequence * 0xC2B2AE3D27D4EB4FL);
        return (int) (h >>> (64 - Integer.numberOfTrailingZeros(SESSION_SLOTS)));
    }

    private static boolean sameSession(Pending p, long clientId, long sequence) {
        ClientRequest.Session s = p.request().session();
        return s.clientId() == clientId && s.sequence() == sequence;
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
        // server whose clients talk to the leader): one slot read, no allocation.
        if (session.isNone()) return null;
        long client = session.clientId(), seq = session.sequence();
        int i = sessionSlot(client, seq);
        Pending p = bySession.get(i);
        // Whoever removes it from the id table completes it (a timeout may have got there first).
        if (p != null && sameSession(p, client, seq) && bySession.compareAndSet(i, p, null) && unfile(p)) return p;
        if (sessionOverflow.isEmpty()) return null;
        p = sessionOverflow.remove(new SessionKey(client, seq));
        return p != null && unfile(p) ? p : null;
    }

    private void forgetSession(Pending p) {
        if (!p.filedBySession()) return;
        ClientRequest.Session s = p.request().session();
        int i = sessionSlot(s.clientId(), s.sequence());
        if (bySession.get(i) == p) bySession.compareAndSet(i, p, null);
        else if (!sessionOverflow.isEmpty()) sessionOverflow.remove(new SessionKey(s.clientId(), s.sequence()), p);
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
                p.fail(cause);
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
