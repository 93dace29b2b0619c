package io.tandem.runtime;

import io.tandem.api.OverloadedException;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import java.util.Iterator;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Client requests of one node that are waiting for an answer. Bounded (explicit back-pressure,
 * DESIGN §4): admission beyond the limit fails at once with {@link OverloadedException}. Each
 * request is completed exactly once, by whichever of execution, a remote answer, rejection, timeout
 * or shutdown removes it first. A command with a session can also be found by its (client id,
 * sequence), so that it completes the first time that command executes here, whichever copy of it
 * (a forwarded one, a client's retry through another member) was ordered.
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
                   boolean forwardable, NodeId replyTo, long replyToId, Route route) {
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

    private record SessionKey(long clientId, long sequence) {}

    private final Map<Long, Pending> byId = new ConcurrentHashMap<>();
    private final Map<SessionKey, Long> bySession = new ConcurrentHashMap<>();
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
        if (byId.size() >= limit) throw new OverloadedException(limit + " requests are already pending on this node");
        long id = nextId.getAndIncrement();
        Pending p = new Pending(id, new CompletableFuture<>(), now + timeoutNanos, now, spec.toRequest(id), forwardable, replyTo, replyToId, new Route());
        byId.put(id, p);
        ClientRequest.Session s = spec.session();
        if (replyTo == null && spec.kind() == ClientRequest.Kind.COMMAND && !s.isNone()) bySession.put(new SessionKey(s.clientId(), s.sequence()), id);
        return p;
    }

    /** The request, still pending (the caller does not complete it); null if already completed. */
    Pending get(long requestId) {
        return byId.get(requestId);
    }

    /** Removes the request so that the caller alone completes it; null if already completed. */
    Pending take(long requestId) {
        Pending p = byId.remove(requestId);
        if (p != null) forgetSession(p);
        return p;
    }

    /** Removes the command of this node waiting for {@code session}, if any: it completes the first time that command executes here. */
    Pending takeBySession(ClientRequest.Session session) {
        // Every replica asks for every command it executes; most have nothing waiting (followers of a
        // server whose clients talk to the leader), so skip the key's allocation then.
        if (session.isNone() || bySession.isEmpty()) return null;
        Long id = bySession.remove(new SessionKey(session.clientId(), session.sequence()));
        return id == null ? null : take(id);
    }

    private void forgetSession(Pending p) {
        ClientRequest.Session s = p.request().session();
        if (!s.isNone() && !p.servedForAnotherMember()) bySession.remove(new SessionKey(s.clientId(), s.sequence()), p.requestId());
    }

    int size() {
        return byId.size();
    }

    /** Removes every request whose deadline passed; the caller fails them. */
    void expire(long now, java.util.function.Consumer<Pending> onExpired) {
        for (Iterator<Pending> it = byId.values().iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (now - p.deadlineNanos() >= 0 && byId.remove(p.requestId(), p)) {
                forgetSession(p);
                onExpired.accept(p);
            }
        }
    }

    void failAll(Throwable cause) {
        for (Long id : byId.keySet()) {
            Pending p = take(id);
            if (p != null) p.future().completeExceptionally(cause);
        }
    }
}
