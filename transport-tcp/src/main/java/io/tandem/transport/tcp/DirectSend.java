package io.tandem.transport.tcp;

import io.netty.channel.Channel;
import io.netty.channel.unix.UnixChannel;
import io.netty.handler.ssl.SslHandler;
import io.tandem.codec.FrameFormat;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member connection's socket written by the sending thread itself, without waking the connection's I/O thread
 * (tcp20). Netty writes a channel only from its event loop: a frame queued by an engine's loop turn was handed to the
 * I/O thread (one task and one {@code eventfd} write per hand-off, with io_uring even when the I/O thread is awake),
 * and the I/O thread then woke, ran the drain and submitted the send. Here the thread that holds the link's drain
 * ({@link PeerLink}) packs the queued frames into this connection's native buffer and hands them to the kernel with
 * one non-blocking {@code send(2)}; the I/O thread is not involved unless the socket cannot take everything now.
 *
 * <p><b>Why the socket is not written by two threads at once.</b> Every byte of a member connection after its
 * handshake goes out through {@link PeerLink}'s drain, and only the thread holding the drain flag writes, by either
 * path: this one, or Netty's outbound buffer on the event loop. This path is used only while {@link #ready} is set,
 * which the event loop sets only when it holds the flag and sees Netty's outbound buffer empty (so nothing written
 * through Netty, the handshake included, is still waiting to reach the kernel: later bytes cannot overtake it), and
 * which every write through Netty clears first. A TLS connection never gets one (its bytes must pass the
 * {@link SslHandler}); NIO channels have no descriptor, so they keep the event-loop path.
 *
 * <p><b>Why a duplicate descriptor.</b> Netty closes its descriptor on its event loop, at any time; a number closed
 * under a concurrent {@code send} could be reused at once by another socket or file. This path writes its own
 * {@code dup(2)} of the descriptor instead, under this object's lock, and closes it under the same lock when the
 * channel closes: the number it writes to is always the connection's. The socket itself lives until both are closed
 * (the dup is closed right after Netty's close, in the channel's close listener).
 *
 * <p>{@code send} uses {@code MSG_DONTWAIT} (never blocks, even on a socket in blocking mode, as io_uring's may be)
 * and {@code MSG_NOSIGNAL} (a reset peer is an error code, not a {@code SIGPIPE}).
 */
final class DirectSend {
    private static final Logger log = LoggerFactory.getLogger(DirectSend.class);

    /** {@code -Dtandem.tcp.directWrites=false} keeps every write on the event loop (for measurements). */
    static final boolean ENABLED = Boolean.parseBoolean(System.getProperty("tandem.tcp.directWrites", "true"));

    /** Frames are packed into a native buffer of this size per connection. */
    static final int BUFFER_BYTES = 64 * 1024;
    /**
     * Frames (header included) larger than this take the event-loop path. A sender streaming large frames to several
     * peers (8 KiB chunks, a fan-out) would otherwise do every peer's send syscalls in series on its own thread,
     * where the I/O threads did them in parallel with its encoding: in tcp20's streaming run the direct path moved one
     * 8 KiB stream 1.3x faster but two streams and a fan-out at 0.5-0.65x. Engine traffic (acks, votes, AppendEntries of
     * small commands) is far below it. {@code -Dtandem.tcp.directMaxFrameBytes} changes it.
     */
    static final int MAX_FRAME_BYTES = Integer.getInteger("tandem.tcp.directMaxFrameBytes", 8 * 1024);

    /** The frame header's fields as {@link FrameFormat} lays them out (network order). */
    static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    private static final int MSG_DONTWAIT = 0x40;
    private static final int MSG_NOSIGNAL = 0x4000;
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;

    private static final MethodHandle DUP;
    private static final MethodHandle SEND;
    private static final MethodHandle CLOSE;
    private static final VarHandle ERRNO;
    private static final long ERRNO_BYTES;
    static final boolean AVAILABLE;

    static {
        MethodHandle dup = null, send = null, close = null;
        VarHandle errno = null;
        long errnoBytes = 0;
        boolean ok = false;
        if (ENABLED && System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).startsWith("linux")) {
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                var capture = Linker.Option.captureStateLayout();
                errno = capture.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
                errnoBytes = capture.byteSize();
                dup = linker.downcallHandle(libc.find("dup").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
                        Linker.Option.captureCallState("errno"));
                send = linker.downcallHandle(libc.find("send").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT),
                        Linker.Option.captureCallState("errno"));
                close = linker.downcallHandle(libc.find("close").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
                ok = true;
            } catch (Throwable e) { // no native access, another libc: the event-loop path stays
                log.info("direct socket writes are not available ({}); every write goes through the I/O threads", e.toString());
            }
        }
        DUP = dup;
        SEND = send;
        CLOSE = close;
        ERRNO = errno;
        ERRNO_BYTES = errnoBytes;
        AVAILABLE = ok;
    }

    final Channel channel;
    /** The native buffer frames are packed into; touched only by the drain flag's holder. */
    final MemorySegment buffer;
    private final MemorySegment errnoState;
    /** Our duplicate of the channel's descriptor, or -1 once the channel closed. Guarded by {@code this}. */
    private int fd;
    /**
     * Netty's outbound buffer of the channel was seen empty by the flag's holder and nothing went through it since:
     * the holder may write the socket here. Set only on the event loop, cleared before any write through Netty.
     */
    volatile boolean ready;

    private DirectSend(Channel channel, int fd) {
        this.channel = channel;
        this.fd = fd;
        Arena arena = Arena.ofAuto(); // freed with this object: no close racing a writer
        this.buffer = arena.allocate(BUFFER_BYTES, 64);
        this.errnoState = arena.allocate(ERRNO_BYTES);
    }

    /**
     * The direct path of {@code ch} (a handshaken member connection, called on its event loop), or null when it has
     * none: disabled, TLS, not a Unix socket channel, or the descriptor cannot be duplicated. Closes its descriptor
     * when the channel closes.
     */
    static DirectSend open(Channel ch) {
        if (!AVAILABLE || !(ch instanceof UnixChannel unix) || ch.pipeline().get(SslHandler.class) != null) return null;
        int dupFd;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(ERRNO_BYTES);
            dupFd = (int) DUP.invokeExact(state, unix.fd().intValue());
        } catch (Throwable e) {
            return null;
        }
        if (dupFd < 0) return null;
        DirectSend d = new DirectSend(ch, dupFd);
        ch.closeFuture().addListener(f -> d.close());
        return d;
    }

    /**
     * Sends {@code length} bytes of {@link #buffer} from offset 0; never blocks. Returns how many the kernel took
     * (less than {@code length} when the socket's send buffer is full), or -1 if the connection failed or closed.
     */
    synchronized long send(long length) {
        long sent = 0;
        while (sent < length) {
            if (fd < 0) return -1;
            long n;
            try {
                n = (long) SEND.invokeExact(errnoState, fd, buffer.asSlice(sent), length - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
            } catch (Throwable e) {
                return -1;
            }
            if (n > 0) {
                sent += n;
                continue;
            }
            int errno = n < 0 ? (int) ERRNO.get(errnoState, 0L) : 0;
            if (errno == EINTR) continue;
            if (n == 0 || errno == EAGAIN) return sent; // the socket's buffer is full: the rest goes through Netty
            return sent > 0 ? sent : -1;
        }
        return sent;
    }

    private synchronized void close() {
        if (fd < 0) return;
        try {
            int rc = (int) CLOSE.invokeExact(fd);
        } catch (Throwable e) {
            // nothing to do: the descriptor is gone either way
        }
        fd = -1;
        ready = false;
    }
}
