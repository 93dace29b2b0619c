package io.tandem.transport.tcp;

import io.netty.channel.Channel;
import io.netty.channel.unix.UnixChannel;
import io.netty.handler.ssl.SslHandler;
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
 * A Netty channel's socket written with a non-blocking {@code send(2)} from any thread (through the FFM linker), the
 * system-call part of {@link DirectSend} (tcp20), shared with the KV server's client replies (reply21). The caller
 * decides when writing here cannot interleave with bytes Netty holds for the same channel; this class only makes the
 * call safe and never blocking.
 *
 * <p><b>Why a duplicate descriptor.</b> Netty closes its descriptor on its event loop, at any time; a number closed
 * under a concurrent {@code send} could be reused at once by another socket or file. This class writes its own
 * {@code dup(2)} of the descriptor instead, under this object's lock, and closes it under the same lock when the
 * channel closes: the number it writes to is always the connection's. The socket itself lives until both are closed
 * (the dup is closed right after Netty's close, in the channel's close listener).
 *
 * <p>{@code send} uses {@code MSG_DONTWAIT} (never blocks, even on a socket in blocking mode, as io_uring's may be)
 * and {@code MSG_NOSIGNAL} (a reset peer is an error code, not a {@code SIGPIPE}).
 */
public final class DirectSocket {
    private static final Logger log = LoggerFactory.getLogger(DirectSocket.class);

    /** {@code -Dtandem.tcp.directWrites=false} keeps every write on the event loop (for measurements). */
    public static final boolean ENABLED = Boolean.parseBoolean(System.getProperty("tandem.tcp.directWrites", "true"));

    private static final int MSG_DONTWAIT = 0x40;
    private static final int MSG_NOSIGNAL = 0x4000;
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;

    private static final MethodHandle DUP;
    private static final MethodHandle SEND;
    private static final MethodHandle CLOSE;
    private static final VarHandle ERRNO;
    private static final long ERRNO_BYTES;
    /** Enabled, on Linux, and the linker found {@code dup}, {@code send} and {@code close}. */
    public static final boolean AVAILABLE;

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

    private final MemorySegment errnoState;
    /** Our duplicate of the channel's descriptor, or -1 once the channel closed. Guarded by {@code this}. */
    private int fd;

    private DirectSocket(int fd) {
        this.fd = fd;
        this.errnoState = Arena.ofAuto().allocate(ERRNO_BYTES); // freed with this object: no close racing a writer
    }

    /**
     * The direct socket of {@code ch}, or null when it has none: disabled, TLS (its bytes must pass the
     * {@link SslHandler}), not a Unix socket channel (NIO has no descriptor), or the descriptor cannot be duplicated.
     * Closes its descriptor when the channel closes.
     */
    public static DirectSocket open(Channel ch) {
        if (!AVAILABLE || !(ch instanceof UnixChannel unix) || ch.pipeline().get(SslHandler.class) != null) return null;
        int dupFd;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(ERRNO_BYTES);
            dupFd = (int) DUP.invokeExact(state, unix.fd().intValue());
        } catch (Throwable e) {
            return null;
        }
        if (dupFd < 0) return null;
        DirectSocket s = new DirectSocket(dupFd);
        ch.closeFuture().addListener(f -> s.close());
        return s;
    }

    /**
     * Sends the first {@code length} bytes of {@code from} (native memory); never blocks. Returns how many the kernel
     * took (less than {@code length} when the socket's send buffer is full), or -1 if the connection failed or closed.
     */
    public synchronized long send(MemorySegment from, long length) {
        long sent = 0;
        while (sent < length) {
            if (fd < 0) return -1;
            long n;
            try {
                n = (long) SEND.invokeExact(errnoState, fd, from.asSlice(sent), length - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
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
    }
}
