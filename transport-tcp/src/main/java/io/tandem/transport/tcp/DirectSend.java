package io.tandem.transport.tcp;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import io.tandem.codec.FrameFormat;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

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
 * <p>The system calls (a {@code dup(2)} of the descriptor, a non-blocking {@code send(2)}, closing the duplicate with
 * the channel) are {@link DirectSocket}'s, which says why they are safe.
 */
final class DirectSend {
    /** {@code -Dtandem.tcp.directWrites=false} keeps every write on the event loop (for measurements). */
    static final boolean ENABLED = DirectSocket.ENABLED;

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

    final Channel channel;
    /** The native buffer frames are packed into; touched only by the drain flag's holder. */
    final MemorySegment buffer;
    /** The channel's socket, written with {@code send(2)} on a duplicate of its descriptor. */
    private final DirectSocket socket;
    /**
     * Netty's outbound buffer of the channel was seen empty by the flag's holder and nothing went through it since:
     * the holder may write the socket here. Set only on the event loop, cleared before any write through Netty.
     */
    volatile boolean ready;

    private DirectSend(Channel channel, DirectSocket socket) {
        this.channel = channel;
        this.socket = socket;
        this.buffer = Arena.ofAuto().allocate(BUFFER_BYTES, 64); // freed with this object: no close racing a writer
    }

    /**
     * The direct path of {@code ch} (a handshaken member connection, called on its event loop), or null when it has
     * none: disabled, TLS, not a Unix socket channel, or the descriptor cannot be duplicated. Closes its descriptor
     * when the channel closes.
     */
    static DirectSend open(Channel ch) {
        DirectSocket socket = DirectSocket.open(ch);
        if (socket == null) return null;
        DirectSend d = new DirectSend(ch, socket);
        ch.closeFuture().addListener(f -> d.ready = false);
        return d;
    }

    /**
     * Sends {@code length} bytes of {@link #buffer} from offset 0; never blocks. Returns how many the kernel took
     * (less than {@code length} when the socket's send buffer is full), or -1 if the connection failed or closed.
     */
    long send(long length) {
        return socket.send(buffer, length);
    }
}
