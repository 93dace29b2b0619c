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
 * node); the few whose slot is still held by a request {@link #SLOTS} ids older go to an overflow map.
 *
 * <p>pend25: the admitting thread (a server's client I/O thread) and the execution thread (which takes nearly every
 * request once its command ran) share no cache line per request beyond the id slot. The session index is the
 * execution thread's alone ({@link #fileBySession}: filed by its session lookup, which it runs anyway, instead of by
 * the admitting thread with a CAS on a random slot the execution thread then cleared again), and the execution
 * thread's removals are counted once per batch ({@link #publishReleases}) instead of with an atomic decrement per
 * request on the line the admitting thread increments.
 */
final class PendingRequests {
    /**
     * One waiting request. It is answered through its {@code future} or, if it was submitted with one, its {@code answer}
     * (the other is null); {@link #complete} and {@link #fail} pick the one. Only the thread that removed it from the
     * table ({@link #take}, {@link #takeBySession}, expiry, {@link #failAll}) completes it, so it is answered once.
     * Identity is its equality (as the record it was: its future or answer is unique to it).
     */
    static final class Pending {
        private final long requestId;
        private final CompletableFuture<byte[]> future;
        private final RequestAnswer answer;
        private final long deadlineNanos, startNanos;
        private final ClientRequest request;
        private final boolean forwardable;
        private final NodeId replyTo;
        private final long replyToId;
        private final boolean filedBySession;
        /** Made by the loop thread the first time it routes or expires the request (pend25: not one per put). */
        private Route route;

        /**
         * @param forwardable    the submitter asked the runtime to forward it to a member that can order it
         * @param replyTo        for a request another member forwarded here: that member, which holds the caller's future
         * @param replyToId      the request's id on {@code replyTo}
         * @param filedBySession whether it may be found by its session (a command with a session, submitted here): the
         *                       execution thread files it when its lookup finds the command not executed yet
         */
        Pending(long requestId, CompletableFuture<byte[]> future, RequestAnswer answer, long deadlineNanos, long startNanos,
                ClientRequest request, boolean forwardable, NodeId replyTo, long replyToId, boolean filedBySession) {
            this.requestId = requestId;
            this.future = future;
            this.answer = answer;
            this.deadlineNanos = deadlineNanos;
            this.startNanos = startNanos;
            this.request = request;
            this.forwardable = forwardable;
            this.replyTo = replyTo;
            this.replyToId = replyToId;
            this.filedBySession = filedBySession;
        }

        long requestId() {
            return requestId;
        }

        CompletableFuture<byte[]> future() {
            return future;
        }

        RequestAnswer answer() {
            return answer;
        }

        long deadlineNanos() {
            return deadlineNanos;
        }

        long startNanos() {
            return startNanos;
        }

        ClientRequest request() {
            return request;
        }

        boolean forwardable() {
            return forwardable;
        }

        NodeId replyTo() {
            return replyTo;
        }

        long replyToId() {
            return replyToId;
        }

        boolean filedBySession() {
            return filedBySession;
        }

        /** Where it went (loop thread only, as {@link Route} is). */
        Route route() {
            Route r = route;
            if (r == null) route = r = new Route();
            return r;
        }

        /** Whether the loop ever routed it (loop thread only): a request never forwarded or retried has no route. */
        boolean routed() {
            return route != null;
        }

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

