package io.tandem.transport.tcp;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.tandem.codec.FrameFormat;
import io.tandem.engine.NodeId;
import io.tandem.transport.Endpoint;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The contact path to one known member identity that is not connected as a member: carries
 * {@link io.tandem.engine.ContactMessage}s only (a join request, a view probe and its answer),
 * Derecho's bootstrap socket (derecho.md §5.4). Used when the member link is missing (the peer
 * is not in this node's view) or not connected (the peer is in this node's view, but this node is
 * not in the peer's, so the peer neither dials nor accepts it as a member).
 *
 * <p>Either side may dial it, whatever the ids; a node uses the contact connection opened last in
 * either direction. It dials only when it has something to send and no connection, and redials
 * (with backoff) only while something is still queued; the queue is small and bounded, since
 * contact messages are repeated by their engines. Both ends hold a contact connection in the
 * restricted state: only contact messages are delivered from it ({@link Connection}).
 */
final class ContactLink {
    private static final Logger log = LoggerFactory.getLogger(ContactLink.class);
    /** Contact messages queued while no contact connection is up; more are dropped (and counted). */
    static final int MAX_QUEUED = 64;

    final NodeId peer;
    final Endpoint endpoint;
    private final TcpTransport transport;
    private final ConcurrentLinkedQueue<byte[]> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicReference<Channel> active = new AtomicReference<>();
    private final AtomicBoolean dialing = new AtomicBoolean();
    private final AtomicBoolean drainRequested = new AtomicBoolean();
    private volatile int consecutiveFailures;
    private final LongAdder sendsDropped;

    ContactLink(TcpTransport transport, NodeId peer, Endpoint endpoint, TransportMetrics metrics) {
        this.transport = transport;
        this.peer = peer;
        this.endpoint = endpoint;
        this.sendsDropped = metrics.counter(TransportMetrics.SENDS_DROPPED, "peer", peer.value());
    }

    /** Queues an encoded contact message; dials if no contact connection is up. Never blocks. */
    boolean offer(byte[] body) {
        if (transport.isClosed()) return false;
        if (queued.incrementAndGet() > MAX_QUEUED) {
            queued.decrementAndGet();
            sendsDropped.increment();
            return false;
        }
        queue.offer(body);
        Channel ch = active.get();
        if (ch != null && ch.isActive()) requestDrain(ch);
        else dial();
        return true;
    }

    boolean isConnected() {
        Channel ch = active.get();
        return ch != null && ch.isActive();
    }

    /** {@code ch} completed a contact handshake (dialed by us or by the peer): use it from now on. */
    void activate(Channel ch) {
        active.set(ch);
        consecutiveFailures = 0;
        log.debug("{}: contact connection with {} open ({} -> {})", transport.self(), peer, ch.localAddress(), ch.remoteAddress());
        ch.closeFuture().addListener(f -> {
            if (active.compareAndSet(ch, null) && !queue.isEmpty()) scheduleDial();
        });
        requestDrain(ch);
    }

    private void requestDrain(Channel ch) {
        if (!drainRequested.compareAndSet(false, true)) return;
        try {
            ch.eventLoop().execute(() -> drain(ch));
        } catch (RuntimeException e) { // shutting down
            drainRequested.set(false);
        }
    }

    private void drain(Channel ch) {
        drainRequested.set(false);
        if (!ch.isActive()) return;
        int frames = 0;
        byte[] body;
        while ((body = queue.poll()) != null) {
            queued.decrementAndGet();
            ByteBuf buf = ch.alloc().buffer(FrameFormat.HEADER_BYTES + body.length);
            buf.writeShort(FrameFormat.MAGIC).writeByte(FrameFormat.VERSION).writeByte(FrameFormat.TYPE_MESSAGE).writeInt(body.length).writeBytes(body);
            ch.write(buf);
            frames++;
        }
        if (frames > 0) ch.flush();
    }

    private void dial() {
        Bootstrap b = transport.contactBootstrap(this);
        if (b == null || !dialing.compareAndSet(false, true)) return;
        ChannelFuture connect;
        try {
            connect = b.connect(new InetSocketAddress(endpoint.host(), endpoint.port()));
        } catch (RuntimeException e) { // the event loops are shutting down
            dialing.set(false);
            return;
        }
        connect.addListener((ChannelFuture f) -> {
            if (f.isSuccess()) {
                // The handshake decides; if it fails, the close below asks again while messages wait.
                f.channel().closeFuture().addListener(closed -> {
                    dialing.set(false);
                    if (active.get() == null && !queue.isEmpty()) {
                        consecutiveFailures++;
                        scheduleDial();
                    }
                });
                return;
            }
            dialing.set(false);
            if (++consecutiveFailures == 1 && !transport.isClosed()) {
                log.info("{}: cannot reach {} at {} for contact ({}); retrying while messages wait", transport.self(), peer, endpoint, f.cause().toString());
            }
            scheduleDial();
        });
    }

    /** The dial's handshake completed: a later loss of the connection may dial again. */
    void dialCompleted() {
        dialing.set(false);
    }

    private void scheduleDial() {
        if (transport.isClosed() || queue.isEmpty()) return;
        long min = transport.config().reconnectBackoffMin().toNanos();
        long max = transport.config().reconnectBackoffMax().toNanos();
        long delay = Math.min(max, min << Math.min(20, Math.max(0, consecutiveFailures - 1)));
        try {
            transport.eventLoops().schedule(() -> {
                if (!isConnected() && !queue.isEmpty()) dial();
            }, delay, TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            // shutting down
        }
    }
}
