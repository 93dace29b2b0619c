package io.tandem.transport.tcp;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * A resolved Netty I/O implementation: the event-loop group (Netty 4.2's
 * {@link MultiThreadIoEventLoopGroup} with an {@link IoHandlerFactory}) and the matching channel
 * classes. {@link TcpTransport} uses it, and so does the raw-Netty baseline benchmark, so that
 * both run on exactly the same I/O mode.
 */
public final class NettyIo {
    private final IoMode mode;

    private NettyIo(IoMode mode) {
        this.mode = mode;
    }

    /**
     * Resolves {@code requested}: {@link IoMode#AUTO} becomes the best available mode; an explicit
     * native mode must be available.
     *
     * @throws IllegalStateException if an explicitly requested native mode is unavailable here
     */
    public static NettyIo resolve(IoMode requested) {
        return switch (requested) {
            case AUTO -> new NettyIo(ioUringAvailable() ? IoMode.IO_URING : epollAvailable() ? IoMode.EPOLL : IoMode.NIO);
            case IO_URING -> {
                if (!ioUringAvailable()) throw new IllegalStateException("io mode IO_URING is not available here: " + cause(IoMode.IO_URING));
                yield new NettyIo(IoMode.IO_URING);
            }
            case EPOLL -> {
                if (!epollAvailable()) throw new IllegalStateException("io mode EPOLL is not available here: " + cause(IoMode.EPOLL));
                yield new NettyIo(IoMode.EPOLL);
            }
            case NIO -> new NettyIo(IoMode.NIO);
        };
    }

    /** Whether {@code mode} can run on this machine ({@link IoMode#AUTO} and NIO always can). */
    public static boolean isAvailable(IoMode mode) {
        return switch (mode) {
            case AUTO, NIO -> true;
            case IO_URING -> ioUringAvailable();
            case EPOLL -> epollAvailable();
        };
    }

    /** The resolved mode; never {@link IoMode#AUTO}. */
    public IoMode mode() {
        return mode;
    }

    /** A new event-loop group of {@code threads} daemon threads named {@code threadNamePrefix-...}. */
    public MultiThreadIoEventLoopGroup newEventLoopGroup(int threads, String threadNamePrefix) {
        return newEventLoopGroup(threads, threadNamePrefix, t -> { });
    }

    /**
     * As {@link #newEventLoopGroup(int, String)}, handing every thread the group creates to
     * {@code created}: Netty's termination future completes on the loop thread itself, just before
     * it exits, so an owner that promises "no thread left after close" must join the threads too.
     */
    public MultiThreadIoEventLoopGroup newEventLoopGroup(int threads, String threadNamePrefix, java.util.function.Consumer<Thread> created) {
        DefaultThreadFactory factory = new DefaultThreadFactory(threadNamePrefix, true) {
            @Override
            protected Thread newThread(Runnable r, String name) {
                Thread t = super.newThread(r, name);
                created.accept(t);
                return t;
            }
        };
        return new MultiThreadIoEventLoopGroup(threads, factory, ioHandlerFactory());
    }

    public Class<? extends SocketChannel> socketChannel() {
        return switch (mode) {
            case IO_URING -> IoUringSocketChannel.class;
            case EPOLL -> EpollSocketChannel.class;
            case NIO, AUTO -> NioSocketChannel.class;
        };
    }

    public Class<? extends ServerSocketChannel> serverSocketChannel() {
        return switch (mode) {
            case IO_URING -> IoUringServerSocketChannel.class;
            case EPOLL -> EpollServerSocketChannel.class;
            case NIO, AUTO -> NioServerSocketChannel.class;
        };
    }

    private IoHandlerFactory ioHandlerFactory() {
        return switch (mode) {
            case IO_URING -> IoUringIoHandler.newFactory();
            case EPOLL -> EpollIoHandler.newFactory();
            case NIO, AUTO -> NioIoHandler.newFactory();
        };
    }

    // The native classes are on the class path, but their libraries may not load (another OS or
    // architecture, io_uring disabled by the kernel): isAvailable() says so without throwing.
    private static boolean ioUringAvailable() {
        try {
            return IoUring.isAvailable();
        } catch (LinkageError e) {
            return false;
        }
    }

    private static boolean epollAvailable() {
        try {
            return Epoll.isAvailable();
        } catch (LinkageError e) {
            return false;
        }
    }

    private static String cause(IoMode mode) {
        try {
            Throwable t = mode == IoMode.IO_URING ? IoUring.unavailabilityCause() : Epoll.unavailabilityCause();
            return t == null ? "unknown reason" : t.toString();
        } catch (LinkageError e) {
            return e.toString();
        }
    }

    @Override
    public String toString() {
        return mode.name().toLowerCase(java.util.Locale.ROOT);
    }
}
