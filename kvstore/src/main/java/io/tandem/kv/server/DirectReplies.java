package io.tandem.kv.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOutboundBuffer;
import io.tandem.transport.tcp.DirectSocket;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;

/**
 * One client connection's replies written to its socket by the thread that completes them (reply21), without a task
 * for the connection's I/O thread: before, the execution thread queued each executed batch's replies on the
 * {@link ReplyQueue} and woke the client I/O thread ({@code eventfd} write, ~11 % of the leader's execution thread)
 * only so that it would encode them and submit one write. Here the execution thread holds the replies a batch
 * completes ({@link #hold}), and at the end of the batch ({@link #sendHeld}) encodes them into one buffer and hands it
 * to the kernel with one non-blocking {@code send(2)} ({@link DirectSocket}, transport-tcp's system-call part of its
 * member connections' direct path). A reply completed on another thread that is not the I/O thread (a rejection or a
 * timeout on the node's loop) is sent at once ({@link #sendNow}).
 *
 * <p><b>Why the bytes of two replies never interleave, and leave in order.</b> Every byte written to this connection
 * after it became active goes out under this object's lock, by one of two ways: {@code send(2)} here, or
 * {@code Channel.write} on the event loop ({@link #writeOnLoop}, {@link #writeBacklog}). The direct way is taken only
 * when the {@link #backlog} is empty and Netty's outbound buffer of the channel holds nothing (its pending byte count,
 * a volatile that counts messages written but not flushed, flushed but not yet taken by the kernel, and writes
 * submitted from other threads, is zero): then nothing handed to Netty earlier is still waiting to reach the kernel,
 * and nothing can be handed to it while the lock is held, so the direct bytes follow everything written before and
 * precede everything written after. Whatever the direct way does not take (the rest of a short send when the socket's
 * buffer is full, a reply sent while Netty still holds bytes, a buffer larger than {@link #MAX_SEND_BYTES}) joins the
 * {@link #backlog}, which the event loop writes through Netty, in order, before any reply it writes itself; and while
 * the backlog is not empty every later send joins it too. So the connection's bytes reach the kernel in the order the
 * sends took the lock: per connection, FIFO. (Replies of different requests may be answered in any order by the
 * protocol; a connection's replies held in one batch are sent in the order they were completed.)
 *
 * <p>Not used with TLS (the bytes must pass the {@code SslHandler}), with NIO (no descriptor), or with
 * {@code -Dtandem.tcp.directWrites=false} or {@code -Dtandem.kv.directReplies=false}: then every reply takes the
 * {@link ReplyQueue} as before. A send that fails (the client reset the connection) closes the channel, as Netty
 * closes a channel whose write fails; the replies are lost with the connection either way, and the client retries in
 * its session.
 */
final class DirectReplies {
    /** A reply that can write its own frame. */
    interface Frame {
        /** An estimate of the frame's size in bytes. */
        int sizeHint();

        /** Appends the frame to {@code out}; never throws (a reply that cannot be encoded writes an error frame instead). */
        void writeTo(ByteBuf out);
    }

    /** The endpoint's counts of the direct path, shared by its connections. */
    static final class Counts {
        /** Replies written to the socket by the thread that completed them. */
        final LongAdder replies = new LongAdder();
        /** {@code send(2)} calls made. */
        final LongAdder sends = new LongAdder();
        /** Sends that found the socket's buffer full (the rest went through Netty). */
        final LongAdder shortSends = new LongAdder();
        /** Sends that went to the event loop instead (Netty held bytes, or the backlog was not empty, or too large). */
        final LongAdder deferred = new LongAdder();
    }

    /**
     * {@code -Dtandem.kv.directReplies=false} keeps every reply on the I/O thread ({@code -Dtandem.tcp.directWrites=false}
     * turns this off with the member connections' direct path).
     */
    static final boolean ENABLED = DirectSocket.AVAILABLE && Boolean.parseBoolean(System.getProperty("tandem.kv.directReplies", "true"));
    /**
     * A batch's encoded replies larger than this go through the event loop: a large read's answer is copied into the
     * socket by the I/O thread, not by the execution thread while the next batch waits.
     */
    static final int MAX_SEND_BYTES = Integer.getInteger("tandem.kv.directReplyMaxBytes", 64 * 1024);

