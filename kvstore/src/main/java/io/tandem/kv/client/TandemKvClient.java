package io.tandem.kv.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.tandem.kv.net.ClientFrames;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.tandem.transport.tcp.tls.CertificateIdentity;
import io.tandem.transport.tcp.tls.TlsConfig;
import io.tandem.transport.tcp.tls.TlsMaterial;
import java.security.cert.X509Certificate;
import io.tandem.engine.ReadPolicy;
import io.tandem.kv.DurationText;
import io.tandem.kv.KvCodec;
import io.tandem.kv.KvCommand;
import io.tandem.kv.KvException;
import io.tandem.kv.KvQuery;
import io.tandem.kv.KvResult;
import io.tandem.kv.net.ClientWire;
import io.tandem.kv.net.ErrorCode;
import io.tandem.kv.net.MembershipChange;
import io.tandem.kv.net.NodeStatus;
import io.tandem.kv.net.Request;
import io.tandem.kv.net.Response;
import io.tandem.routing.Router;
import io.tandem.transport.Endpoint;
import io.tandem.transport.FaultPlan;
import io.tandem.transport.tcp.IoMode;
import io.tandem.transport.tcp.NettyIo;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * A client of a Tandem KV cluster: get, put, delete, compare-and-set and scan, asynchronous
 * ({@code *Async}, returning futures) or blocking.
 *
 * <pre>{@code
 * try (TandemKvClient kv = TandemKvClient.connect(KvClientConfig.of("127.0.0.1:8001", "127.0.0.1:8002", "127.0.0.1:8003"))) {
 *     kv.put(key, value);
 *     Optional<byte[]> v = kv.get(key);
 *     kv.putAsync(key, value).thenAccept(previous -> ...);
 * }
 * }</pre>
 *
 * <ul>
 *   <li><b>Routing.</b> Attempts go where core's {@link io.tandem.routing.RoutingPolicy} says (the
 *       one the simulator's clients follow too; {@link KvClientConfig#withRouting}): by default to
 *       the last known leader. A member that does not lead answers NOT_LEADER with the leader's
 *       client address, and the client follows it; without a hint (an election is running) it tries
 *       the members in turn, pausing with exponential backoff. Under a first-reply policy each
 *       attempt goes to several members and the first answer wins.</li>
 *   <li><b>Exactly once.</b> Every write runs in a session (a client id and a sequence number) and
 *       each retry of it carries the same pair, so a write retried after a lost answer or a
 *       failover is applied once. Each outstanding write has its own session, because a server
 *       remembers only the latest sequence of a client id.</li>
 *   <li><b>Typed failures.</b> {@link KvTimeoutException} when nothing succeeded within the request
 *       timeout (for writes, {@code inDoubt()} says whether it may have been applied);
 *       {@link KvRejectedException} for errors retrying cannot fix; {@link KvException} for KV
 *       refusals (key or value too large) before anything is sent.</li>
 *   <li><b>Security</b> ({@link KvClientConfig#withSecurity}): TLS to servers whose certificate
 *       chains to the configured CA and names a member, an optional client certificate, and an
 *       optional token sent as the first request of every connection. An UNAUTHENTICATED or
 *       FORBIDDEN answer fails the operation with {@link KvRejectedException} at once.</li>
 *   <li><b>Back-pressure.</b> At most {@code maxInFlight} operations are outstanding; further calls
 *       wait for a slot (up to the request timeout).</li>
 * </ul>
 *
 * One Netty event-loop thread does all I/O and bookkeeping, and futures complete on it: do not
 * block in their callbacks (use the {@code *Async} variants of {@code CompletableFuture} for slow
 * work). The blocking methods refuse to run on that thread.
 */
public final class TandemKvClient implements AutoCloseable {
    private enum Kind {
        WRITE, READ, LEADER_ADMIN, NODE_ADMIN;

        boolean needsLeader() {
            return this != NODE_ADMIN;
        }
    }

    /** How the next attempt of a failed one is made. */
    private enum Retry { SAME_MEMBER, NEXT_MEMBER, REDIRECTED }

    private final KvClientConfig config;
    private final KvCodec codec;
    private final MultiThreadIoEventLoopGroup group;
    private final EventLoop loop;
    private final Bootstrap bootstrap;
    private final Semaphore permits;
    private final ConcurrentLinkedDeque<Session> sessions = new ConcurrentLinkedDeque<>();
    private final AtomicLong requestIds = new AtomicLong();
    private final SecureRandom sessionIds = new SecureRandom();
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong redirects = new AtomicLong();
    private volatile boolean closed;
    /** The request id of the token request that opens each connection when a token is configured. */
    private static final long AUTHENTICATE_ID = -1;

    /** TLS client context, or null for plaintext. */
    private final SslContext tls;

    // Event-loop state.
    private final Map<Endpoint, Node> nodes = new HashMap<>();
    /**
     * The outstanding operations in the order they began, linked through their own fields (no
     * allocation per operation). The timeout sweep walks this list; see {@link #sweep()}.
     */
    private Operation oldest, newest;
    /** How often the sweep runs while operations are outstanding, and whether it is scheduled (event-loop state). */
    private final long sweepNanos;
    private boolean sweepScheduled;
    private final List<Operation> expired = new ArrayList<>();
    /** Where attempts go: core's routing policy, the same the simulator's clients follow (event-loop state). */
    private final Router<Endpoint> router;
    /**
     * A sharded store's map (issue 23), learned from a member's status after a member redirected a keyed
     * request: one router per shard over the shard's members, so keys go straight to their shard
     * ({@link io.tandem.kv.shard.KeyShards#shardOf}). Null until learned (event-loop state).
     */
    private List<Router<Endpoint>> shardRouters;
    private long shardMapView;
    private boolean shardMapAsked;

    private TandemKvClient(KvClientConfig config) {
        this.config = config;
        this.codec = new KvCodec(config.limits());
        this.tls = tlsContext(config.security());
        List<Endpoint> members = config.members();
        // Spread clients over the members for their first attempts.
        this.router = config.routing().newRouter(members, members.get(ThreadLocalRandom.current().nextInt(members.size())));
        this.permits = new Semaphore(config.maxInFlight());
        this.sweepNanos = sweepInterval(config);
        NettyIo io = NettyIo.resolve(IoMode.AUTO);
        this.group = io.newEventLoopGroup(1, "tandem-kv-client");
        this.loop = group.next();
        this.bootstrap = new Bootstrap().group(loop).channel(io.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis()));
    }

    /**
     * A tenth of the shortest timeout, between 1 and 50 ms: a timeout fires at most that much late
     * (50 ms on the default 3 s attempt timeout), and an idle or busy client wakes at most 20-1000
     * times a second for it, whatever its rate of operations.
     */
    static long sweepInterval(KvClientConfig config) {
        long shortest = Math.min(config.requestTimeout().toNanos(), config.attemptTimeout().toNanos());
        return Math.clamp(shortest / 10, TimeUnit.MILLISECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(50));
    }

    private static SslContext tlsContext(KvClientSecurity s) {
        if (!s.tls()) return null;
        if (s.certificate() == null) return TlsMaterial.trustOnlyClientContext(s.trustedCertificates());
        return TlsMaterial.load(TlsConfig.pem(s.certificate(), s.key(), s.trustedCertificates())).clientContext();
    }

    /**
     * A client of the cluster with these members; connections are made on first use.
     *
     * @throws io.tandem.transport.tcp.tls.TlsConfigException if the TLS files of the security settings cannot be used
     */
    public static TandemKvClient connect(KvClientConfig config) {
        return new TandemKvClient(config);
    }

    /** {@link #connect(KvClientConfig)} with defaults, for members given as {@code host:port}. */
    public static TandemKvClient connect(String... members) {
        return connect(KvClientConfig.of(members));
    }

    public KvClientConfig config() {
        return config;
    }

    /** Attempts repeated after a failure (connection loss, timeout, no leader, overload), since the client started. */
    public long retries() {
        return retries.get();
    }

    /** Attempts that followed a leader redirect, since the client started. */
    public long redirects() {
        return redirects.get();
    }

    // ------------------------------------------------------------------------------- async API

    /** The key's value, or empty if absent, read under the configured read policy. */
    public CompletableFuture<Optional<byte[]>> getAsync(byte[] key) {
        return getAsync(key, config.readPolicy());
    }

    public CompletableFuture<Optional<byte[]>> getAsync(byte[] key, ReadPolicy policy) {
        return read(new KvQuery.Get(key), policy, "get").thenApply(TandemKvClient::valueOf);
    }

    /** Sets the key; completes with the previous value, or empty if there was none. */
    public CompletableFuture<Optional<byte[]>> putAsync(byte[] key, byte[] value) {
        return write(new KvCommand.Put(key, value), "put", TandemKvClient::valueOf);
    }

    /** Deletes the key; completes with the value it had, or empty if it was absent. */
    public CompletableFuture<Optional<byte[]>> deleteAsync(byte[] key) {
        return write(new KvCommand.Delete(key), "delete", TandemKvClient::valueOf);
    }

    /**
     * Sets the key to {@code update} (null: deletes it) if its value equals {@code expected} (null:
     * if it is absent).
     */
    public CompletableFuture<CasResult> compareAndSetAsync(byte[] key, byte[] expected, byte[] update) {
        return write(new KvCommand.CompareAndSet(key, expected, update), "compare-and-set", r -> switch (r) {
            case KvResult.CasSucceeded s -> new CasResult(true, null);
            case KvResult.CasFailed f -> new CasResult(false, f.current());
            default -> throw unexpected(r);
        });
    }

    /**
     * One page of the entries with {@code from <= key < to} (null bounds are open), at most
     * {@code limit} entries; continue from {@link KvResult.Page#nextFrom()}.
     */
    public CompletableFuture<KvResult.Page> scanAsync(byte[] from, byte[] to, int limit) {
        return scanAsync(from, to, limit, config.readPolicy());
    }

    public CompletableFuture<KvResult.Page> scanAsync(byte[] from, byte[] to, int limit, ReadPolicy policy) {
        return read(new KvQuery.Scan(from, to, limit), policy, "scan").thenApply(r -> {
            if (r instanceof KvResult.Page p) return p;
            throw unexpected(r);
        });
    }

    /** The status of the member at {@code member} (no retries elsewhere: this asks one node). */
    public CompletableFuture<NodeStatus> statusAsync(Endpoint member) {
        return nodeAdmin(member, Request.Status::new, "status").thenApply(r -> {
            if (r instanceof Response.StatusReport s) return s.status();
            throw new KvClientException("unexpected answer to a status request: " + r);
        });
    }

    /** Replaces the outbound network fault plan of one member (servers started with fault injection only). */
    public CompletableFuture<Void> setFaultPlanAsync(Endpoint member, FaultPlan plan) {
        return nodeAdmin(member, id -> new Request.SetFaultPlan(id, plan), "set-fault-plan").thenApply(r -> null);
    }

    /** Shifts one member's engine clock (servers started with fault injection only). */
    public CompletableFuture<Void> setClockOffsetAsync(Endpoint member, Duration offset) {
        long nanos = offset.toNanos();
        return nodeAdmin(member, id -> new Request.SetClockOffset(id, nanos), "set-clock-offset").thenApply(r -> null);
    }

    /** Asks the leader for a membership change; completes when the change is committed. */
    public CompletableFuture<Void> changeMembershipAsync(MembershipChange change, String node) {
        Operation op = new Operation(Kind.LEADER_ADMIN, id -> new Request.ChangeMembership(id, change, node), null, change + " " + node, null, null);
        return start(op).thenApply(r -> null);
    }

    // ------------------------------------------------------------------------------- blocking API

    public Optional<byte[]> get(byte[] key) {
        return await(getAsync(key));
    }

    public Optional<byte[]> get(byte[] key, ReadPolicy policy) {
        return await(getAsync(key, policy));
    }

    public Optional<byte[]> put(byte[] key, byte[] value) {
        return await(putAsync(key, value));
    }

    public Optional<byte[]> delete(byte[] key) {
        return await(deleteAsync(key));
    }

    public CasResult compareAndSet(byte[] key, byte[] expected, byte[] update) {
        return await(compareAndSetAsync(key, expected, update));
    }

    public KvResult.Page scan(byte[] from, byte[] to, int limit) {
        return await(scanAsync(from, to, limit));
    }

    public NodeStatus status(Endpoint member) {
        return await(statusAsync(member));
    }

    /** The status of every configured member, in order; a member that did not answer maps to its error. */
    public Map<Endpoint, Object> statusAll() {
        Map<Endpoint, CompletableFuture<NodeStatus>> asked = new LinkedHashMap<>();
        for (Endpoint m : config.members()) asked.put(m, statusAsync(m));
        Map<Endpoint, Object> out = new LinkedHashMap<>();
        asked.forEach((m, f) -> {
            try {
                out.put(m, await(f));
            } catch (RuntimeException e) {
                out.put(m, e);
            }
        });
        return out;
    }

    public void setFaultPlan(Endpoint member, FaultPlan plan) {
        await(setFaultPlanAsync(member, plan));
    }

    public void setClockOffset(Endpoint member, Duration offset) {
        await(setClockOffsetAsync(member, offset));
    }

    public void changeMembership(MembershipChange change, String node) {
        await(changeMembershipAsync(change, node));
    }

    /**
     * Waits for {@code future} and returns its value, or throws what it failed with (unwrapped from
     * the {@link CompletionException}).
     */
    private <T> T await(CompletableFuture<T> future) {
        if (loop.inEventLoop()) throw new IllegalStateException("blocking client call on the client's I/O thread; use the async methods there");
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KvClientException("interrupted while waiting for the cluster", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) throw r;
            if (cause instanceof Error err) throw err;
            throw new KvClientException(cause.toString(), cause);
        }
    }

    // ------------------------------------------------------------------------------- operations

    /** Runs a write; its result is decoded and handed to {@code then} in one stage (issue 25: one future stage less per put). */
    private <T> CompletableFuture<T> write(KvCommand command, String what, Function<KvResult, T> then) {
        byte[] bytes;
        try {
            bytes = codec.encode(command);
        } catch (KvException e) {
            return CompletableFuture.failedFuture(e);
        }
        // The description ("put of key '...'") is made only if an error message needs it.
        Operation op = new Operation(Kind.WRITE, null, null, what, command.key(), bytes);
        op.routeKey = command.key();
        return start(op).thenApply(r -> then.apply(result(r)));
    }

    private CompletableFuture<KvResult> read(KvQuery query, ReadPolicy policy, String what) {
        byte[] bytes;
        try {
            bytes = codec.encode(query);
        } catch (KvException e) {
            return CompletableFuture.failedFuture(e);
        }
        Operation op = new Operation(Kind.READ, id -> new Request.Query(id, policy, bytes), null, what, null, null);
        op.anyMemberMayAnswer = policy instanceof ReadPolicy.Stale;
        if (query instanceof KvQuery.Get g) op.routeKey = g.key();
        return start(op).thenApply(this::result);
    }

    private CompletableFuture<Response> nodeAdmin(Endpoint member, LongFunction<Request> request, String what) {
        return start(new Operation(Kind.NODE_ADMIN, request, member, what + " at " + member, null, null));
    }

    private KvResult result(Response r) {
        if (!(r instanceof Response.Result res)) throw new KvClientException("unexpected answer: " + r);
        KvResult result = codec.decodeResult(res.result());
        return result.orThrow();
    }

    private static Optional<byte[]> valueOf(KvResult r) {
        return switch (r) {
            case KvResult.Found f -> Optional.of(f.value());
            case KvResult.NotFound n -> Optional.empty();
            default -> throw unexpected(r);
        };
    }

    private static KvClientException unexpected(KvResult r) {
        return new KvClientException("unexpected result from the server: " + r);
    }

    /** Takes an in-flight slot (and, for a write, a session) and hands the operation to the event loop. */
    private CompletableFuture<Response> start(Operation op) {
        if (closed) return CompletableFuture.failedFuture(new KvConnectionException("the client is closed"));
        try {
            boolean got = loop.inEventLoop() ? permits.tryAcquire() : permits.tryAcquire(config.requestTimeout().toNanos(), TimeUnit.NANOSECONDS);
            if (!got) {
                return CompletableFuture.failedFuture(loop.inEventLoop()
                        ? new KvRejectedException(ErrorCode.OVERLOADED, config.maxInFlight() + " operations are in flight already")
                        : new KvTimeoutException("no free slot among " + config.maxInFlight() + " in-flight operations within "
                        + DurationText.format(config.requestTimeout()), false));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(new KvClientException("interrupted while waiting for an in-flight slot", e));
        }
        if (op.kind == Kind.WRITE) op.takeSession();
        try {
            loop.execute(() -> begin(op));
        } catch (RuntimeException e) { // the loop is shutting down
            op.releaseSlot();
            return CompletableFuture.failedFuture(new KvConnectionException("the client is closed"));
        }
        return op.future;
    }

    // Everything below runs on the event loop.

    private void begin(Operation op) {
        if (closed) {
            finish(op, null, new KvConnectionException("the client is closed"));
            return;
        }
        link(op);
        long timeout = op.fixedTarget != null ? Math.min(config.requestTimeout().toNanos(), config.attemptTimeout().toNanos()) : config.requestTimeout().toNanos();
        op.deadline = System.nanoTime() + timeout;
        if (!sweepScheduled) {
            sweepScheduled = true;
            loop.schedule(this::sweep, sweepNanos, TimeUnit.NANOSECONDS);
        }
        attempt(op);
    }

    private void attempt(Operation op) {
        if (op.finished) return;
        op.router = routerFor(op);
        List<Endpoint> targets = op.fixedTarget != null ? List.of(op.fixedTarget) : op.router.targets();
        long id = requestIds.incrementAndGet();
        op.requestId = id;
        op.targets = targets;
        op.awaiting = targets.size();
        op.attempts++;
        op.attemptDue = System.nanoTime() + config.attemptTimeout().toNanos();
        op.attemptArmed = true;
        // Under a first-reply policy the attempt goes to several members; the first answer wins.
        for (Endpoint target : targets) node(target).send(op);
    }

    /** The other members of the attempt will not be heard: their late answers are ignored. */
    private void abandonAttempt(Operation op) {
        op.attemptArmed = false;
        for (Endpoint t : op.targets) {
            Node n = nodes.get(t);
            if (n != null) n.pending.remove(op.requestId);
        }
    }

    private Node node(Endpoint e) {
        return nodes.computeIfAbsent(e, Node::new);
    }

    private void onResponse(Node node, Response response) {
        Operation op = node.pending.remove(response.requestId());
        if (op == null || op.finished || op.requestId != response.requestId()) return; // a late answer to an abandoned attempt
        if (!(response instanceof Response.Error e)) {
            if (op.kind.needsLeader() && !op.anyMemberMayAnswer) op.router.answered(node.endpoint);
            abandonAttempt(op);
            finish(op, response, null);
            return;
        }
        op.lastError = node.endpoint + " answered " + e.code() + ": " + e.message();
        if (op.fixedTarget != null || !e.code().retryable()) {
            abandonAttempt(op);
            finish(op, null, new KvRejectedException(e.code(), e.message()));
            return;
        }
        Retry how = switch (e.code()) {
            case NOT_LEADER -> {
                Endpoint hint = parseHint(e.leaderClientAddress());
                boolean known = hint != null && !hint.equals(node.endpoint);
                op.router.redirected(node.endpoint, known ? List.of(hint) : List.of());
                if (known) redirects.incrementAndGet();
                if (op.routeKey != null) learnShardMap(node.endpoint);
                yield known ? Retry.REDIRECTED : Retry.NEXT_MEMBER;
            }
            case NODE_STOPPED -> {
                op.router.failed(node.endpoint);
                yield Retry.NEXT_MEMBER;
            }
            default -> Retry.SAME_MEMBER; // OVERLOADED, UNAVAILABLE, TIMEOUT: the member is right but busy
        };
        if (--op.awaiting > 0) return; // another member of this attempt may still answer
        abandonAttempt(op);
        retry(op, how);
    }

    /** {@code member} could not take the current attempt of {@code op} (connection refused or lost, send failed). */
    private void attemptFailed(Operation op, Endpoint member, String reason) {
        if (op.finished || !op.targets.contains(member)) return;
        op.lastError = reason;
        if (op.fixedTarget != null) {
            abandonAttempt(op);
            finish(op, null, new KvConnectionException(reason));
            return;
        }
        op.router.failed(member);
        if (--op.awaiting > 0) return;
        abandonAttempt(op);
        retry(op, Retry.NEXT_MEMBER);
    }

    private void retry(Operation op, Retry how) {
        retries.incrementAndGet();
        long delay;
        if (how == Retry.REDIRECTED && op.redirectsInARow++ < 3) {
            delay = 0;
        } else {
            if (how != Retry.REDIRECTED) op.redirectsInARow = 0;
            int failures = ++op.failuresInARow;
            long max = config.backoffMax().toNanos();
            long base = Math.min(max, config.backoffMin().toNanos() << Math.min(20, failures - 1));
            delay = base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1);
            // After a failed member, the next one may well be healthy: try it at once the first time round.
            if (how == Retry.NEXT_MEMBER && failures <= op.router.members().size() - 1) delay = 0;
        }
        if (delay == 0) attempt(op);
        else loop.schedule(() -> attempt(op), delay, TimeUnit.NANOSECONDS);
    }

    /**
     * The timeouts of every outstanding operation, checked in one pass instead of two timers armed
     * and cancelled per operation (issue 25: the timers' scheduling and cancelling was a per-put
     * cost of every client). Runs every {@link #sweepInterval} while operations are outstanding, so
     * a timeout fires up to one interval late, never early. The expired ones are collected first:
     * handling one (a retry, a finish) changes the list being walked.
     */
    private void sweep() {
        sweepScheduled = false;
        long now = System.nanoTime();
        for (Operation op = oldest; op != null; op = op.newer) {
            if (now - op.deadline >= 0 || (op.attemptArmed && now - op.attemptDue >= 0)) expired.add(op);
        }
        for (Operation op : expired) {
            if (op.finished) continue;
            if (now - op.deadline >= 0) deadlinePassed(op);
            else if (op.attemptArmed && now - op.attemptDue >= 0) attemptTimedOut(op);
        }
        expired.clear();
        if (oldest != null && !closed) {
            sweepScheduled = true;
            loop.schedule(this::sweep, sweepNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void attemptTimedOut(Operation op) {
        abandonAttempt(op);
        op.lastError = op.targets + " did not answer within " + DurationText.format(config.attemptTimeout());
        if (op.fixedTarget != null) {
            finish(op, null, new KvConnectionException(op.lastError));
            return;
        }
        for (Endpoint t : op.targets) op.router.failed(t);
        retry(op, Retry.NEXT_MEMBER);
    }

    private void deadlinePassed(Operation op) {
        if (op.finished) return;
        abandonAttempt(op);
        if (op.fixedTarget != null) {
            finish(op, null, new KvConnectionException(op.what() + ": no answer within " + DurationText.format(config.attemptTimeout()) + "; " + op.lastError));
            return;
        }
        boolean inDoubt = op.kind == Kind.WRITE && op.sent;
        finish(op, null, new KvTimeoutException(op.what() + " got no answer within " + DurationText.format(config.requestTimeout()) + " (" + op.attempts
                + " attempts; last: " + op.lastError + ")" + (inDoubt ? "; it may have been applied" : ""), inDoubt));
    }

    private void finish(Operation op, Response response, Throwable error) {
        if (op.finished) return;
        op.finished = true;
        op.attemptArmed = false;
        unlink(op);
        op.releaseSlot();
        if (error != null) op.future.completeExceptionally(error);
        else op.future.complete(response);
    }

    private void link(Operation op) {
        op.older = newest;
        if (newest != null) newest.newer = op;
        else oldest = op;
        newest = op;
        op.linked = true;
    }

    private void unlink(Operation op) {
        if (!op.linked) return; // finished before it began (the client was closed)
        op.linked = false;
        if (op.older != null) op.older.newer = op.newer;
        else oldest = op.newer;
        if (op.newer != null) op.newer.older = op.older;
        else newest = op.older;
        op.older = op.newer = null;
    }

    private List<Operation> outstanding() {
        List<Operation> out = new ArrayList<>();
        for (Operation op = oldest; op != null; op = op.newer) out.add(op);
        return out;
    }

    /** The router of {@code op}'s key's shard once the shard map is known, else the whole group's. */
    private Router<Endpoint> routerFor(Operation op) {
        List<Router<Endpoint>> shards = shardRouters;
        if (op.routeKey == null || shards == null) return router;
        return shards.get(io.tandem.kv.shard.KeyShards.shardOf(op.routeKey, shards.size()));
    }

    /**
     * A member redirected a keyed request: the store may be sharded, or its map changed. Asks that
     * member's status once at a time; a report with a newer shard map replaces the routers.
     */
    private void learnShardMap(Endpoint from) {
        if (shardMapAsked || closed) return;
        shardMapAsked = true;
        statusAsync(from).whenComplete((status, error) -> loop.execute(() -> {
            shardMapAsked = false;
            if (error != null || status.shards().isEmpty() || status.shardView() <= shardMapView) return;
            Map<String, Endpoint> addresses = new HashMap<>();
            for (NodeStatus.Member m : status.members()) {
                Endpoint e = parseHint(m.clientAddress());
                if (e != null) addresses.put(m.id(), e);
            }
            List<Router<Endpoint>> routers = new ArrayList<>();
            for (List<String> shard : status.shards()) {
                List<Endpoint> members = shard.stream().map(addresses::get).filter(java.util.Objects::nonNull).toList();
                // A shard whose members the report cannot place: the whole group's members, whose redirects still lead there.
                if (members.isEmpty()) members = router.members();
                routers.add(io.tandem.routing.RoutingPolicy.leader().newRouter(members, members.get(ThreadLocalRandom.current().nextInt(members.size()))));
            }
            shardRouters = List.copyOf(routers);
            shardMapView = status.shardView();
        }));
    }

    /** The shard map this client routes by: the view it came from and each shard's members; null before it learned one. */
    public io.tandem.kv.shard.ShardMap shardMap() {
        CompletableFuture<io.tandem.kv.shard.ShardMap> answer = new CompletableFuture<>();
        loop.execute(() -> answer.complete(shardRouters == null ? null
                : new io.tandem.kv.shard.ShardMap(shardMapView, shardRouters.stream().map(r -> r.members().stream().map(Endpoint::toString).toList()).toList())));
        return answer.join();
    }

    private static Endpoint parseHint(String address) {
        if (address == null) return null;
        try {
            return Endpoint.parse(address);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String preview(byte[] key) {
        StringBuilder s = new StringBuilder("key '");
        int n = Math.min(key.length, 40);
        for (int i = 0; i < n; i++) {
            int b = key[i] & 0xFF;
            if (b >= 0x20 && b < 0x7F) s.append((char) b);
            else s.append(String.format("\\x%02x", b));
        }
        return s.append(key.length > n ? "...'" : "'").toString();
    }

    /**
     * Fails every outstanding operation with {@link KvConnectionException}, closes the connections and
     * stops the event loop. Idempotent.
     */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        List<ChannelFuture> closing = new ArrayList<>();
        try {
            loop.submit(() -> {
                for (Operation op : outstanding()) finish(op, null, new KvConnectionException("the client was closed"));
                for (Node n : nodes.values()) {
                    ChannelFuture f = n.close();
                    if (f != null) closing.add(f);
                }
            }).awaitUninterruptibly(5, TimeUnit.SECONDS);
        } catch (RuntimeException e) {
            // the loop is already shutting down
        }
        // Every connection, including one still connecting, must be closed (and its listeners run)
        // while the loop still runs: a listener notified after the loop stopped makes Netty log a
        // RejectedExecutionException on the application's stderr, and a TLS connection closes only
        // after its close_notify is flushed.
        for (ChannelFuture f : List.copyOf(closing)) f.awaitUninterruptibly(2, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    // ------------------------------------------------------------------------------- parts

    /** A session for exactly-once writes; owned by one operation at a time. */
    private static final class Session {
        final long clientId;
        long lastSequence;

        Session(long clientId) {
            this.clientId = clientId;
        }
    }

    private final class Operation {
        final Kind kind;
        final LongFunction<Request> request;
        final Endpoint fixedTarget;
        /** What it is ("put"), and the key its description names (null: none); see {@link #what()}. */
        private final String what;
        private final byte[] whatKey;
        final byte[] command;
        final CompletableFuture<Response> future = new CompletableFuture<>();
        Session session;
        long sequence;
        /** A stale read may be served by a follower: its answer says nothing about who leads. */
        boolean anyMemberMayAnswer;
        /** The key that picks the shard of a sharded store; null for requests that are not about one key. */
        byte[] routeKey;
        /** The router the current attempt's targets came from, told about its outcome. */
        Router<Endpoint> router;
        // event-loop state
        boolean finished;
        boolean sent;
        int attempts;
        int failuresInARow;
        int redirectsInARow;
        long requestId;
        /** The members of the current attempt, and how many of them may still answer it. */
        List<Endpoint> targets = List.of();
        int awaiting;
        String lastError = "no member answered yet";
        /** System.nanoTime() when the current attempt times out (if one is armed: not between attempts), and when the operation does. */
        long attemptDue;
        boolean attemptArmed;
        long deadline;
        /** Neighbours in the list of outstanding operations. */
        Operation older, newer;
        boolean linked;
        private boolean released;

        Operation(Kind kind, LongFunction<Request> request, Endpoint fixedTarget, String what, byte[] whatKey, byte[] command) {
            this.kind = kind;
            this.request = request;
            this.fixedTarget = fixedTarget;
            this.what = what;
            this.whatKey = whatKey;
            this.command = command;
        }

        /** For messages: what the operation is, with a preview of its key ("put of key 'k1'"). */
        String what() {
            return whatKey == null ? what : what + " of " + preview(whatKey);
        }

        void takeSession() {
            Session s = sessions.pollFirst();
            if (s == null) {
                long id;
                do {
                    id = sessionIds.nextLong();
                } while (id == 0);
                s = new Session(id);
            }
            session = s;
            sequence = ++s.lastSequence;
        }

        Request requestFor(long id) {
            return kind == Kind.WRITE ? new Request.Command(id, session.clientId, sequence, command) : request.apply(id);
        }

        void releaseSlot() {
            if (released) return;
            released = true;
            if (session != null) sessions.offerFirst(session);
            permits.release();
        }
    }

    /** The connection to one member, made on demand and remade after it is lost. */
    private final class Node {
        final Endpoint endpoint;
        final Map<Long, Operation> pending = new HashMap<>();
        final List<Operation> waiting = new ArrayList<>();
        Channel channel;
        boolean connecting;
        ChannelFuture connectAttempt;

        Node(Endpoint endpoint) {
            this.endpoint = endpoint;
        }

        void send(Operation op) {
            if (channel != null && channel.isActive()) {
                write(op);
                return;
            }
            waiting.add(op);
            if (!connecting) connect();
        }

        private void connect() {
            connecting = true;
            ChannelFuture f = bootstrap.clone().handler(new ChannelInitializer<>() {
                @Override
                protected void initChannel(Channel ch) {
                    if (tls != null) ch.pipeline().addLast("tls", tls.newHandler(ch.alloc(), endpoint.host(), endpoint.port()));
                    ch.pipeline()
                            .addLast("flush", new FlushConsolidationHandler(256, true))
                            .addLast("frames", ClientFrames.responses(ClientWire.DEFAULT_MAX_FRAME_BYTES)) // decoded in place: Response or Bad
                            .addLast("responses", new Responses(Node.this));
                }
            }).connect(endpoint.host(), endpoint.port());
            connectAttempt = f;
            f.addListener(done -> {
                connecting = false;
                List<Operation> ops = new ArrayList<>(waiting);
                waiting.clear();
                if (done.isSuccess()) {
                    channel = f.channel();
                    if (config.security().token() != null) authenticate(channel);
                    for (Operation op : ops) if (!op.finished) write(op);
                } else {
                    String reason = "cannot connect to " + endpoint + ": " + describe(done.cause());
                    for (Operation op : ops) attemptFailed(op, endpoint, reason);
                }
            });
        }

        /** Sends the token first: the server handles a connection's requests in order, so every later one runs with its roles. */
        private void authenticate(Channel ch) {
            Request auth = new Request.Authenticate(AUTHENTICATE_ID, config.security().token());
            ByteBuf buf = ch.alloc().buffer(ClientWire.sizeHint(auth));
            ClientWire.writeRequest(auth, buf);
            ch.writeAndFlush(buf);
        }

        /** The connection's authentication was refused: fail what was sent on it (retrying elsewhere cannot help). */
        void refused(Channel ch, Response.Error e) {
            if (ch != channel) return;
            channel = null;
            List<Operation> ops = new ArrayList<>(pending.values());
            pending.clear();
            for (Operation op : ops) {
                abandonAttempt(op);
                finish(op, null, new KvRejectedException(e.code(), endpoint + " refused the credentials: " + e.message()));
            }
        }

        private void write(Operation op) {
            if (op.finished) return;
            long id = op.requestId;
            Request request = op.requestFor(id);
            ByteBuf buf = channel.alloc().buffer(ClientWire.sizeHint(request));
            try {
                ClientWire.writeRequest(request, buf);
            } catch (RuntimeException e) { // a field that does not fit the frame format, e.g. a node name over 64 KiB
                buf.release();
                finish(op, null, new KvClientException("cannot encode " + op.what() + ": " + e.getMessage(), e));
                return;
            }
            pending.put(id, op);
            op.sent = true;
            channel.writeAndFlush(buf).addListener(w -> {
                if (!w.isSuccess() && pending.remove(id) != null) attemptFailed(op, endpoint, "cannot send to " + endpoint + ": " + describe(w.cause()));
            });
        }

        void connectionLost(Channel ch, String reason) {
            if (ch != channel) return;
            channel = null;
            List<Operation> ops = new ArrayList<>(pending.values());
            pending.clear();
            for (Operation op : ops) attemptFailed(op, endpoint, reason);
        }

        /** Closes the connection, or the one being made; the future completes once it is closed. */
        ChannelFuture close() {
            if (channel != null) return channel.close();
            if (connecting && connectAttempt != null) return connectAttempt.channel().close();
            return null;
        }
    }

    /** Decodes the frames of one connection. */
    private final class Responses extends ChannelInboundHandlerAdapter {
        private final Node node;

        Responses(Node node) {
            this.node = node;
        }

        /** A decoded response, or a {@link ClientFrames.Bad} frame ({@link ClientFrames}: never a buffer, nothing to release). */
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ClientFrames.Bad bad) {
                ctx.close();
                node.connectionLost(ctx.channel(), node.endpoint + " sent a bad frame: " + bad.error().getMessage());
                return;
            }
            Response r = (Response) msg;
            if (r.requestId() == AUTHENTICATE_ID) {
                if (r instanceof Response.Error e) {
                    node.refused(ctx.channel(), e);
                    ctx.close();
                }
                return;
            }
            if (r.requestId() == 0 && r instanceof Response.Error e) { // about the connection, not one request
                node.connectionLost(ctx.channel(), node.endpoint + " refused the connection: " + e.code() + ": " + e.message());
                ctx.close();
                return;
            }
            onResponse(node, r);
        }

        /**
         * A server's certificate must chain to the CA (the TLS layer checked that) and name a member:
         * a client certificate of the same CA must not be able to pose as a server.
         */
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof SslHandshakeCompletionEvent done && done.isSuccess()) {
                String problem = null;
                try {
                    X509Certificate cert = (X509Certificate) ctx.pipeline().get(SslHandler.class).engine().getSession().getPeerCertificates()[0];
                    CertificateIdentity id = CertificateIdentity.of(cert);
                    if (id.member().isEmpty()) problem = "its certificate is for " + id.describe() + ", not a member";
                } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
                    problem = "it presented no certificate";
                }
                if (problem != null) {
                    node.connectionLost(ctx.channel(), node.endpoint + " is not a member of the cluster: " + problem);
                    ctx.close();
                    return;
                }
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            node.connectionLost(ctx.channel(), "connection to " + node.endpoint + " closed");
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            node.connectionLost(ctx.channel(), "connection to " + node.endpoint + " failed: " + describe(cause));
            ctx.close();
        }
    }

    private static String describe(Throwable t) {
        if (t == null) return "unknown error";
        if (t instanceof io.netty.handler.codec.DecoderException && t.getCause() != null) t = t.getCause(); // a TLS failure: say what it was
        String m = t.getMessage();
        return m == null ? t.getClass().getSimpleName() : m;
    }
}
