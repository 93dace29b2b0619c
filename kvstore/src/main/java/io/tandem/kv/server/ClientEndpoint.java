package io.tandem.kv.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.tandem.transport.tcp.RateLimitedLog;
import io.tandem.transport.tcp.SourceCounts;
import io.tandem.transport.tcp.tls.CertificateIdentity;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.EnumSet;
import javax.net.ssl.SSLException;
import io.tandem.engine.NodeId;
import io.tandem.kv.net.ClientFrames;
import io.tandem.kv.net.ClientWire;
import io.tandem.kv.net.ErrorCode;
import io.tandem.kv.net.Request;
import io.tandem.kv.net.Response;
import io.tandem.kv.net.WireFormatException;
import io.tandem.kv.KvResult;
import io.tandem.runtime.RequestAnswer;
import io.tandem.statemachine.CommandResult;
import io.tandem.transport.Endpoint;
import io.tandem.transport.tcp.IoMode;
import io.tandem.transport.tcp.NettyIo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's client-facing TCP endpoint (Netty): decodes {@link ClientWire} frames, hands each
 * request to a {@link Handler} with its {@link Reply}, and writes the response when the reply is sent, on
 * whatever thread that is (replies from other threads are written by the I/O thread in batches, {@link ReplyQueue}). Requests on
 * one connection may be answered out of order; the request id ties them together.
 *
 * <p>Security ({@link ClientSecurity}): optional TLS (a client certificate is asked for; its
 * {@code urn:tandem:role:*} names give the connection its roles), a token ({@code AUTHENTICATE})
 * as the other way to authenticate, and a role check of every request before it is handed on
 * ({@link Role#requiredFor}): a request the connection may not make is answered UNAUTHENTICATED or
 * FORBIDDEN and does nothing.
 *
 * <p>Limits: at most {@code maxConnections} connections (more are told OVERLOADED and closed, and
 * nothing they sent is executed), at most {@code maxConnectionsPerSource} from one address (more are
 * closed at once), connections idle for {@code idleTimeout} closed, at
 * most {@code maxRequestsPerConnection} unanswered requests per connection (more are answered
 * OVERLOADED at once), frames up to {@code maxFrameBytes}; a connection whose answers are not read
 * (Netty's write buffer above its high watermark) is not read from until they drain. A frame that cannot be decoded is
 * answered with BAD_REQUEST (or UNSUPPORTED_VERSION) and the connection is closed: after a framing
 * error nothing that follows can be trusted.
 */
final class ClientEndpoint implements AutoCloseable {
    /** Answers requests. */
    interface Handler {
        /** Answers {@code request} through {@code reply}, exactly once, on any thread; must not throw or block. */
        void handle(Request request, Reply reply);

        /** The error response for a request that failed with {@code error} (not leader, overloaded, timed out, ...). */
        Response failure(long requestId, Throwable error);

        /**
         * Called on the I/O thread once after the requests read in one event-loop turn were handled
         * (on every connection): the handler may pass what it collected on as one input.
         */
        default void endOfReads() {}
    }

    private static final Logger log = LoggerFactory.getLogger(ClientEndpoint.class);

    private final NodeId self;
    private final Endpoint bind;
    private final Handler handler;
    private final int maxConnections;
    private final int maxRequestsPerConnection;
    private final int maxFrameBytes;
    private final Set<Channel> channels = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connections = new AtomicInteger();
    private final Map<ErrorCode, Counter> errors = new EnumMap<>(ErrorCode.class);
    private final Map<String, Counter> requestsByType = new ConcurrentHashMap<>();
    private static final String[] REQUEST_TYPES = {"command", "query", "status", "admin"};
    /** {@link #requestsOf}'s counters by kind, filled in on first use (I/O thread only). */
    private final Counter[] requestCounters = new Counter[REQUEST_TYPES.length];
    private final Counter badFrames;
    private final Counter refusedConnections;
    private final Counter refusedPerSource;
    private final Map<String, Counter> authFailures = new ConcurrentHashMap<>();
    /** Replaced whole by {@link #reload}; each connection reads it when it is set up and when it authenticates. */
    private volatile ClientSecurity security;
    private final RateLimitedLog badInputLog = new RateLimitedLog(log, Duration.ofSeconds(10));
    private final SourceCounts bySource = new SourceCounts();
    private final MeterRegistry registry;
    private final Tags tags;
    private MultiThreadIoEventLoopGroup group;
    /** The Netty I/O implementation ({@link #useIoMode}); the fastest available unless told otherwise. */
    private IoMode ioMode = IoMode.AUTO;
    private Channel server;
    /** Replies completed off the I/O thread, written there in batches (the group has one event loop). */
    private volatile ReplyQueue<Reply> replies;
    /** Whether {@link Handler#endOfReads} is queued on the I/O thread (that thread only: the group has one). */
    private boolean endOfReadsQueued;
    private final Runnable endOfReads = this::endOfReads;
    /** The direct path's counts ({@link DirectReplies}), over every connection. */
    final DirectReplies.Counts direct = new DirectReplies.Counts();
    /** The thread that calls {@link #endOfExecutedBatch} (the node's execution thread): it holds replies until then. */
    private volatile Thread batchThread;
    /** Connections with replies held in the batch thread's current batch (that thread only). */
    private final ArrayList<DirectReplies> heldOn = new ArrayList<>();

    ClientEndpoint(NodeId self, Endpoint bind, Handler handler, int maxConnections, int maxRequestsPerConnection, int maxFrameBytes,
                   MeterRegistry registry, ClientSecurity security) {
        this.self = self;
        this.security = security;
        this.bind = bind;
        this.handler = handler;
        this.maxConnections = maxConnections;
        this.maxRequestsPerConnection = maxRequestsPerConnection;
        this.maxFrameBytes = maxFrameBytes;
        this.registry = registry;
        this.tags = Tags.of("node", self.value());
        for (ErrorCode c : ErrorCode.values()) {
            errors.put(c, Counter.builder("tandem.kv.server.errors").description("requests answered with an error, by code")
                    .tags(tags).tag("code", c.name()).register(registry));
        }
        badFrames = Counter.builder("tandem.kv.server.frames.malformed").description("client frames that could not be decoded")
                .tags(tags).register(registry);
        refusedConnections = Counter.builder("tandem.kv.server.connections.refused").description("connections closed for exceeding max-client-connections")
                .tags(tags).tag("reason", "total").register(registry);
        refusedPerSource = Counter.builder("tandem.kv.server.connections.refused").description("connections closed for exceeding max-client-connections")
                .tags(tags).tag("reason", "per-source").register(registry);
        Gauge.builder("tandem.kv.server.connections", connections, AtomicInteger::get).description("open client connections")
                .tags(tags).register(registry);
        FunctionCounter.builder("tandem.kv.server.replies.direct", direct.replies, LongAdder::sum)
                .description("replies written to the client socket by the thread that completed them (no hand-off to the I/O thread)")
                .tags(tags).register(registry);
        FunctionCounter.builder("tandem.kv.server.replies.direct.short", direct.shortSends, LongAdder::sum)
                .description("direct reply writes the client socket took only part of (the rest went through the I/O thread)")
                .tags(tags).register(registry);
    }

    /**
     * Binds the listening socket.
     *
     * @throws IllegalStateException naming the address if it cannot be bound (port in use, bad host)
     */
    synchronized void start() {
        NettyIo io = NettyIo.resolve(ioMode);
        group = io.newEventLoopGroup(1, "tandem-clients-" + self);
        replies = new ReplyQueue<>(group.next(), Reply::channel, Reply::write);
        try {
            server = new ServerBootstrap()
                    .group(group)
                    .channel(io.serverSocketChannel())
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            if (!admit(ch)) return;
                            channels.add(ch);
                            ch.closeFuture().addListener(f -> channels.remove(ch));
                            if (security.tls() != null) {
                                SslHandler tls = security.tls().newHandler(ch.alloc());
                                tls.setHandshakeTimeoutMillis(Math.min(security.idleTimeout().toMillis(), 10_000));
                                ch.pipeline().addLast("tls", tls);
                            }
                            ch.pipeline()
                                    // Reader idle only: a client that sends nothing is closed; one with answers pending is waiting, not idle (see Connection).
                                    .addLast("idle", new IdleStateHandler(security.idleTimeout().toNanos(), 0, 0, TimeUnit.NANOSECONDS))
                                    .addLast("flush", new FlushConsolidationHandler(256, true))
                                    .addLast("frames", ClientFrames.requests(maxFrameBytes)) // decoded in place: Request or Bad, no buffer
                                    .addLast("requests", new Connection());
                        }
                    })
                    .bind(bind.host(), bind.port())
                    .syncUninterruptibly()
                    .channel();
        } catch (Exception e) { // BindException arrives unchecked from syncUninterruptibly
            shutdownGroup();
            throw new IllegalStateException("cannot listen for clients on " + bind + ": " + describe(e), e);
        }
    }

    /** Runs on {@code mode} instead of the fastest available I/O implementation (before {@link #start}; NIO has no direct replies). */
    synchronized void useIoMode(IoMode mode) {
        this.ioMode = mode;
    }

    /** Counts the connection against its source address; closes it at once if that source has too many. */
    private boolean admit(Channel ch) {
        InetAddress source = ch.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        if (source == null) return true;
        if (bySource.add(source) > security.maxConnectionsPerSource()) {
            bySource.remove(source);
            refusedPerSource.increment();
            badInputLog.warn("per-source", "{}: refused a client connection from {}: it has {} open already (max-client-connections-per-source) "
                    + "[tandem.kv.server.connections.refused reason=per-source]", self, ch.remoteAddress(), security.maxConnectionsPerSource());
            ch.close();
            return false;
        }
        ch.closeFuture().addListener(f -> bySource.remove(source));
        return true;
    }

    /** New connections and authentications use {@code fresh}; open connections keep their TLS session and roles. */
    void reload(ClientSecurity fresh) {
        this.security = fresh;
    }

    private void countAuthFailure(String reason) {
        authFailures.computeIfAbsent(reason, r -> Counter.builder("tandem.kv.server.auth.failures")
                .description("client requests or connections refused by authentication or authorization").tags(tags).tag("reason", r).register(registry)).increment();
    }

    /** The bound address (the port is the real one if 0 was asked for). */
    Endpoint address() {
        var a = (java.net.InetSocketAddress) server.localAddress();
        return new Endpoint(bind.host(), a.getPort());
    }

    /** Stops taking new connections; open ones keep being served. */
    synchronized void stopAccepting() {
        if (server != null) server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** Closes every connection (after what was written to it is flushed) and stops the event loop. */
    @Override
    public synchronized void close() {
        stopAccepting();
        List<ChannelFuture> closing = new ArrayList<>();
        for (Channel ch : channels) closing.add(ch.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE));
        for (ChannelFuture f : closing) f.channel().closeFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
        shutdownGroup();
    }

    private void shutdownGroup() {
        if (group != null && !group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS)) {
            log.warn("{}: client event loop did not stop within 10 s", self);
        }
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : m;
    }

    /**
     * The request counter of the request's type. A counter, not a timer: a histogram recorded per
     * request showed in the server's profile on every put; the client measures latency end to end.
     */
    private Counter requestsOf(Request request) {
        int kind = switch (request) {
            case Request.Command c -> 0;
            case Request.Query q -> 1;
            case Request.Status s -> 2;
            default -> 3;
        };
        // Looked up once per type, then read from the array: the map's computeIfAbsent ran on every put.
        // The I/O thread is the only caller (the group has one event loop), so a plain array is enough.
        Counter c = requestCounters[kind];
        if (c == null) {
            String type = REQUEST_TYPES[kind];
            c = requestCounters[kind] = requestsByType.computeIfAbsent(type, t -> Counter.builder("tandem.kv.server.requests")
                    .description("client requests received, by type").tags(tags).tag("type", t).register(registry));
        }
        return c;
    }

    /** One client connection. */
    private final class Connection extends ChannelInboundHandlerAdapter {
        private final AtomicInteger unanswered = new AtomicInteger();
        private boolean counted;
        /** After a framing error nothing more from this connection is read or answered. */
        private boolean refused;
        /** What this connection may do, and who it is for the logs; anonymous until it authenticates. */
        private Set<Role> roles = security.anonymousRoles();
        private String who = "an anonymous client";
        private boolean authenticated;
        /** The direct path of replies ({@link DirectReplies}), or null (TLS, NIO, disabled); set when the connection becomes active. */
        private DirectReplies path;

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            if (connections.incrementAndGet() > maxConnections) {
                // Refused: nothing it sends is read, so nothing it sent is executed.
                refused = true;
                ctx.channel().config().setAutoRead(false);
                refusedConnections.increment();
                badInputLog.warn("max-connections", "{}: refused a client connection from {}: {} connections are open (max-client-connections)",
                        self, ctx.channel().remoteAddress(), maxConnections);
                reply(ctx.channel(), new Response.Error(0, ErrorCode.OVERLOADED, self + " has " + maxConnections + " client connections already"))
                        .addListener(ChannelFutureListener.CLOSE);
                connections.decrementAndGet();
                return;
            }
            counted = true;
            path = DirectReplies.open(ctx.channel(), direct); // before anything is written to it (no TLS: nothing was)
            super.channelActive(ctx);
        }

        /** Writes and flushes {@code response} on the I/O thread, after the direct path's backlog if it has one. */
        private ChannelFuture answer(Channel ch, Response response) {
            DirectReplies p = path;
            return p == null ? reply(ch, response) : p.writeOnLoop(encode(ch, response));
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (counted) {
                counted = false;
                connections.decrementAndGet();
            }
            super.channelInactive(ctx);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof SslHandshakeCompletionEvent done) {
                if (done.isSuccess()) {
                    onTlsEstablished(ctx);
                } else if (!refused) {
                    refused = true;
                    countAuthFailure("tls");
                    badInputLog.warn("tls-" + tlsKind(done.cause()), "{}: TLS handshake with client {} failed: {} [tandem.kv.server.auth.failures reason=tls]",
                            self, ctx.channel().remoteAddress(), tlsFailure(done.cause()));
                    ctx.close();
                }
                return;
            }
            if (evt instanceof IdleStateEvent) {
                if (unanswered.get() == 0) {
                    log.debug("{}: closing client connection {}: nothing received for {}", self, ctx.channel().remoteAddress(), security.idleTimeout());
                    ctx.close();
                }
                return;
            }
            super.userEventTriggered(ctx, evt);
        }

        /** A client certificate, if one was presented (and verified), gives the connection its roles. */
        private void onTlsEstablished(ChannelHandlerContext ctx) {
            SslHandler ssl = ctx.pipeline().get(SslHandler.class);
            X509Certificate cert;
            try {
                cert = (X509Certificate) ssl.engine().getSession().getPeerCertificates()[0];
            } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
                return; // no certificate: anonymous until a token
            }
            CertificateIdentity id = CertificateIdentity.of(cert);
            roles = Role.fromNames(id.roles());
            authenticated = true;
            who = id.client().map(c -> "client " + c).orElse(id.describe());
            log.debug("{}: client connection {} authenticated by certificate as {} with {}", self, ctx.channel().remoteAddress(), who, Role.describe(roles));
        }

        private void authenticate(ChannelHandlerContext ctx, Request.Authenticate a) {
            var entry = security.tokens().find(a.token());
            if (entry.isEmpty()) {
                countAuthFailure("token");
                errors.get(ErrorCode.UNAUTHENTICATED).increment();
                badInputLog.warn("token", "{}: client {} presented a token this node does not accept; closing the connection "
                        + "[tandem.kv.server.auth.failures reason=token]", self, ctx.channel().remoteAddress());
                refuse(ctx, new Response.Error(a.requestId(), ErrorCode.UNAUTHENTICATED, "the token is not valid on " + self));
                return;
            }
            roles = entry.get().roles().isEmpty() ? EnumSet.noneOf(Role.class) : EnumSet.copyOf(entry.get().roles());
            authenticated = true;
            who = "client " + entry.get().name();
            answer(ctx.channel(), new Response.Done(a.requestId()));
        }

        /** Null if the connection may make {@code request}, else the error to answer it with. */
        private Response.Error refusal(ChannelHandlerContext ctx, Request request) {
            Role needed = Role.requiredFor(request);
            if (needed == null || roles.contains(needed)) return null;
            String what = request.getClass().getSimpleName();
            String role = needed.name().toLowerCase(java.util.Locale.ROOT);
            ErrorCode code = authenticated ? ErrorCode.FORBIDDEN : ErrorCode.UNAUTHENTICATED;
            countAuthFailure(authenticated ? "forbidden" : "unauthenticated");
            badInputLog.warn("refused-" + what + "-" + code, "{}: refused {} from {} at {}: it needs the {} role, the connection has {} [{}]",
                    self, what, who, ctx.channel().remoteAddress(), role, Role.describe(roles), code);
            return new Response.Error(request.requestId(), code, authenticated
                    ? what + " needs the " + role + " role; " + who + " has " + Role.describe(roles)
                    : what + " needs the " + role + " role: authenticate first, with a client certificate or a token");
        }

        /** A decoded request, or a {@link ClientFrames.Bad} frame ({@link ClientFrames}: never a buffer, nothing to release). */
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (refused) return;
            if (msg instanceof ClientFrames.Bad bad) {
                WireFormatException e = bad.error();
                badFrames.increment();
                ErrorCode code = e.versionMismatch() ? ErrorCode.UNSUPPORTED_VERSION : ErrorCode.BAD_REQUEST;
                errors.get(code).increment();
                badInputLog.warn("bad-frame", "{}: closing client connection {}: bad frame: {} [tandem.kv.server.frames.malformed]",
                        self, ctx.channel().remoteAddress(), e.getMessage());
                refuse(ctx, new Response.Error(bad.requestId(), code, e.getMessage()));
                return;
            }
            Request request = (Request) msg;
            if (request instanceof Request.Authenticate a) {
                authenticate(ctx, a);
                return;
            }
            Response.Error refusal = refusal(ctx, request);
            if (refusal != null) {
                errors.get(refusal.code()).increment();
                answer(ctx.channel(), refusal);
                return;
            }
            if (unanswered.incrementAndGet() > maxRequestsPerConnection) {
                unanswered.decrementAndGet();
                errors.get(ErrorCode.OVERLOADED).increment();
                answer(ctx.channel(), new Response.Error(request.requestId(), ErrorCode.OVERLOADED,
                        "more than " + maxRequestsPerConnection + " unanswered requests on this connection"));
                return;
            }
            requestsOf(request).increment();
            Reply reply = new Reply(this, ctx.channel(), path, request.requestId());
            try {
                handler.handle(request, reply);
                // Tasks run after the turn's reads on every connection: the handler sees the whole turn first.
                if (!endOfReadsQueued) {
                    endOfReadsQueued = true;
                    ctx.channel().eventLoop().execute(endOfReads);
                }
            } catch (RuntimeException e) {
                log.warn("{}: request handler threw", self, e);
                // A handler that threw has not handed the reply on (its contract: it must not throw); answered here.
                if (!reply.sent) reply.send(new Response.Error(request.requestId(), ErrorCode.INTERNAL, e.toString()));
            }
        }

        /**
         * A client that sends requests but does not read its answers would make the answers pile
         * up here: stop reading its requests until the answers drain below the low watermark.
         */
        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
            if (!refused) ctx.channel().config().setAutoRead(ctx.channel().isWritable());
            super.channelWritabilityChanged(ctx);
        }

        private void refuse(ChannelHandlerContext ctx, Response.Error error) {
            refused = true;
            ctx.channel().config().setAutoRead(false);
            answer(ctx.channel(), error).addListener(ChannelFutureListener.CLOSE);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (refused) return;
            if (isTls(cause)) {
                refused = true;
                countAuthFailure("tls");
                badInputLog.warn("tls-" + tlsKind(cause), "{}: TLS with client {} failed: {} [tandem.kv.server.auth.failures reason=tls]", self, ctx.channel().remoteAddress(), tlsFailure(cause));
                ctx.close();
                return;
            }
            if (cause instanceof TooLongFrameException || cause.getCause() instanceof TooLongFrameException) {
                badFrames.increment();
                errors.get(ErrorCode.BAD_REQUEST).increment();
                refuse(ctx, new Response.Error(0, ErrorCode.BAD_REQUEST, "frame larger than " + maxFrameBytes + " bytes"));
                return;
            }
            if (!(cause instanceof IOException)) log.warn("{}: client connection {} failed", self, ctx.channel().remoteAddress(), cause);
            ctx.close();
        }
    }

    private static boolean isTls(Throwable cause) {
        for (Throwable t = cause; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof SSLException || t instanceof NotSslRecordException) return true;
        }
        return false;
    }

    /** The kind of a TLS failure, so that one kind flooding the log does not hide another (rate limiting is per kind). */
    private static String tlsKind(Throwable cause) {
        for (Throwable t = cause; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof NotSslRecordException) return "plaintext";
            if (t instanceof io.netty.handler.ssl.SslHandshakeTimeoutException) return "timeout";
            if (t instanceof java.security.cert.CertificateException || t instanceof java.security.cert.CertPathValidatorException) return "certificate";
        }
        return "other";
    }

    private static String tlsFailure(Throwable cause) {
        for (Throwable t = cause; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof NotSslRecordException) return "the client does not speak TLS (a plaintext client on a TLS port: give it the CA, e.g. --tls-dir)";
        }
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    private void endOfReads() {
        endOfReadsQueued = false;
        handler.endOfReads();
    }

    /**
     * Called by the node's execution thread at the end of each executed batch, after the batch's requests were
     * answered: writes the replies it completed in the batch, one {@code send(2)} per connection ({@link DirectReplies}).
     * From the first call on, that thread's replies to connections with a direct path are held until the next call.
     */
    void endOfExecutedBatch() {
        Thread self = Thread.currentThread();
        if (batchThread != self) batchThread = self;
        ArrayList<DirectReplies> on = heldOn;
        for (int i = 0, n = on.size(); i < n; i++) on.get(i).sendHeld();
        on.clear();
    }

    /** Replies written by the thread that completed them, and direct writes the socket took only in part (tests). */
    long directReplies() {
        return direct.replies.sum();
    }

    long directSends() {
        return direct.sends.sum();
    }

    long directShortSends() {
        return direct.shortSends.sum();
    }

    /**
     * One request's way back to its connection, and the {@link ReplyQueue}'s entry for it: one object per request
     * (issue 25: before, a put's answer passed through two more futures, their stages and a queue record). For a
     * command it is also the runtime's {@link RequestAnswer}: the execution thread hands it the state machine's
     * result, which the I/O thread writes straight into the reply buffer (no result array on the way).
     */
    final class Reply implements RequestAnswer, DirectReplies.Frame {
        private final Connection connection;
        private final Channel channel;
        /** The connection's direct path, or null. */
        private final DirectReplies path;
        private final long requestId;
        /** What to write: a command's KV result, or else the response (set before the reply is queued). */
        private KvResult result;
        private Response response;
        /** Set by the thread that sends (read only by the I/O thread's guard against a throwing handler). */
        private boolean sent;

        private Reply(Connection connection, Channel channel, DirectReplies path, long requestId) {
            this.connection = connection;
            this.channel = channel;
            this.path = path;
            this.requestId = requestId;
        }

        long requestId() {
            return requestId;
        }

        private Channel channel() {
            return channel;
        }

        /** Sends {@code r} (any thread). */
        void send(Response r) {
            if (r instanceof Response.Error e) errors.get(e.code()).increment();
            response = r;
            dispatch();
        }

        /**
         * A command's result: a {@link KvResult} is written by the I/O thread as it is (it refers only to arrays nobody
         * writes: part 11 of docs/hotpath.md); any other result is encoded here, on the thread that completes it,
         * as {@link CommandResult}'s contract asks.
         */
        @Override
        public void completed(CommandResult r) {
            if (r instanceof KvResult kv) {
                result = kv;
                dispatch();
            } else {
                send(new Response.Result(requestId, r.encode()));
            }
        }

        @Override
        public void failed(Throwable error) {
            send(handler.failure(requestId, error));
        }

        private void dispatch() {
            sent = true;
            connection.unanswered.decrementAndGet();
            DirectReplies p = path;
            if (p != null) {
                if (channel.eventLoop().inEventLoop()) {
                    p.writeOnLoop(encode(channel));
                } else if (Thread.currentThread() == batchThread) {
                    // The execution thread: held until the end of its batch, then sent with the batch's other
                    // replies to this connection in one write (endOfExecutedBatch).
                    if (p.hold(this)) heldOn.add(p);
                } else {
                    p.sendNow(this);
                }
                return;
            }
            ReplyQueue<Reply> q = replies;
            if (q != null && q.loop() == channel.eventLoop()) {
                q.offer(this);
            } else {
                ByteBuf out = encode(channel);
                channel.writeAndFlush(out);
            }
        }

        /** Encodes this reply into the channel's outbound buffer without flushing (I/O thread). */
        private void write() {
            channel.write(encode(channel));
        }

        @Override
        public int sizeHint() {
            return result != null ? ClientWire.resultSizeHint(result) : ClientWire.sizeHint(response);
        }

        /** Appends this reply's frame to {@code out}; one that cannot be encoded is answered INTERNAL instead. */
        @Override
        public void writeTo(ByteBuf out) {
            int start = out.writerIndex();
            try {
                if (result != null) ClientWire.writeResult(requestId, result, out);
                else ClientWire.writeResponse(response, out);
            } catch (RuntimeException e) {
                out.writerIndex(start);
                log.warn("{}: cannot encode the reply to request {}", self, requestId, e);
                ClientWire.writeResponse(new Response.Error(requestId, ErrorCode.INTERNAL, "the reply could not be encoded: " + e), out);
            }
        }

        private ByteBuf encode(Channel ch) {
            if (result == null) return ClientEndpoint.encode(ch, response);
            ByteBuf buf = ch.alloc().buffer(ClientWire.resultSizeHint(result));
            try {
                ClientWire.writeResult(requestId, result, buf);
            } catch (RuntimeException e) {
                buf.release();
                throw e;
            }
            return buf;
        }
    }

    private static ChannelFuture reply(Channel ch, Response response) {
        return ch.writeAndFlush(encode(ch, response));
    }

    private static ByteBuf encode(Channel ch, Response response) {
        ByteBuf buf = ch.alloc().buffer(ClientWire.sizeHint(response));
        try {
            ClientWire.writeResponse(response, buf);
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
        return buf;
    }
}
