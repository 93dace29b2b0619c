package io.tandem.transport.tcp;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.util.AttributeKey;
import io.tandem.codec.FrameFormat;
import io.tandem.engine.NodeId;
import io.tandem.transport.Endpoint;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.jctools.queues.MpscUnboundedArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything this node keeps about one peer: the bounded outbound queue, the one connection in
 * use, and (if this node is the dialer of the pair) the redial loop with backoff.
 *
 * <p><b>Outbound path.</b> {@link #offer} runs on the sender's thread: it accounts the frame
 * against the watermarks, enqueues it, and asks for a drain. At most one drain runs at a time (the
 * {@code drainRequested} flag is held from scheduling until the drain ends), on the event loop of
 * the connection in use, so the queue has a single consumer and per-peer FIFO holds even when the
 * connection is replaced. A drain packs the queued frames into a few pooled buffers, writes them
 * without flushing and flushes once: many sends between two event-loop turns cost one syscall. It
 * stops when the channel becomes unwritable (the peer is not reading); the queue then fills up to
 * its bound and further sends are dropped until it drains below the low watermark. Memory per peer
 * is thus bounded by the queue watermarks plus Netty's write-buffer high watermark.
 */
final class PeerLink {
    private static final Logger log = LoggerFactory.getLogger(PeerLink.class);

    /** Frames are packed into buffers of this size; a larger frame gets a buffer of its own. */
    private static final int BATCH_BYTES = 64 * 1024;
    /** Upper bound of frames per drain run, so one busy peer cannot starve the others on its loop. */
    private static final int MAX_FRAMES_PER_DRAIN = 4096;

    /** Marks a channel that completed its handshake, to tell a lost connection from a failed attempt. */
    private static final AttributeKey<Boolean> ACTIVATED = AttributeKey.valueOf(PeerLink.class, "activated");

    /**
     * A queued frame: its type and its body (the header is written at drain time), or a whole
     * encoded frame in a reference-counted buffer ({@link #offerEncoded}: one snapshot of a region
     * push shared by every target, written as it is; this queue owns one reference of it), or a body of a
     * {@link SharedBodies} ({@code shared}: {@code headLength} bytes of {@code body}, the body's array; this queue owns
     * one reference of it, released once the bytes are copied out or the frame is dropped).
     */
    private record OutboundFrame(byte type, byte[] body, int headLength, byte[] tail, int tailOffset, int tailLength, ByteBuf encoded,
            SharedBodies.Body shared) {
        OutboundFrame(byte type, byte[] body, ByteBuf encoded) {
            this(type, body, body == null ? 0 : body.length, null, 0, 0, encoded, null);
        }

        /** The frame body's length: the encoded body, then (for a large block) the tail's bytes. */
        int bodyLength() {
            return headLength + tailLength;
        }

        /** Lets go of what this frame holds that is not garbage-collected: its shared body's or encoded buffer's reference. */
        void release() {
            if (shared != null) shared.release();
            if (encoded != null) encoded.release();
        }

        int size() {
            return encoded != null ? encoded.readableBytes() : FrameFormat.HEADER_BYTES + bodyLength();
        }
    }

    final NodeId peer;
    final Endpoint endpoint;
    /** By rule the member with the lower id dials, so a pair never holds two connections. */
    final boolean dialer;

    private final TcpTransport transport;
    private final TcpTransportConfig config;
    private final MpscUnboundedArrayQueue<OutboundFrame> outbox = new MpscUnboundedArrayQueue<>(1024);
    private final AtomicLong queuedMessages = new AtomicLong();
    private final AtomicLong queuedBytes = new AtomicLong();
    private volatile boolean saturated;
    private final AtomicBoolean drainRequested = new AtomicBoolean();
    /**
     * Set once what is queued is to be dropped for good (transport closed, member removed; {@link #discardOutbox}).
     * Dropping polls the queue, so only the drain flag's holder may do it: the queue has one consumer, and two
     * consumers could both take one frame and release its {@link SharedBodies.Body} reference twice, letting its
     * owner rewrite the array while another link's frame still refers to it (wire23).
     */
    private volatile boolean discarding;
    private final Runnable drainTask = this::drain;
    private final AtomicReference<Channel> active = new AtomicReference<>();
    /** The direct-write path of the active connection ({@link DirectSend}), or null. */
    private volatile DirectSend direct;
    /**
     * Bytes a direct send could not hand to the kernel (the socket's buffer was full): the flag's holder passes them
     * to the event loop, whose drain writes them through Netty before anything else. Touched only by the holder.
     */
    private final AtomicReference<ByteBuf> carried = new AtomicReference<>();
    /**
     * The connection {@link #carried} belongs to: the tail of a frame is never written onto another connection. Set
     * before {@code carried}, read after taking it. {@code carried} is atomic only because {@link #discardOutbox}
     * (another thread, at close or removal) may take it too: exactly one of them writes or releases it.
     */
    private Channel carriedFor;
    /** Turns of the direct drain in a row on one sender thread before the rest goes to the event loop. */
    private static final int MAX_DIRECT_ROUNDS = 4;

    private volatile Bootstrap bootstrap;
    /** Set when the member is removed: no more dials, drains or connections. */
    private volatile boolean retired;
    private final AtomicLong dials = new AtomicLong();
    private volatile int consecutiveFailures;

    final LongAdder framesSent;
    final LongAdder bytesSent;
    final LongAdder flushes;
    final LongAdder directFlushes;
    /** Direct sends the socket took only part of (the rest went through Netty): tests. */
    final LongAdder directShortSends = new LongAdder();
    final LongAdder framesReceived;
    final LongAdder bytesReceived;
    final LongAdder sendsDropped;
    final LongAdder sendsFailed;
    final LongAdder reconnects;
    final LongAdder connectionsOpened;

    PeerLink(TcpTransport transport, NodeId peer, Endpoint endpoint, TransportMetrics metrics) {
        this.transport = transport;
        this.config = transport.config();
        this.peer = peer;
        this.endpoint = endpoint;
        this.dialer = transport.self().compareTo(peer) < 0;
        String p = peer.value();
        framesSent = metrics.counter(TransportMetrics.FRAMES_SENT, "peer", p);
        bytesSent = metrics.counter(TransportMetrics.BYTES_SENT, "peer", p);
        flushes = metrics.counter(TransportMetrics.FLUSHES, "peer", p);
        directFlushes = metrics.counter(TransportMetrics.FLUSHES_DIRECT, "peer", p);
        framesReceived = metrics.counter(TransportMetrics.FRAMES_RECEIVED, "peer", p);
        bytesReceived = metrics.counter(TransportMetrics.BYTES_RECEIVED, "peer", p);
        sendsDropped = metrics.counter(TransportMetrics.SENDS_DROPPED, "peer", p);
        sendsFailed = metrics.counter(TransportMetrics.SENDS_FAILED, "peer", p);
        reconnects = metrics.counter(TransportMetrics.RECONNECTS, "peer", p);
        connectionsOpened = metrics.counter(TransportMetrics.CONNECTIONS_OPENED, "peer", p);
        metrics.gauge(TransportMetrics.OUTBOX_MESSAGES, queuedMessages, AtomicLong::get, "peer", p);
        metrics.gauge(TransportMetrics.OUTBOX_BYTES, queuedBytes, AtomicLong::get, "peer", p);
        metrics.gauge(TransportMetrics.PEER_CONNECTED, active, a -> a.get() == null ? 0 : 1, "peer", p);
    }

    long queuedMessages() {
        return queuedMessages.get();
    }

    long queuedBytes() {
        return queuedBytes.get();
    }

    /** The connection in use, or null (tests). */
    Channel channel() {
        return active.get();
    }

    boolean isConnected() {
        Channel ch = active.get();
        return ch != null && ch.isActive();
    }

    // ---------------------------------------------------------------- outbound

    /**
     * Queues a frame for this peer; never blocks. Returns false, and counts a dropped send, when
     * the queue is at its bound or has not yet drained below the low watermark since it was.
     * Concurrent senders may overshoot the bound by at most one frame each.
     */
    boolean offer(byte type, byte[] body) {
        return enqueue(new OutboundFrame(type, body, null));
    }

    /**
     * Queues a frame whose body is {@code head} followed by {@code tailLength} bytes of {@code tail} from
     * {@code tailOffset}, read at drain time straight into the send buffer (the caller does not change them
     * once queued; see {@link io.tandem.codec.TrailingBytes}).
     */
    boolean offer(byte type, byte[] head, byte[] tail, int tailOffset, int tailLength) {
        return enqueue(new OutboundFrame(type, head, head.length, tail, tailOffset, tailLength, null, null));
    }

    /**
     * Queues a frame whose body is a {@link SharedBodies.Body}'s bytes, taking a reference of it (the calling thread
     * is the body's owner, holding its own): released once a drain has copied the bytes, or now if the frame is not
     * queued.
     */
    boolean offer(byte type, SharedBodies.Body body) {
        body.retain();
        boolean queued = false;
        try {
            queued = enqueue(new OutboundFrame(type, body.array(), body.length(), null, 0, 0, null, body));
            return queued;
        } finally {
            if (!queued) body.release();
        }
    }

    /**
     * Queues a whole encoded frame (header and body) that this link now owns one reference of: it
     * is released once written, dropped or discarded, so the caller passes a
     * {@code retainedDuplicate()} of a buffer it shares between targets. The frame goes out as it
     * is, without a copy into a batch buffer (the sender's copies of a push: one, not one per peer).
     */
    boolean offerEncoded(ByteBuf frame) {
        boolean queued = false;
        try {
            queued = enqueue(new OutboundFrame((byte) 0, null, frame));
            return queued;
        } finally {
            if (!queued) frame.release();
        }
    }

    private boolean enqueue(OutboundFrame frame) {
        long frameBytes = frame.size();
        if (saturated) {
            if (queuedMessages.get() > config.outboundLowWaterMessages() || queuedBytes.get() > config.outboundLowWaterBytes()) {
                sendsDropped.increment();
                return false;
            }
            saturated = false;
            log.info("{}: outbound queue to {} drained to {} messages / {} bytes; sending again", transport.self(), peer, queuedMessages.get(), queuedBytes.get());
        }
        if (queuedMessages.get() >= config.outboundHighWaterMessages() || queuedBytes.get() + frameBytes > config.outboundHighWaterBytes()) {
            saturated = true;
            sendsDropped.increment();
            log.warn("{}: outbound queue to {} is full ({} messages / {} bytes, connected: {}); dropping sends to {} until it drains below {} messages / {} bytes",
                    transport.self(), peer, queuedMessages.get(), queuedBytes.get(), isConnected(), peer,
                    config.outboundLowWaterMessages(), config.outboundLowWaterBytes());
            return false;
        }
        queuedMessages.incrementAndGet();
        queuedBytes.addAndGet(frameBytes);
        outbox.offer(frame);
        transport.drainSoon(this); // now, or at the end of the sending thread's batch (Transport#startBatch)
        return true;
    }

    /**
     * Schedules a drain on the loop of the connection in use, unless one is already scheduled or
     * running, or the connection cannot take writes now (activation and writability changes ask
     * again). The drain clears the flag only when it ends and then re-checks, so no frame strands.
     */
    void requestDrain() {
        if (retired) return;
        Channel ch = active.get();
        if (ch == null || !ch.isWritable()) return;
        if (!drainRequested.compareAndSet(false, true)) return;
        DirectSend d = direct;
        if (d != null && d.ready && d.channel == ch && !ch.eventLoop().inEventLoop()) {
            drainDirectly(d, ch);
            return;
        }
        runOn(ch.eventLoop());
    }

    /**
     * The drain on the sending thread ({@link DirectSend}): holding the flag, writes what is queued straight to the
     * socket, and hands the flag to the event loop only for what this path does not take (a shared or large frame,
     * bytes the socket could not take now). Per-peer FIFO holds: one holder at a time takes frames from the queue's
     * head, and bytes go to the kernel in the order they were taken.
     */
    private void drainDirectly(DirectSend d, Channel ch) {
        for (int round = 0; ; round++) {
            if (!sendDirect(d, ch) || round == MAX_DIRECT_ROUNDS) {
                runOn(ch.eventLoop()); // still holding the flag: the event loop continues where this stopped
                return;
            }
            letGo();
            // The same re-check as finishDrain: a frame queued after our last poll whose sender lost the flag to us.
            if (outbox.isEmpty() || retired || active.get() != ch || !d.ready) {
                if (!outbox.isEmpty()) requestDrain();
                return;
            }
            if (!drainRequested.compareAndSet(false, true)) return;
        }
    }

    /**
     * Packs queued frames into the connection's native buffer and sends them, until the queue is empty (true) or a
     * frame this path does not take is at the head, or the socket took less than it was given (false: the caller
     * hands the flag to the event loop, with the unsent bytes in {@link #carried}). Called holding the flag.
     */
    private boolean sendDirect(DirectSend d, Channel ch) {
        java.lang.foreign.MemorySegment buf = d.buffer;
        int frames = 0;
        long bytes = 0;
        boolean done = true;
        try {
            while (frames < MAX_FRAMES_PER_DRAIN) {
                OutboundFrame f = outbox.peek();
                if (f == null) break;
                long pos = 0;
                while (f != null && f.encoded() == null && f.tail() == null && f.size() <= DirectSend.MAX_FRAME_BYTES && pos + f.size() <= DirectSend.BUFFER_BYTES
                        && frames < MAX_FRAMES_PER_DRAIN) {
                    outbox.poll();
                    byte[] body = f.body();
                    buf.set(DirectSend.SHORT_BE, pos, FrameFormat.MAGIC);
                    buf.set(java.lang.foreign.ValueLayout.JAVA_BYTE, pos + 2, FrameFormat.VERSION);
                    buf.set(java.lang.foreign.ValueLayout.JAVA_BYTE, pos + 3, f.type());
                    int length = f.headLength();
                    buf.set(DirectSend.INT_BE, pos + 4, length);
                    java.lang.foreign.MemorySegment.copy(body, 0, buf, java.lang.foreign.ValueLayout.JAVA_BYTE, pos + FrameFormat.HEADER_BYTES, length);
                    if (f.shared() != null) f.shared().release(); // copied: the owner may reuse the array once every holder is done
                    pos += FrameFormat.HEADER_BYTES + length;
                    frames++;
                    f = outbox.peek();
                }
                if (pos == 0) { // a shared or large frame at the head: the event loop's drain writes it
                    done = false;
                    break;
                }
                bytes += pos;
                long sent = Math.max(0, d.send(pos));
                directFlushes.increment();
                if (sent < pos) {
                    directShortSends.increment();
                    // The socket's buffer is full (or the connection failed): the rest goes through Netty, in order,
                    // before anything else, and this path stays off until Netty's buffer is seen empty again.
                    d.ready = false;
                    ByteBuf rest = ch.alloc().directBuffer((int) (pos - sent));
                    rest.writeBytes(buf.asSlice(sent, pos - sent).asByteBuffer());
                    carriedFor = ch;
                    carried.set(rest);
                    done = false;
                    break;
                }
            }
        } finally {
            if (frames > 0) {
                queuedMessages.addAndGet(-frames);
                queuedBytes.addAndGet(-bytes);
                framesSent.add(frames);
                bytesSent.add(bytes);
                flushes.increment();
            }
        }
        return done && (frames < MAX_FRAMES_PER_DRAIN || outbox.isEmpty());
    }

    private void runOn(EventLoop loop) {
        try {
            loop.execute(drainTask);
        } catch (RuntimeException e) { // RejectedExecutionException: the transport is shutting down
            letGo();
        }
    }

    private void drain() {
        Channel ch = active.get();
        ByteBuf stale = carried.get();
        if (stale != null && (carriedFor != ch || !ch.isActive()) && carried.compareAndSet(stale, null)) {
            stale.release(); // its connection is gone: so is the frame it ends (as with Netty's buffer of a closed channel)
        }
        if (ch == null || !ch.isActive()) {
            finishDrain();
            return;
        }
        EventLoop loop = ch.eventLoop();
        if (!loop.inEventLoop()) { // the connection was replaced by one on another loop: follow it
            runOn(loop);
            return;
        }
        int frames = 0;
        long bytes = 0;
        ByteBuf batch = null;
        boolean wrote = false;
        ByteBuf rest = carried.getAndSet(null);
        if (rest != null) { // bytes a direct send left on this connection: they precede everything still queued
            ch.write(rest);
            wrote = true;
        } else {
            DirectSend d = direct;
            if (d != null && d.channel == ch && !d.ready && d.channel.isActive() && outboundEmpty(ch)) {
                d.ready = true; // Netty holds nothing unwritten of this channel: the flag's holder may write the socket
            }
            if (d != null && d.ready && d.channel == ch) {
                if (sendDirect(d, ch)) {
                    finishDrain();
                    return;
                }
                rest = carried.getAndSet(null); // the socket took less than it was given, or a frame this path does not take is next
                if (rest != null) {
                    ch.write(rest);
                    wrote = true;
                }
            }
        }
        DirectSend d = direct;
        try {
            OutboundFrame f;
            while (frames < MAX_FRAMES_PER_DRAIN && ch.isWritable() && (f = outbox.poll()) != null) {
                if (d != null) d.ready = false; // through Netty from here: no direct write until its buffer is empty again
                int size = f.size();
                if (f.encoded() != null) {
                    // A shared, already encoded frame: the batch so far goes first (FIFO), then the frame as it is.
                    if (batch != null) {
                        ch.write(batch);
                        batch = null;
                    }
                    ch.write(f.encoded()); // the channel releases this reference, sent or not
                    frames++;
                    bytes += size;
                    continue;
                }
                if (batch != null && batch.writableBytes() < size) {
                    ch.write(batch);
                    batch = null;
                }
                if (batch == null) {
                    // Sized by what is queued (this frame included), so a lone small message takes a small buffer.
                    long queued = queuedBytes.get() - bytes; // the frames of this drain so far are subtracted once, below
                    batch = ch.alloc().directBuffer((int) Math.max(size, Math.min(BATCH_BYTES, queued)));
                }
                batch.writeShort(FrameFormat.MAGIC).writeByte(FrameFormat.VERSION).writeByte(f.type()).writeInt(f.bodyLength()).writeBytes(f.body(), 0, f.headLength());
                if (f.shared() != null) f.shared().release(); // copied into the batch buffer
                if (f.tail() != null) batch.writeBytes(f.tail(), f.tailOffset(), f.tailLength()); // the one copy of a large block
                frames++;
                bytes += size;
            }
            if (batch != null) {
                ch.write(batch); // from here on the channel owns the buffer and releases it, sent or not
                batch = null;
            }
        } finally {
            if (batch != null) batch.release();
            // Once per drain, not per frame: the sending threads increment these per frame, so a decrement per
            // frame bounced their cache line between the sender and the I/O thread for every frame. Until this
            // point the counts are too high by this drain's frames, which can only make a sender see the queue
            // fuller than it is (a drop at the bound a drain earlier), never let it past the bound.
            if (frames > 0) {
                queuedMessages.addAndGet(-frames);
                queuedBytes.addAndGet(-bytes);
            }
        }
        if (frames > 0) {
            framesSent.add(frames);
            bytesSent.add(bytes);
            flushes.increment();
        }
        if (frames > 0 || wrote) ch.flush();
        if (frames == MAX_FRAMES_PER_DRAIN && ch.isWritable() && !outbox.isEmpty()) {
            runOn(loop); // still holding the flag: continue after the other work queued on this loop
            return;
        }
        finishDrain();
    }

    /** Whether Netty holds no bytes of {@code ch} that have not reached the kernel (on its event loop only). */
    private static boolean outboundEmpty(Channel ch) {
        io.netty.channel.ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
        return out != null && out.isEmpty();
    }

    private void finishDrain() {
        letGo();
        if (!outbox.isEmpty()) requestDrain();
    }

    /**
     * Lets go of the drain flag; if the queue is to be dropped meanwhile ({@link #discarding}), takes the flag back
     * and drops it. Either this read of {@code discarding} sees it set, or {@link #discardOutbox}'s attempt on the
     * flag (after its write of {@code discarding}) sees the flag free: both are volatile, so the queue is dropped by
     * one of them, once.
     */
    private void letGo() {
        drainRequested.set(false);
        if (discarding && drainRequested.compareAndSet(false, true)) dropQueued();
    }

    /**
     * Drops everything queued (the transport is closed or the member removed), now if no drain holds the flag, else
     * by the holder when it lets go ({@link #letGo}). A send racing this may still queue a frame that no drain takes
     * any more: its shared body then stays out of reuse, which costs memory, never another message's bytes.
     */
    void discardOutbox() {
        discarding = true;
        ByteBuf rest = carried.getAndSet(null);
        if (rest != null) rest.release();
        if (drainRequested.compareAndSet(false, true)) dropQueued();
    }

    /** Holding the drain flag, which is never let go again (no drain runs after this): releases every queued frame. */
    private void dropQueued() {
        OutboundFrame f;
        while ((f = outbox.poll()) != null) f.release(); // shared bodies and encoded buffers; the other frames hold only heap arrays
        queuedMessages.set(0);
        queuedBytes.set(0);
    }

    // ---------------------------------------------------------------- connection

    /** Makes {@code ch} (handshake complete, on its event loop) the connection to this peer. */
    void activate(Channel ch, boolean dialed) {
        ch.attr(ACTIVATED).set(Boolean.TRUE);
        direct = DirectSend.ENABLED ? DirectSend.open(ch) : null; // not ready until a drain on this loop sees Netty's buffer empty
        Channel previous = active.getAndSet(ch);
        consecutiveFailures = 0;
        connectionsOpened.increment();
        if (previous != null && previous != ch) {
            log.info("{}: {} reconnected; closing its previous connection {}", transport.self(), peer, previous);
            previous.close();
        }
        log.info("{}: connected to {} ({} {} -> {})", transport.self(), peer, dialed ? "dialed" : "accepted", ch.localAddress(), ch.remoteAddress());
        ch.closeFuture().addListener(f -> {
            if (active.compareAndSet(ch, null) && !transport.isClosed() && !retired) {
                log.info("{}: lost connection to {}{}", transport.self(), peer, dialer ? "; redialing" : "; waiting for it to redial");
            }
            // Region writes in flight on this connection may be lost: fences not answered yet never will be.
            transport.failPendingPushes(peer);
        });
        if (retired) ch.close(); // removed while the handshake completed
        requestDrain();
    }

    /** Starts dialing (dialer side only). */
    void startDialing(Bootstrap bootstrap) {
        this.bootstrap = bootstrap;
        dial();
    }

    /** The member was removed: close its connection, stop redialing, drop what is queued for it. */
    void retire() {
        retired = true;
        Channel ch = active.getAndSet(null);
        if (ch != null) ch.close();
        discardOutbox();
    }

    boolean isRetired() {
        return retired;
    }

    private void dial() {
        if (transport.isClosed() || retired) return;
        if (dials.getAndIncrement() > 0) reconnects.increment();
        ChannelFuture connect;
        try {
            connect = bootstrap.connect(new InetSocketAddress(endpoint.host(), endpoint.port()));
        } catch (RuntimeException e) { // the event loops are shutting down
            return;
        }
        connect.addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                int failures = ++consecutiveFailures;
                if (!transport.isClosed()) {
                    if (failures == 1) log.info("{}: cannot reach {} at {} ({}); retrying with backoff", transport.self(), peer, endpoint, f.cause().toString());
                    else log.debug("{}: attempt {} to reach {} at {} failed: {}", transport.self(), failures, peer, endpoint, f.cause().toString());
                }
                scheduleRedial();
                return;
            }
            // One redial per dialed connection, whether it was refused at the handshake or lost later.
            f.channel().closeFuture().addListener(closed -> {
                if (!Boolean.TRUE.equals(f.channel().attr(ACTIVATED).get())) consecutiveFailures++;
                scheduleRedial();
            });
        });
    }

    private void scheduleRedial() {
        if (transport.isClosed() || retired) return;
        long delay = backoffNanos(consecutiveFailures);
        try {
            transport.eventLoops().schedule(this::dial, delay, TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            // shutting down
        }
    }

    /** Exponential backoff from min doubling to max, jittered uniformly in [delay/2, delay]. */
    private long backoffNanos(int failures) {
        long min = config.reconnectBackoffMin().toNanos();
        long max = config.reconnectBackoffMax().toNanos();
        int shift = Math.max(0, Math.min(failures - 1, 30));
        long delay = min << shift;
        if (delay <= 0 || delay > max || (delay >> shift) != min) delay = max;
        long half = delay / 2;
        return half + ThreadLocalRandom.current().nextLong(delay - half + 1);
    }
}