        @Override
        public String toString() {
            return "Pending[" + requestId + " " + request.kind() + (replyTo != null ? " for " + replyTo : "") + "]";
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

    /**
     * Slots of the id table. A power of two; a request holds slot {@code id & (SLOTS - 1)} unless a request at least
     * SLOTS ids older still holds it. Small enough that the expiry scan (every few milliseconds) stays cheap, large
     * enough that under load (at most a few hundred requests in flight) nearly every request gets its slot.
     */
    static final int SLOTS = 1024;

    private final AtomicReferenceArray<Pending> slots = new AtomicReferenceArray<>(SLOTS);
    /** Requests whose slot was taken when they were admitted; usually empty. */
    private final Map<Long, Pending> overflow = new ConcurrentHashMap<>();
    /**
     * Requests filed and not yet released. The execution thread's removals reach it once per batch
     * ({@link #publishReleases}), so between two batches it may count more than are filed, never fewer: admission
     * can be refused a batch early near the limit, never let past it.
     */
    private final AtomicInteger count = new AtomicInteger();
    /**
     * Ids start at a random point of [1, 2^62) rather than 1: engines re-deliver committed entries after a
     * restart with the origin and request id they were submitted under, and execution completes the
     * request with that id on the origin; a new life of the node must never hand out those ids again.
     */
    private final AtomicLong nextId = new AtomicLong(new SplittableRandom().nextLong(1, 1L << 62));
    private final int limit;
    /** The execution thread's removals not yet subtracted from {@link #count} (execution thread only). */
    private int releasedInBatch;
    /** The session index (execution thread only). */
    private final SessionIndex bySession = new SessionIndex();

    PendingRequests(int limit) {
        this.limit = limit;
    }

    /** Registers a new request or throws {@link OverloadedException} when {@code limit} are pending. */
    Pending admit(long now, long timeoutNanos, Spec spec, boolean forwardable) {
        return add(now, timeoutNanos, spec.kind(), spec.session(), spec.payload(), spec.readPolicy(), forwardable, null, 0, null);
    }

    /** {@link #admit}, answered through {@code answer} instead of a future. */
    Pending admit(long now, long timeoutNanos, Spec spec, boolean forwardable, RequestAnswer answer) {
        return add(now, timeoutNanos, spec.kind(), spec.session(), spec.payload(), spec.readPolicy(), forwardable, null, 0,
                java.util.Objects.requireNonNull(answer, "answer"));
    }

    /** A command, as {@link #admit(long, long, Spec, boolean, RequestAnswer)} without a {@link Spec} (a server's put). */
    Pending admitCommand(long now, long timeoutNanos, ClientRequest.Session session, byte[] command, boolean forwardable, RequestAnswer answer) {
        return add(now, timeoutNanos, ClientRequest.Kind.COMMAND, session, command, null, forwardable, null, 0, answer);
    }

    /** Registers a request that member {@code replyTo} forwarded here as its request {@code replyToId}. */
    Pending admitFor(NodeId replyTo, long replyToId, long now, long timeoutNanos, Spec spec) {
        return add(now, timeoutNanos, spec.kind(), spec.session(), spec.payload(), spec.readPolicy(), false, replyTo, replyToId, null);
    }

    private Pending add(long now, long timeoutNanos, ClientRequest.Kind kind, ClientRequest.Session session, byte[] payload,
                        ReadPolicy readPolicy, boolean forwardable, NodeId replyTo, long replyToId, RequestAnswer answer) {
        // Counted before it is filed, so that concurrent admissions never exceed the limit together.
        if (count.incrementAndGet() > limit) {
            count.decrementAndGet();
            throw new OverloadedException(limit + " requests are already pending on this node");
        }
        long id = nextId.getAndIncrement();
        boolean bySessionToo = replyTo == null && kind == ClientRequest.Kind.COMMAND && !session.isNone();
        Pending p = new Pending(id, answer == null ? new CompletableFuture<>() : null, answer, now + timeoutNanos, now,
                new ClientRequest(id, kind, session, payload, readPolicy), forwardable, replyTo, replyToId, bySessionToo);
        // Filed before admit returns: nobody can complete a request before its submitter has handed it on.
        if (!slots.compareAndSet(slot(id), null, p)) overflow.put(id, p);
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
        return counted(unfile(requestId));
    }

    /**
     * {@link #take} on the execution thread for a command that executed: its release is counted at the batch's end
     * ({@link #publishReleases}), and it leaves the session index if it was filed there.
     */
    Pending takeExecuted(long requestId) {
        Pending p = unfile(requestId);
        if (p != null) {
            releasedInBatch++;
            if (p.filedBySession() && !bySession.isEmpty()) bySession.remove(p);
        }
        return p;
    }

    /** Removes request {@code requestId} from the id table, if it is still there; the one thread that succeeds gets it (not counted). */
    private Pending unfile(long requestId) {
        int i = slot(requestId);
        Pending p = slots.get(i);
        if (p != null && p.requestId() == requestId) return slots.compareAndSet(i, p, null) ? p : null;
        if (overflow.isEmpty()) return null;
        return overflow.remove(requestId);
    }

    /** Removes exactly {@code p} from the id table; false if another thread removed it first (not counted). */
    private boolean unfile(Pending p) {
        int i = slot(p.requestId());
        return slots.get(i) == p ? slots.compareAndSet(i, p, null) : overflow.remove(p.requestId(), p);
    }

    private Pending counted(Pending removed) {
        if (removed != null) count.decrementAndGet();
        return removed;
    }

    /**
     * Execution thread: files {@code p} in the session index, so that it completes the first time its command executes
     * here whichever copy of it was ordered. Called by the session lookup that found the command not executed yet:
     * an execution before the lookup left its result in the session table, which the lookup answers from; every
     * execution after it finds the request here. A request no longer pending is not filed; one completed after this
     * (a timeout, another member's answer) stays until it is taken, removed or swept, and is never completed twice
     * (only whoever removes it from the id table completes it).
     */
    void fileBySession(long requestId) {
        Pending p = get(requestId);
        if (p != null && p.filedBySession()) bySession.add(p, this);
    }

    /**
     * Execution thread: removes the command of this node waiting for session (clientId, sequence), if any: it
     * completes the first time that command executes here. Its release is counted at the batch's end.
     */
    Pending takeBySession(long clientId, long sequence) {
        // Every replica asks for every command it executes; nothing is filed on a replica whose clients wait
        // elsewhere (followers of a server whose clients talk to the leader), nor on a busy leader, whose requests
        // are answered by id before their lookups run: one field read (pend25; a random slot's cache miss before).
        if (bySession.isEmpty() || clientId == 0) return null;
        for (Pending p; (p = bySession.take(clientId, sequence)) != null; ) {
            // Whoever removes it from the id table completes it (a timeout may have got there first; then a second
            // request for the same command may still be filed).
            if (unfile(p)) {
                releasedInBatch++;
                return p;
            }
        }
        return null;
    }

    /** {@link #takeBySession(long, long)} of {@code session} (tests). */
    Pending takeBySession(ClientRequest.Session session) {
        return takeBySession(session.clientId(), session.sequence());
    }

    /** Execution thread, once per batch: subtracts the batch's removals from the count that admission checks. */
    void publishReleases() {
        int n = releasedInBatch;
        if (n != 0) {
            releasedInBatch = 0;
            count.addAndGet(-n);
        }
    }

    /** Requests in the session index, stale ones included until swept (tests). */
    int sessionIndexSize() {
        return bySession.size;
    }

    /** Requests pending, plus those the execution thread removed in a batch it has not ended (see {@link #count}). */
    int size() {
        return count.get();
    }

    /** Removes every request whose deadline passed; the caller fails them. */
    void expire(long now, java.util.function.Consumer<Pending> onExpired) {
        forEach(p -> {
            if (now - p.deadlineNanos() >= 0 && unfile(p)) {
                count.decrementAndGet();
                onExpired.accept(p);
            }
        });
    }

    void failAll(Throwable cause) {
        forEach(p -> {
            if (unfile(p)) {
                count.decrementAndGet();
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

    /**
     * The session index: requests by their command's (client id, sequence), owned by the execution thread (no atomics,
     * no key objects). Open addressing with linear probing over parallel arrays, removal by backward shift (no
     * tombstones). Two requests for the same command (a client's retry through this node while its first try still
     * waits) may both be filed: they wait for the same command, so either answer is right. Entries whose request was
     * completed elsewhere (a timeout, another member's answer, a rejection) stay until swept: before the table grows,
     * the entries no longer pending are dropped, and the next sweep waits until it holds twice as many, so it stays
     * within twice the requests pending (plus {@link #MIN_SWEEP}) at an amortized constant cost per filing.
     */
    static final class SessionIndex {
        static final int MIN_SWEEP = 64;
        private long[] clients = new long[16], sequences = new long[16];
        private Pending[] values = new Pending[16];
        int size;
        private int sweepAt = MIN_SWEEP;

        boolean isEmpty() {
            return size == 0;
        }

        private int home(long clientId, long sequence) {
            long h = (clientId * 0x9E3779B97F4A7C15L) ^ (sequence * 0xC2B2AE3D27D4EB4FL);
            return (int) (h ^ (h >>> 32)) & (values.length - 1);
        }

        void add(Pending p, PendingRequests table) {
            if (size >= sweepAt) {
                sweep(table);
                sweepAt = Math.max(MIN_SWEEP, 2 * size);
            }
            if (2 * (size + 1) > values.length) resize(2 * values.length);
            put(p);
        }

        private void put(Pending p) {
            ClientRequest.Session s = p.request().session();
            int mask = values.length - 1;
            int i = home(s.clientId(), s.sequence());
            while (values[i] != null) i = (i + 1) & mask;
            clients[i] = s.clientId();
            sequences[i] = s.sequence();
            values[i] = p;
            size++;
        }

        /** Removes and returns one request filed for (clientId, sequence); null if none. */
        Pending take(long clientId, long sequence) {
            int mask = values.length - 1;
            for (int i = home(clientId, sequence); values[i] != null; i = (i + 1) & mask) {
                if (clients[i] == clientId && sequences[i] == sequence) {
                    Pending p = values[i];
                    removeAt(i);
                    return p;
                }
            }
            return null;
        }

        /** Removes {@code p} if it is filed. */
        void remove(Pending p) {
            ClientRequest.Session s = p.request().session();
            int mask = values.length - 1;
            for (int i = home(s.clientId(), s.sequence()); values[i] != null; i = (i + 1) & mask) {
                if (values[i] == p) {
                    removeAt(i);
                    return;
                }
            }
        }

        /** Empties slot {@code i}, moving back the entries after it that probed past it (Knuth's algorithm R). */
        private void removeAt(int i) {
            int mask = values.length - 1;
            values[i] = null;
            size--;
            for (int j = (i + 1) & mask; values[j] != null; j = (j + 1) & mask) {
                int h = home(clients[j], sequences[j]);
                // Entry j may move to the hole at i unless its home lies cyclically in (i, j].
                boolean stays = i <= j ? i < h && h <= j : i < h || h <= j;
                if (stays) continue;
                clients[i] = clients[j];
                sequences[i] = sequences[j];
                values[i] = values[j];
                values[j] = null;
                i = j;
            }
        }

        /** Drops the entries whose request is no longer pending. */
        private void sweep(PendingRequests table) {
            Pending[] old = values;
            values = new Pending[old.length];
            clients = new long[old.length];
            sequences = new long[old.length];
            size = 0;
            for (Pending p : old) if (p != null && table.get(p.requestId()) == p) put(p);
        }

        private void resize(int capacity) {
            Pending[] old = values;
            values = new Pending[capacity];
            clients = new long[capacity];
            sequences = new long[capacity];
            size = 0;
            for (Pending p : old) if (p != null) put(p);
        }
    }
}
