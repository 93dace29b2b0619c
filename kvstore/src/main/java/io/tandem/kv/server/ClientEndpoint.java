package io.tandem.kv.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
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
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.tandem.engine.NodeId;
import io.tandem.kv.net.ClientWire;
import io.tandem.kv.net.ErrorCode;
import io.tandem.kv.net.Request;
import io.tandem.kv.net.Response;
import io.tandem.kv.net.WireFormatException;
import io.tandem.transport.Endpoint;
import io.tandem.transport.tcp.IoMode;
import io.tandem.transport.tcp.NettyIo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's client-facing TCP endpoint (Netty): decodes {@link ClientWire} frames, hands each
 * request to a {@link Handler}, and writes the response when its future completes, on whatever
 * thread that is (flushes are consolidated, so a burst of answers costs few syscalls). Requests on
 * one connection may be answered out of order; the request id ties them together.
 *
 * <p>Limits: at most {@code maxConnections} connections (more are told OVERLOADED and closed), at
 * most {@code maxRequestsPerConnection} unanswered requests per connection (more are answered
 * OVERLOADED at once), frames up to {@code maxFrameBytes}; a connection whose answers are not read
 * (Netty's write buffer above its high watermark) is not read from until they drain. A frame that cannot be decoded is
 * answered with BAD_REQUEST (or UNSUPPORTED_VERSION) and the connection is closed: after a framing
 * error nothing that follows can be trusted.
 */
final class ClientEndpoint implements AutoCloseable {
    /** Answers requests; the future must always complete, and the method must not throw or block. */
    interface Handler {
        CompletableFuture<Response> handle(Request request);
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
    private final Map<String, Timer> latency = new ConcurrentHashMap<>();
    private final Counter badFrames;
    private final Counter refusedConnections;
    private final MeterRegistry registry;
    private final Tags tags;
    private MultiThreadIoEventLoopGroup group;
    private Channel server;

    ClientEndpoint(NodeId self, Endpoint bind, Handler handler, int maxConnections, int maxRequestsPerConnection, int maxFrameBytes,
                   MeterRegistry registry) {
        this.self = self;
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
                .tags(tags).register(registry);
        Gauge.builder("tandem.kv.server.connections", connections, AtomicInteger::get).description("open client connections")
                .tags(tags).register(registry);
    }

    /**
     * Binds the listening socket.
     *
     * @throws IllegalStateException naming the address if it cannot be bound (port in use, bad host)
     */
    synchronized void start() {
        NettyIo io = NettyIo.resolve(IoMode.AUTO);
        group = io.newEventLoopGroup(1, "tandem-clients-" + self);
        try {
            server = new ServerBootstrap()
                    .group(group)
                    .channel(io.serverSocketChannel())
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            channels.add(ch);
                            ch.closeFuture().addListener(f -> channels.remove(ch));
                            ch.pipeline()
                                    .addLast("flush", new FlushConsolidationHandler(256, true))
                                    .addLast("frames", new LengthFieldBasedFrameDecoder(maxFrameBytes, 0, 4, 0, 4, true))
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

    private Timer latencyOf(Request request) {
        String type = switch (request) {
            case Request.Command c -> "command";
            case Request.Query q -> "query";
            case Request.Status s -> "status";
            default -> "admin";
        };
        return latency.computeIfAbsent(type, t -> Timer.builder("tandem.kv.server.requests").description("client requests, from decode to answer")
                .tags(tags).tag("type", t)
                // Every series of one name must have the same shape in Prometheus: all histograms.
                .publishPercentileHistogram().register(registry));
    }

    /** One client connection. */
    private final class Connection extends ChannelInboundHandlerAdapter {
        private final AtomicInteger unanswered = new AtomicInteger();
        private boolean counted;
        /** After a framing error nothing more from this connection is read or answered. */
        private boolean refused;

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            if (connections.incrementAndGet() > maxConnections) {
                refusedConnections.increment();
                reply(ctx.channel(), new Response.Error(0, ErrorCode.OVERLOADED, self + " has " + maxConnections + " client connections already"))
                        .addListener(ChannelFutureListener.CLOSE);
                connections.decrementAndGet();
                return;
            }
            counted = true;
            super.channelActive(ctx);
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
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf body = (ByteBuf) msg;
            if (refused) {
                body.release();
                return;
            }
            int bodyStart = body.readerIndex();
            Request request;
            try {
                request = ClientWire.readRequest(body);
            } catch (WireFormatException e) {
                badFrames.increment();
                long id = ClientWire.peekRequestId(body.readerIndex(bodyStart));
                ErrorCode code = e.versionMismatch() ? ErrorCode.UNSUPPORTED_VERSION : ErrorCode.BAD_REQUEST;
                errors.get(code).increment();
                log.debug("{}: bad frame from {}: {}", self, ctx.channel().remoteAddress(), e.getMessage());
                refuse(ctx, new Response.Error(id, code, e.getMessage()));
                return;
            } finally {
                body.release();
            }
            if (unanswered.incrementAndGet() > maxRequestsPerConnection) {
                unanswered.decrementAndGet();
                errors.get(ErrorCode.OVERLOADED).increment();
                reply(ctx.channel(), new Response.Error(request.requestId(), ErrorCode.OVERLOADED,
                        "more than " + maxRequestsPerConnection + " unanswered requests on this connection"));
                return;
            }
            Channel ch = ctx.channel();
            Timer timer = latencyOf(request);
            long start = System.nanoTime();
            CompletableFuture<Response> answer;
            try {
                answer = handler.handle(request);
            } catch (RuntimeException e) {
                log.warn("{}: request handler threw", self, e);
                answer = CompletableFuture.completedFuture(new Response.Error(request.requestId(), ErrorCode.INTERNAL, e.toString()));
            }
            answer.whenComplete((response, failure) -> {
                unanswered.decrementAndGet();
                timer.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                Response r = failure == null ? response : new Response.Error(request.requestId(), ErrorCode.INTERNAL, failure.toString());
                if (r instanceof Response.Error e) errors.get(e.code()).increment();
                reply(ch, r);
            });
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
            reply(ctx.channel(), error).addListener(ChannelFutureListener.CLOSE);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (refused) return;
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

    private static ChannelFuture reply(Channel ch, Response response) {
        ByteBuf buf = ch.alloc().buffer(ClientWire.sizeHint(response));
        try {
            ClientWire.writeResponse(response, buf);
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
        return ch.writeAndFlush(buf);
    }
}
