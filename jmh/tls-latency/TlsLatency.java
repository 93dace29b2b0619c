import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.*;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.*;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.transport.Endpoint;
import io.tandem.transport.TransportSetup;
import io.tandem.transport.tcp.*;
import io.tandem.transport.tcp.tls.*;
import java.nio.file.*;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.atomic.*;

/**
 * Diagnostic (not a JMH benchmark): round-trip latency of a 64-byte message on loopback, plaintext against
 * TLS 1.3, on raw Netty and on {@code TcpTransport}, one message in flight. Run it from the repository root
 * after building the benchmarks jar, in the source-file mode of the java launcher:
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -Dsecs=3 -cp jmh/target/benchmarks.jar jmh/tls-latency/TlsLatency.java \
 *     netty:AUTO:plain:nofch:loop netty:AUTO:openssl:nofch:loop netty:AUTO:jdk:nofch:loop tcp:AUTO:plain tcp:AUTO:tls
 * </pre>
 *
 * Each argument is one variant, run for {@code secs} seconds of warm-up and {@code secs} measured:
 * <ul>
 *   <li>{@code netty:IO:TLS:FCH:MODE}: a Netty client and echo server, each with one event loop of io mode
 *       {@code IO} (AUTO, IO_URING, EPOLL, NIO); {@code TLS} is plain, openssl or jdk (the SslHandler's
 *       provider); {@code FCH} is fch (a FlushConsolidationHandler behind the SslHandler, as on the KV client
 *       port) or nofch; {@code MODE} loop sends the next message from the client's event loop on receipt,
 *       handoff from another thread that waits for the echo (as the runtime hands messages to Netty).</li>
 *   <li>{@code tcp:IO:TLS}: two {@code TcpTransport}s, plain or tls (the provider of {@code TlsMaterial},
 *       {@code -Dtandem.tls.provider}); the receiver's listener echoes from its I/O thread, the sender's
 *       thread waits for the echo.</li>
 * </ul>
 * Prints p10/p50/p90/p99 of the round trip and, for the Netty variants, the process CPU per round trip.
 */
public class TlsLatency {
    static Path dir;
    static final int SECONDS = Integer.getInteger("secs", 4);