    private final Channel channel;
    private final DirectSocket socket;
    private final Counts counts;
    /** Replies held until the end of the executed batch (the batch thread only). */
    private final ArrayList<Frame> held = new ArrayList<>();
    /** Encoded bytes for the event loop to write, in order (guarded by {@code this}). */
    private final ArrayDeque<ByteBuf> backlog = new ArrayDeque<>();
    private final Runnable backlogTask = this::writeBacklog;

    private DirectReplies(Channel channel, DirectSocket socket, Counts counts) {
        this.channel = channel;
        this.socket = socket;
        this.counts = counts;
    }

    /**
     * The direct path of an active connection (on its event loop, before anything was written to it), or null when it
     * has none (disabled, TLS, NIO).
     */
    static DirectReplies open(Channel ch, Counts counts) {
        if (!ENABLED) return null;
        DirectSocket socket = DirectSocket.open(ch);
        return socket == null ? null : new DirectReplies(ch, socket, counts);
    }

    /** Holds {@code reply} until {@link #sendHeld} (the batch thread only); true if it is the first one held. */
    boolean hold(Frame reply) {
        held.add(reply);
        return held.size() == 1;
    }

    /** Sends the held replies in one buffer (the batch thread, at the end of its batch). */
    void sendHeld() {
        int n = held.size();
        if (n == 0) return;
        int hint = 0;
        for (int i = 0; i < n; i++) hint += held.get(i).sizeHint();
        ByteBuf out = channel.alloc().directBuffer(hint);
        for (int i = 0; i < n; i++) held.get(i).writeTo(out);
        held.clear();
        send(out, n);
    }

    /** Sends {@code reply} now (a thread that is neither the batch thread nor the I/O thread). */
    void sendNow(Frame reply) {
        ByteBuf out = channel.alloc().directBuffer(reply.sizeHint());
        reply.writeTo(out);
        send(out, 1);
    }

    private void send(ByteBuf out, int replies) {
        int length = out.readableBytes();
        synchronized (this) {
            if (backlog.isEmpty() && length <= MAX_SEND_BYTES && nettyHoldsNothing()) {
                long sent = socket.send(MemorySegment.ofBuffer(out.internalNioBuffer(out.readerIndex(), length)), length);
                counts.sends.increment();
                if (sent == length) {
                    counts.replies.add(replies);
                    out.release();
                    return;
                }
                if (sent < 0) { // reset or closed: the connection is gone, and so are its replies
                    out.release();
                    channel.close();
                    return;
                }
                counts.shortSends.increment();
                out.skipBytes((int) sent); // the rest goes first through Netty
            } else {
                counts.deferred.increment();
            }
            backlog.add(out);
            if (backlog.size() == 1) {
                try {
                    channel.eventLoop().execute(backlogTask);
                } catch (RejectedExecutionException e) { // the endpoint is closing: nothing will write them
                    releaseBacklog();
                }
            }
        }
    }

    /**
     * Netty's outbound buffer of the channel holds nothing (not written, not flushed, not taken by the kernel yet,
     * nor a write submitted from another thread): its pending byte count is a volatile, safe to read here.
     */
    private boolean nettyHoldsNothing() {
        ChannelOutboundBuffer o = channel.unsafe().outboundBuffer();
        return o != null && o.totalPendingWriteBytes() == 0;
    }

    /** Writes {@code reply} through Netty and flushes, after the backlog (the event loop). */
    synchronized ChannelFuture writeOnLoop(ByteBuf reply) {
        for (ByteBuf b; (b = backlog.poll()) != null; ) channel.write(b);
        return channel.writeAndFlush(reply);
    }

    /** Writes the backlog through Netty (the event loop). */
    private void writeBacklog() {
        synchronized (this) {
            if (backlog.isEmpty()) return; // written ahead of a reply by writeOnLoop
            for (ByteBuf b; (b = backlog.poll()) != null; ) channel.write(b);
        }
        channel.flush();
    }

    private void releaseBacklog() {
        for (ByteBuf b; (b = backlog.poll()) != null; ) b.release();
    }
}
