package io.tandem.jmh.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.tandem.transport.tcp.IoMode;
import io.tandem.transport.tcp.NettyIo;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The baseline for {@link TcpTransportBenchmark}: plain Netty on the same I/O mode, one I/O thread
 * per side, length-prefixed frames carrying a sequence number, an echo flag and the same payload,
 * no codec and no queue of our own. The benchmark thread writes each frame with
 * {@code writeAndFlush}, as plain Netty code would; the server echoes a frame by writing it back.
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-Dio.netty.leakDetection.level=disabled", "--enable-native-access=ALL-UNNAMED"})
public class NettyEchoBenchmark {
    /** length (4) | seq (8) | echo flag (1) | payload */
    private static final int LENGTH_BYTES = 4;
    private static final int SEQ_AT = 4;
    private static final int FLAG_AT = 12;

    @Param({"64", "1024"})
    int payloadBytes;

    @Param({"AUTO"})
    String ioMode;

    private MultiThreadIoEventLoopGroup serverGroup;
    private MultiThreadIoEventLoopGroup clientGroup;
    private Channel client;
    private byte[] payload;
    private long sent;
    private final AtomicLong delivered = new AtomicLong();
    private volatile long echoed;

    @Setup(Level.Trial)
    public void start() throws InterruptedException {
        payload = new byte[payloadBytes];
        NettyIo io = NettyIo.resolve(IoMode.valueOf(ioMode));
        serverGroup = io.newEventLoopGroup(1, "raw-server");
        clientGroup = io.newEventLoopGroup(1, "raw-client");
        int port = Loopback.freePort();
        new ServerBootstrap()
                .group(serverGroup)
                .channel(io.serverSocketChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(1 << 20, 0, LENGTH_BYTES), new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ByteBuf frame = (ByteBuf) msg;
                                if (frame.getByte(FLAG_AT) != 0) {
                                    ctx.writeAndFlush(frame); // the frame still carries its length prefix
                                } else {
                                    delivered.incrementAndGet();
                                    frame.release();
                                }
                            }
                        });
                    }
                })
                .bind("127.0.0.1", port).sync();
        client = new Bootstrap()
                .group(clientGroup)
                .channel(io.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(1 << 20, 0, LENGTH_BYTES), new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ByteBuf frame = (ByteBuf) msg;
                                echoed = frame.getLong(SEQ_AT);
                                frame.release();
                            }
                        });
                    }
                })
                .connect("127.0.0.1", port).sync().channel();
        System.out.println("# plain Netty io mode: " + io.mode());
    }

    @TearDown(Level.Trial)
    public void stop() {
        client.close().syncUninterruptibly();
        clientGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        serverGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private void write(long seq, boolean echo) {
        ByteBuf frame = client.alloc().directBuffer(LENGTH_BYTES + 9 + payload.length);
        frame.writeInt(9 + payload.length).writeLong(seq).writeByte(echo ? 1 : 0).writeBytes(payload);
        client.writeAndFlush(frame, client.voidPromise());
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public void oneWay() {
        long seq = ++sent;
        Loopback.spinUntil(() -> seq - delivered.get() <= Loopback.WINDOW);
        write(seq, false);
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long roundTrip() {
        long seq = ++sent;
        write(seq, true);
        Loopback.spinUntil(() -> echoed == seq);
        return seq;
    }
}