    public static void main(String[] a) throws Exception {
        dir = Files.createTempDirectory("tlslat");
        var ca = DevCertificates.newCa("ca", Duration.ofDays(1));
        DevCertificates.writeCertificates(dir.resolve("ca.pem"), ca.certificate());
        for (String n : new String[] {"n1", "n2"}) {
            var m = DevCertificates.issueMember(ca, NodeId.of(n), Duration.ofDays(1));
            DevCertificates.writeCertificates(dir.resolve(n + ".pem"), m.certificate(), ca.certificate());
            DevCertificates.writeKey(dir.resolve(n + "-key.pem"), m.key());
        }
        System.out.println("provider " + TlsMaterial.providerName());
        for (String v : a) {
            String[] p = v.split(":"); // kind:io:tls:fch:handoff   kind = netty|tcp
            if (p[0].equals("tcp")) tcp(v, IoMode.valueOf(p[1]), p[2].equals("tls"));
            else netty(v, IoMode.valueOf(p[1]), p[2], p[3].equals("fch"), p[4].equals("handoff"));
        }
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) Files.delete(f);
        }
        Files.delete(dir);
        System.exit(0);
    }

    static void report(String v, long[] rtts, int n) {
        long[] r = Arrays.copyOf(rtts, n);
        Arrays.sort(r);
        System.out.printf("%-36s n=%7d  p10 %6.1f  p50 %6.1f  p90 %6.1f  p99 %7.1f µs%n", v, n, r[n / 10] / 1e3, r[n / 2] / 1e3, r[n * 9 / 10] / 1e3, r[n * 99 / 100] / 1e3);
    }

    // ---- raw Netty echo: 64 B length-prefixed frame, server writes it back; client sends the next on receipt
    static void netty(String v, IoMode mode, String tls, boolean fch, boolean handoff) throws Exception {
        NettyIo io = NettyIo.resolve(mode);
        var sg = io.newEventLoopGroup(1, "srv");
        var cg = io.newEventLoopGroup(1, "cli");
        SslContext sctx = null, cctx = null;
        if (!tls.equals("plain")) {
            SslProvider prov = tls.equals("jdk") ? SslProvider.JDK : SslProvider.OPENSSL;
            sctx = SslContextBuilder.forServer(dir.resolve("n2.pem").toFile(), dir.resolve("n2-key.pem").toFile()).sslProvider(prov).protocols("TLSv1.3")
                    .trustManager(dir.resolve("ca.pem").toFile()).clientAuth(ClientAuth.REQUIRE).build();
            cctx = SslContextBuilder.forClient().keyManager(dir.resolve("n1.pem").toFile(), dir.resolve("n1-key.pem").toFile()).sslProvider(prov).protocols("TLSv1.3")
                    .trustManager(dir.resolve("ca.pem").toFile()).endpointIdentificationAlgorithm(null).build();
        }
        final SslContext s = sctx, c = cctx;
        int port = freePort();
        Channel server = new ServerBootstrap().group(sg).channel(io.serverSocketChannel()).childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    protected void initChannel(Channel ch) {
                        if (s != null) ch.pipeline().addLast(s.newHandler(ch.alloc()));
                        if (fch) ch.pipeline().addLast(new FlushConsolidationHandler(256, true));
                        ch.pipeline().addLast(new io.netty.handler.codec.LengthFieldBasedFrameDecoder(1 << 20, 0, 4, 0, 0), new ChannelInboundHandlerAdapter() {
                            public void channelRead(ChannelHandlerContext ctx, Object msg) { ctx.writeAndFlush(msg); }
                        });
                    }
                }).bind("127.0.0.1", port).sync().channel();
        long[] rtts = new long[5_000_000];
        AtomicInteger n = new AtomicInteger();
        AtomicLong sentAt = new AtomicLong();
        AtomicBoolean measuring = new AtomicBoolean(), stop = new AtomicBoolean();
        AtomicLong got = new AtomicLong();
        Channel[] chh = new Channel[1];
        Channel ch = new Bootstrap().group(cg).channel(io.socketChannel()).option(ChannelOption.TCP_NODELAY, true).handler(new ChannelInitializer<Channel>() {
            protected void initChannel(Channel ch) {
                if (c != null) ch.pipeline().addLast(c.newHandler(ch.alloc(), "127.0.0.1", port));
                if (fch) ch.pipeline().addLast(new FlushConsolidationHandler(256, true));
                ch.pipeline().addLast(new io.netty.handler.codec.LengthFieldBasedFrameDecoder(1 << 20, 0, 4, 0, 0), new ChannelInboundHandlerAdapter() {
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ((ByteBuf) msg).release();
                        long t = System.nanoTime() - sentAt.get();
                        if (measuring.get()) { int i = n.getAndIncrement(); if (i < rtts.length) rtts[i] = t; }
                        if (handoff) { got.incrementAndGet(); return; }
                        if (!stop.get()) send(ctx.channel(), sentAt);
                    }
                });
            }
        }).connect("127.0.0.1", port).sync().channel();
        Thread.sleep(300);
        if (handoff) {
            Thread t = new Thread(() -> {
                long want = 0;
                while (!stop.get()) {
                    want = got.get() + 1;
                    send(ch, sentAt);
                    int spins = 0;
                    while (got.get() < want && !stop.get()) { if (++spins < 64) Thread.onSpinWait(); else Thread.yield(); }
                }
            });
            t.start();
            run(v, measuring, stop, n, rtts);
            t.join();
        } else {
            ch.eventLoop().execute(() -> send(ch, sentAt));
            run(v, measuring, stop, n, rtts);
        }
        ch.close().sync(); server.close().sync();
        sg.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).sync(); cg.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).sync();
    }

    static void send(Channel ch, AtomicLong sentAt) {
        ByteBuf b = ch.alloc().buffer(68);
        b.writeInt(64).writeZero(64);
        sentAt.set(System.nanoTime());
        ch.writeAndFlush(b);
    }

    static long cpu() { return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime(); }
    static void run(String v, AtomicBoolean measuring, AtomicBoolean stop, AtomicInteger n, long[] rtts) throws Exception {
        Thread.sleep(SECONDS * 1000L);
        measuring.set(true);
        long c0 = cpu();
        Thread.sleep(SECONDS * 1000L);
        measuring.set(false);
        long c1 = cpu();
        System.out.printf("   cpu per round trip %.1f µs (whole process)%n", (c1 - c0) / 1e3 / Math.max(1, n.get()));
        stop.set(true);
        Thread.sleep(50);
        report(v, rtts, Math.min(n.get(), rtts.length));
    }

    // ---- TcpTransport round trip: n1 sends, n2's listener echoes from its I/O thread, n1's sender thread waits

    static void tcp(String v, IoMode mode, boolean tls) throws Exception {
        var cb = io.tandem.codec.KryoCodec.builder(); cb.register(io.tandem.jmh.transport.BenchMessage.class, io.tandem.codec.CodecIds.TEST_FIRST); var codec = cb.build();
        NodeId n1 = NodeId.of("n1"), n2 = NodeId.of("n2");
        Map<NodeId, Endpoint> members = Map.of(n1, new Endpoint("127.0.0.1", freePort()), n2, new Endpoint("127.0.0.1", freePort()));
        TcpTransportConfig c1 = TcpTransportConfig.defaults().withIoThreads(1).withIoMode(mode), c2 = c1;
        if (tls) {
            c1 = c1.withTls(TlsConfig.pem(dir.resolve("n1.pem"), dir.resolve("n1-key.pem"), dir.resolve("ca.pem")));
            c2 = c2.withTls(TlsConfig.pem(dir.resolve("n2.pem"), dir.resolve("n2-key.pem"), dir.resolve("ca.pem")));
        }
        TcpTransport a = new TcpTransport(new TransportSetup("lat", n1, members, codec, new SimpleMeterRegistry()), c1);
        TcpTransport b = new TcpTransport(new TransportSetup("lat", n2, members, codec, new SimpleMeterRegistry()), c2);
        AtomicLong echoed = new AtomicLong();
        b.start(new io.tandem.transport.TransportListener() {
            public void onMessage(NodeId from, ProtocolMessage m) { b.send(from, m); }
        });
        a.start((from, m) -> echoed.set(m.requestId()));
        while (!(a.isConnected(n2) && b.isConnected(n1))) Thread.sleep(10);
        long[] rtts = new long[5_000_000];
        int n = 0;
        byte[] body = new byte[64];
        long seq = 0;
        for (int phase = 0; phase < 2; phase++) {
            long end = System.nanoTime() + SECONDS * 1_000_000_000L;
            while (System.nanoTime() < end) {
                long s = ++seq;
                long t0 = System.nanoTime();
                a.send(n2, new io.tandem.jmh.transport.BenchMessage(s, true, body));
                int spins = 0;
                while (echoed.get() != s) { if (++spins < 64) Thread.onSpinWait(); else Thread.yield(); }
                if (phase == 1 && n < rtts.length) rtts[n++] = System.nanoTime() - t0;
            }
        }
        report(v, rtts, n);
        a.close(); b.close();
    }

    static int freePort() throws Exception {
        try (var s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) { return s.getLocalPort(); }
    }
}
