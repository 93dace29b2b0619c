package io.tandem.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;
import io.tandem.engine.NodeId;
import io.tandem.transport.tcp.tls.CertificateIdentity;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import io.tandem.codec.CodecException;
import io.tandem.codec.FrameFormat;
import io.tandem.codec.FrameFormat.MalformedFrameException;
import io.tandem.codec.FrameFormat.OversizedFrameException;
import io.tandem.engine.ProtocolMessage;
import io.tandem.transport.RegionTable;
import io.tandem.transport.TransportListener;
import io.tandem.transport.tcp.Handshake.InvalidHandshakeException;
import io.tandem.transport.tcp.Handshake.Rejection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inbound side of one TCP connection: frame validation, the handshake, and dispatch of
 * messages and region writes to the listener. One instance per channel, used only on its loop.
 *
 * <p>Every header is validated ({@link FrameFormat#readHeader}) as soon as its 8 bytes are here,
 * before the body is waited for or copied, so garbage or an oversized length costs at most 8 bytes
 * of buffering. Until the handshake completes only a small handshake frame is accepted. Anything
 * wrong closes the connection, increments a counter and logs one line; nothing malformed reaches
 * the listener.
 */
final class Connection extends ByteToMessageDecoder {
    private static final Logger log = LoggerFactory.getLogger(Connection.class);
    /** Message bodies up to this size are copied into a reused array; larger ones get their own. */
    private static final int SCRATCH_MAX_BYTES = 64 * 1024;
    /** Set by the transport on accepted connections: stops counting this one as waiting for its handshake. */
    static final AttributeKey<Runnable> RELEASE_PENDING = AttributeKey.valueOf(Connection.class, "releasePending");

    /** A contact connection that carries nothing for this long (either way) is closed. */
    static final int CONTACT_IDLE_SECONDS = 30;

    /** {@code CONTACT}: a known identity that is not connected as a member; only contact messages pass. */
    private enum State { AWAIT_HANDSHAKE, OPEN, CONTACT, CLOSED }

    private final TcpTransport transport;
    /** The peer we dialed as a member, or null (an accepted or a contact connection). */
    private final PeerLink dialed;
    /** The peer we dialed for contact, or null. */
    private final ContactLink dialedContact;
    private PeerLink link;
    /** The contact path this connection serves, in state {@code CONTACT}. */
    private ContactLink contact;
    private State state = State.AWAIT_HANDSHAKE;
    private ScheduledFuture<?> handshakeTimer;
    private final ByteBuffer header = ByteBuffer.allocate(FrameFormat.HEADER_BYTES);
    private byte[] scratch = new byte[256];
    private boolean regionRejectionLogged;

    Connection(TcpTransport transport, PeerLink dialed, ContactLink dialedContact) {
        this.transport = transport;
        this.dialed = dialed;
        this.dialedContact = dialedContact;
    }

    /** The member we dialed (as a member or for contact), or null on an accepted connection. */
    private NodeId dialedPeer() {
        return dialed != null ? dialed.peer : dialedContact != null ? dialedContact.peer : null;
    }

    private io.tandem.transport.Endpoint dialedEndpoint() {
        return dialed != null ? dialed.endpoint : dialedContact != null ? dialedContact.endpoint : null;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (dialedPeer() != null) {
            Handshake hello = new Handshake(transport.clusterName(), transport.self(), dialedPeer(), dialedContact != null);
            ctx.writeAndFlush(frame(ctx, FrameFormat.TYPE_HANDSHAKE, hello.encode()));
        }
        long timeout = transport.config().handshakeTimeout().toNanos();
        handshakeTimer = ctx.executor().schedule(() -> {
            if (state == State.AWAIT_HANDSHAKE) reject(ctx, Rejection.TIMEOUT, "no handshake within " + transport.config().handshakeTimeout());
        }, timeout, TimeUnit.NANOSECONDS);
        super.channelActive(ctx);
    }

    /** The peer read enough for Netty's write buffer to fall below its low watermark: resume the queue. */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (link != null && state == State.OPEN && ctx.channel().isWritable()) link.requestDrain();
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancelHandshakeTimer();
        super.channelInactive(ctx);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (streamRegion != null && !continueStream(in)) return; // the read ended inside a streamed region write: all used
        if (bigBody != null && !continueBigMessage(ctx, in)) return; // the read ended inside a large message: all used
        if (pendingType >= 0 && !continuePending(ctx, in)) return; // the read ended inside a carried frame: all used
        while (state != State.CLOSED && in.readableBytes() >= FrameFormat.HEADER_BYTES) {
            FrameFormat.Header h;
            header.clear();
            in.getBytes(in.readerIndex(), header);
            header.flip();
            try {
                h = FrameFormat.readHeader(header, transport.config().maxFrameBytes());
            } catch (OversizedFrameException e) {
                closeOnBadFrame(ctx, TransportMetrics.FRAMES_OVERSIZED, e.getMessage());
                break;
            } catch (MalformedFrameException e) {
                closeOnBadFrame(ctx, TransportMetrics.FRAMES_MALFORMED, e.getMessage());
                break;
            }
            if (state == State.AWAIT_HANDSHAKE) {
                if (h.type() != FrameFormat.TYPE_HANDSHAKE) {
                    reject(ctx, Rejection.NOT_A_HANDSHAKE, "first frame has type " + h.type() + ", expected a handshake");
                    break;
                }
                if (h.length() > Handshake.MAX_BODY_BYTES) {
                    reject(ctx, Rejection.MALFORMED, "handshake of " + h.length() + " bytes exceeds " + Handshake.MAX_BODY_BYTES);
                    break;
                }
            } else if (h.type() == FrameFormat.TYPE_HANDSHAKE) {
                closeOnBadFrame(ctx, TransportMetrics.FRAMES_MALFORMED, "a second handshake on an open connection");
                break;
            }
            if (in.readableBytes() < FrameFormat.HEADER_BYTES + h.length()) {
                // A large region write is applied piece by piece as its data arrive (see startStream); anything else waits for its body.
                if (h.type() == FrameFormat.TYPE_REGION_WRITE && state == State.OPEN && startStream(in, h.length())) {
                    if (!continueStream(in)) return;
                    continue;
                }
                if (h.type() == FrameFormat.TYPE_MESSAGE && state == State.OPEN && h.length() > SCRATCH_MAX_BYTES) {
                    startBigMessage(in, h.length());
                    if (!continueBigMessage(ctx, in)) return;
                    continue;
                }
                if (state == State.OPEN && h.length() <= SCRATCH_MAX_BYTES && CARRY_PARTIAL_FRAMES) {
                    startPending(in, h);
                    return; // all of this read is used: Netty keeps no cumulation (see startPending)
                }
                break;
            }
            in.skipBytes(FrameFormat.HEADER_BYTES);
            int end = in.readerIndex() + h.length();
            try {
                dispatch(ctx, in, h);
            } finally {
                in.readerIndex(end);
            }
        }
        if (state == State.CLOSED) in.skipBytes(in.readableBytes());
    }

    /** Handles one whole, validated frame whose body starts at the reader index of {@code in}. */
    private void dispatch(ChannelHandlerContext ctx, ByteBuf in, FrameFormat.Header h) {
        if (state == State.CONTACT) {
            onContactFrame(ctx, in, h);
            return;
        }
        switch (h.type()) {
            case FrameFormat.TYPE_HANDSHAKE -> onHandshake(ctx, in, h.length());
            case FrameFormat.TYPE_MESSAGE -> onMessage(ctx, in, h.length());
            case FrameFormat.TYPE_REGION_WRITE -> onRegionWrite(ctx, in, h.length());
            case FrameFormat.TYPE_REGION_FENCE -> onRegionFence(ctx, in, h.length());
            case FrameFormat.TYPE_REGION_ACK -> onRegionAck(ctx, in, h.length());
            default -> closeOnBadFrame(ctx, TransportMetrics.FRAMES_MALFORMED, "unknown frame type " + h.type());
        }
    }

    /**
     * Whether a frame of at most {@link #SCRATCH_MAX_BYTES} that a read ends inside is carried over in
     * {@link #pending} (true, the default) or left to Netty's cumulation buffer (the behaviour before
     * session tcp19; {@code -Dtandem.tcp.carryPartialFrames=false}, for measuring the difference).
     */
    static final boolean CARRY_PARTIAL_FRAMES = Boolean.parseBoolean(System.getProperty("tandem.tcp.carryPartialFrames", "true"));

    /** The body of the carried frame ({@link #startPending}); its type, or -1 when none is carried. */
    private io.netty.buffer.ByteBuf pending;
    private int pendingType = -1;
    private int pendingLength;

    /**
     * Carries the frame at the reader index, whose header is validated and whose body is not all here,
     * over to the next read: its body bytes so far go into {@link #pending} (a heap buffer of this
     * connection, reused), and all of {@code in} is consumed.
     *
     * <p>Why: a stream of frames of a few KiB (8 KiB messages, pushes of a few ring slots) ends nearly
     * every socket read inside a frame. Left in {@code in}, Netty's cumulator then copies the whole next
     * read (up to the read size) behind the leftover before the frame can be decoded: a second copy of
     * nearly every received byte. Carried, only the straddling frame's bytes are copied (at most its own
     * length, and a message body read from a direct buffer is copied into the codec's array anyway; from
     * {@link #pending} the codec reads the heap array directly), and Netty keeps no cumulation at all.
     *
     * <p>Why it is safe: the header was validated exactly as before ({@link FrameFormat#readHeader}, the
     * handshake rules), the body is bounded by {@link #SCRATCH_MAX_BYTES} (the cumulation buffer held
     * the same bytes before), and the completed frame goes through the same {@link #dispatch} as a frame
     * read whole, on an open member connection only, in stream order: nothing later in the stream is
     * looked at before it.
     */
    private void startPending(ByteBuf in, FrameFormat.Header h) {
        in.skipBytes(FrameFormat.HEADER_BYTES);
        int length = h.length();
        if (pending == null || pending.capacity() < length) {
            if (pending != null) pending.release();
            pending = io.netty.buffer.Unpooled.buffer(Math.max(length, 1024));
        }
        pending.clear();
        pendingType = h.type();
        pendingLength = length;
        pending.writeBytes(in, in.readableBytes());
    }

    /** Tops up the carried frame; true once it is complete and handled ({@code in} may hold more frames), false if {@code in} is used up. */
    private boolean continuePending(ChannelHandlerContext ctx, ByteBuf in) {
        int take = Math.min(in.readableBytes(), pendingLength - pending.writerIndex());
        pending.writeBytes(in, take);
        if (pending.writerIndex() < pendingLength) return false;
        FrameFormat.Header h = new FrameFormat.Header((byte) pendingType, pendingLength);
        pendingType = -1;
        if (state == State.CLOSED) return true;
        try {
            dispatch(ctx, pending, h);
        } finally {
            pending.clear();
        }
        return true;
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (pending != null) {
            pending.release();
            pending = null;
        }
        pendingType = -1;
    }

    private void onHandshake(ChannelHandlerContext ctx, ByteBuf in, int length) {
        Handshake h;
        try {
            h = Handshake.decode(in, length);
        } catch (InvalidHandshakeException e) {
            reject(ctx, e.reason, e.getMessage());
            return;
        }
        if (!h.cluster().equals(transport.clusterName())) {
            reject(ctx, Rejection.CLUSTER, h.from() + " belongs to cluster '" + h.cluster() + "', this is cluster '" + transport.clusterName() + "'");
            return;
        }
        if (!h.to().equals(transport.self())) {
            reject(ctx, Rejection.WRONG_TARGET, h.from() + " meant to reach " + h.to() + " but reached " + transport.self() + " (check the member endpoints)");
            return;
        }
        if (!certificateNames(ctx, dialedPeer() == null ? h.from() : dialedPeer())) return;
        if (dialedContact != null) {
            if (!h.contact() || !h.from().equals(dialedContact.peer)) {
                reject(ctx, h.contact() ? Rejection.UNEXPECTED_MEMBER : Rejection.MALFORMED, "dialed " + dialedContact.peer + " at " + dialedContact.endpoint
                        + " for contact but " + h.from() + " answered with a " + (h.contact() ? "contact" : "member") + " handshake");
                return;
            }
            dialedContact.dialCompleted();
            openContact(ctx, dialedContact);
            return;
        }
        if (h.contact()) {
            if (dialed != null) {
                reject(ctx, Rejection.MALFORMED, "dialed " + dialed.peer + " as a member but it answered with a contact handshake");
                return;
            }
            // A known identity outside this node's view (or not yet connected) may bring contact
            // messages; the engine decides what they change. A stranger may not even do that.
            if (!transport.isKnown(h.from())) {
                reject(ctx, Rejection.UNKNOWN_MEMBER, h.from() + " asked for contact but is not a known member of cluster '" + transport.clusterName() + "'");
                return;
            }
            ctx.writeAndFlush(frame(ctx, FrameFormat.TYPE_HANDSHAKE, new Handshake(transport.clusterName(), transport.self(), h.from(), true).encode()));
            openContact(ctx, transport.contactLink(h.from()));
            return;
        }
        if (dialed == null) {
            PeerLink l = transport.link(h.from());
            if (l == null) {
                reject(ctx, Rejection.UNKNOWN_MEMBER, h.from() + " is not a member of cluster '" + transport.clusterName() + "' " + transport.members());
                return;
            }
            if (l.dialer) {
                reject(ctx, Rejection.WRONG_DIRECTION, h.from() + " dialed " + transport.self() + ", but the member with the lower id dials (" + transport.self() + " dials " + h.from() + ")");
                return;
            }
            Handshake reply = new Handshake(transport.clusterName(), transport.self(), h.from());
            ctx.writeAndFlush(frame(ctx, FrameFormat.TYPE_HANDSHAKE, reply.encode()));
            open(ctx, l);
        } else {
            if (!h.from().equals(dialed.peer)) {
                reject(ctx, Rejection.UNEXPECTED_MEMBER, "dialed " + dialed.peer + " at " + dialed.endpoint + " but " + h.from() + " answered (check the member endpoints)");
                return;
            }
            open(ctx, dialed);
        }
    }

    /**
     * With TLS on, the peer's certificate must name {@code member}: the id an acceptor's peer claims,
     * or the one a dialer meant to reach. This binds the Raft-level identity (who votes, who appends)
     * to a key only that member holds, so a peer cannot speak as another member or take over its link.
     */
    private boolean certificateNames(ChannelHandlerContext ctx, NodeId member) {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        if (ssl == null) return true; // plaintext: nothing to check against
        X509Certificate cert;
        try {
            Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
            cert = (X509Certificate) chain[0];
        } catch (SSLPeerUnverifiedException | RuntimeException e) {
            reject(ctx, Rejection.IDENTITY, "the peer presented no verified certificate");
            return false;
        }
        CertificateIdentity id = CertificateIdentity.of(cert);
        if (id.member().isPresent() && id.member().get().equals(member)) return true;
        reject(ctx, Rejection.IDENTITY, dialedPeer() == null
                ? "the peer claims to be member " + member + " but its certificate is for " + id.describe()
                : "dialed " + member + " at " + dialedEndpoint() + " but the certificate presented is for " + id.describe());
        return false;
    }

    /** A failed TLS handshake: say why in one line (the usual causes are the peer's configuration, not a bug). */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof io.netty.handler.timeout.IdleStateEvent && state == State.CONTACT) {
            state = State.CLOSED;
            log.debug("{}: closing the idle contact connection with {}", transport.self(), contact.peer);
            ctx.close();
            return;
        }
        if (evt instanceof SslHandshakeCompletionEvent done && !done.isSuccess()) {
            reject(ctx, Rejection.TLS, "TLS handshake failed: " + describeTlsFailure(done.cause()), tlsKind(done.cause()));
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    private static String describeTlsFailure(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof NotSslRecordException) return "the peer does not speak TLS (plaintext to a TLS port: is TLS on at every member?)";
            if (t instanceof java.nio.channels.ClosedChannelException) return "the peer closed the connection during the TLS handshake";
        }
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String m = String.valueOf(root.getMessage());
        String hint = "";
        if (m.contains("Empty client certificate chain") || m.contains("certificate_required")) hint = " (the peer presented no certificate)";
        else if (m.contains("PKIX") || m.contains("unable to find valid certification path") || m.contains("unknown_ca")) hint = " (a certificate not issued by this cluster's CA)";
        else if (m.contains("expired") || m.contains("NotAfter") || m.contains("certificate_expired")) hint = " (an expired certificate)";
        else if (cause instanceof io.netty.handler.ssl.SslHandshakeTimeoutException) hint = " (no TLS handshake within the handshake timeout)";
        return root.getClass().getSimpleName() + ": " + m + hint;
    }

    private static String tlsKind(Throwable cause) {
        for (Throwable t = cause; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof NotSslRecordException) return "-plaintext";
            if (t instanceof io.netty.handler.ssl.SslHandshakeTimeoutException) return "-timeout";
            if (t instanceof java.nio.channels.ClosedChannelException) return "-closed";
            if (t instanceof java.security.cert.CertificateException || t instanceof java.security.cert.CertPathValidatorException) return "-certificate";
        }
        return "-other";
    }

    private static boolean isTlsFailure(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof SSLException || t instanceof NotSslRecordException) return true;
            if (t.getCause() == t) break;
        }
        return false;
    }

    private void open(ChannelHandlerContext ctx, PeerLink l) {
        Runnable release = ctx.channel().attr(RELEASE_PENDING).getAndSet(null);
        if (release != null) release.run();
        state = State.OPEN;
        link = l;
        cancelHandshakeTimer();
        l.activate(ctx.channel(), dialed != null);
    }

    /** A contact handshake completed: from now on only contact messages are delivered from this connection. */
    private void openContact(ChannelHandlerContext ctx, ContactLink c) {
        Runnable release = ctx.channel().attr(RELEASE_PENDING).getAndSet(null);
        if (release != null) release.run();
        state = State.CONTACT;
        contact = c;
        cancelHandshakeTimer();
        ctx.pipeline().addBefore(ctx.name(), "contact-idle", new io.netty.handler.timeout.IdleStateHandler(0, 0, CONTACT_IDLE_SECONDS));
        c.activate(ctx.channel());
    }

    /**
     * A frame on a contact connection: a contact message is delivered as from the identity the
     * handshake (and with TLS, the certificate) established; anything else (a protocol message, a
     * region write, fence or acknowledgement) is dropped, counted and logged. The peer is not a
     * member here, so nothing of the protocol may come from it; the connection stays open for the
     * contact messages it may still send.
     */
    private void onContactFrame(ChannelHandlerContext ctx, ByteBuf in, FrameFormat.Header h) {
        switch (h.type()) {
            case FrameFormat.TYPE_MESSAGE -> {
                ProtocolMessage message = decodeMessage(ctx, in, h.length());
                if (message == null) return;
                if (!(message instanceof io.tandem.engine.ContactMessage)) {
                    dropOnContact("protocol-message", message.getClass().getSimpleName());
                    return;
                }
                try {
                    transport.listener().onMessage(contact.peer, message);
                } catch (RuntimeException e) {
                    log.error("{}: listener failed on {} from {}", transport.self(), message.getClass().getSimpleName(), contact.peer, e);
                }
            }
            case FrameFormat.TYPE_REGION_WRITE -> dropOnContact("region-write", "a region write");
            case FrameFormat.TYPE_REGION_FENCE -> dropOnContact("region-fence", "a region fence");
            case FrameFormat.TYPE_REGION_ACK -> dropOnContact("region-ack", "a region acknowledgement");
            default -> closeOnBadFrame(ctx, TransportMetrics.FRAMES_MALFORMED, "unknown frame type " + h.type());
        }
    }

    private void dropOnContact(String reason, String what) {
        transport.metrics().counter(TransportMetrics.CONTACT_DROPPED, "reason", reason).increment();
        transport.badInputLog().warn("contact-" + reason + "-" + contact.peer, "{}: dropped {} from {}, which is not connected as a member (only contact messages pass) [contact.dropped reason={}]",
                transport.self(), what, contact.peer, reason);
    }

    /** A removed member's connection is closed by its removal; frames already read are refused here. */
    private boolean removed(ChannelHandlerContext ctx) {
        if (!link.isRetired()) return false;
        state = State.CLOSED;
        ctx.close();
        return true;
    }

    /** The writer asks us to acknowledge every region write before this frame: they have all been handled, in order. */
    private void onRegionFence(ChannelHandlerContext ctx, ByteBuf in, int length) {
        if (length != 8) {
            closeOnBadFrame(ctx, TransportMetrics.FRAMES_MALFORMED, "region fence of " + length + " bytes (expected 8)");
            return;
        }
        if (removed(ctx)) return;
        byte[] body = new byte[8];
        in.readBytes(body);
        link.offer(FrameFormat.TYPE_REGION_ACK, body);
    }

    private void onRegionAck(ChannelHandlerContext ctx, ByteBuf in, int length) {
        if (length != 8) {
            closeOnBadFrame(ctx, TransportMetrics.FRAMES_MALFORMED, "region acknowledgement of " + length + " bytes (expected 8)");
            return;
        }
        if (removed(ctx)) return;
        transport.pushAcknowledged(link.peer, in.readLong()); // an id we never sent is ignored
    }

    private void onMessage(ChannelHandlerContext ctx, ByteBuf in, int length) {
        if (removed(ctx)) return;
        deliver(ctx, decodeMessage(ctx, in, length), length);
    }

    /** The body of the large message being read, or null; {@link #bigFilled} of its bytes are here. */
    private byte[] bigBody;
    private int bigFilled;

    /**
     * Starts reading a large message body (over {@link #SCRATCH_MAX_BYTES}) whose bytes are not all here yet
     * into an array of its own, as they arrive. Why: waiting for the whole frame made Netty merge every
     * later read into its cumulation buffer (a copy of every byte, and more as the buffer regrew) and then
     * the body was copied out of that buffer (a second copy); read piece by piece, the reads are consumed
     * whole, and each byte is copied once, into the array the codec then decodes (and, for a large block,
     * keeps: {@link io.tandem.codec.KryoCodec#decodeOwned}). The array is allocated at the header's length,
     * which the header check bounded by the maximum frame size, as the cumulation buffer was; only on an open
     * member connection (after the handshake).
     */
    private void startBigMessage(ByteBuf in, int length) {
        in.skipBytes(FrameFormat.HEADER_BYTES);
        bigBody = new byte[length];
        bigFilled = 0;
    }

    /** Copies what is here of the large message; true once it is complete (and handled; {@code in} may hold more frames), false if {@code in} is used up. */
    private boolean continueBigMessage(ChannelHandlerContext ctx, ByteBuf in) {
        int take = Math.min(in.readableBytes(), bigBody.length - bigFilled);
        in.readBytes(bigBody, bigFilled, take);
        bigFilled += take;
        if (bigFilled < bigBody.length) return false;
        byte[] body = bigBody;
        bigBody = null;
        if (state != State.OPEN || removed(ctx)) return true;
        deliver(ctx, decode(ctx, body, 0, body.length, true), body.length);
        return true;
    }

    private void deliver(ChannelHandlerContext ctx, ProtocolMessage message, int length) {
        if (message == null) return;
        link.framesReceived.increment();
        link.bytesReceived.add(FrameFormat.HEADER_BYTES + (long) length);
        TransportListener listener = transport.listener();
        try {
            listener.onMessage(link.peer, message);
        } catch (RuntimeException e) {
            log.error("{}: listener failed on {} from {}", transport.self(), message.getClass().getSimpleName(), link.peer, e);
        }
    }

    /** Decodes a message body; anything undecodable closes the connection (and gives null). */
    private ProtocolMessage decodeMessage(ChannelHandlerContext ctx, ByteBuf in, int length) {
        byte[] array;
        int offset;
        boolean owned = false;
        if (in.hasArray()) {
            array = in.array();
            offset = in.arrayOffset() + in.readerIndex();
        } else {
            array = scratch(length);
            owned = length > SCRATCH_MAX_BYTES; // an array of its own, not the reused scratch
            offset = 0;
            in.getBytes(in.readerIndex(), array, 0, length);
        }
        return decode(ctx, array, offset, length, owned);
    }

    /** {@code owned}: the array is this message's alone (never reused), so the decoded message may keep slices of it. */
    private ProtocolMessage decode(ChannelHandlerContext ctx, byte[] array, int offset, int length, boolean owned) {
        Object decoded;
        try {
            decoded = owned ? transport.codec().decodeOwned(array, offset, length) : transport.codec().decode(array, offset, length);
        } catch (CodecException e) {
            closeOnBadFrame(ctx, TransportMetrics.FRAMES_MALFORMED, "undecodable message body: " + e.getMessage());
            return null;
        } catch (RuntimeException | StackOverflowError e) {
            // Kryo may throw anything on hostile input (a collection nested 200,000 deep overflows the
            // stack): that closes this connection only; the thread's stack has unwound by now.
            closeOnBadFrame(ctx, TransportMetrics.FRAMES_MALFORMED, "undecodable message body: " + e.getClass().getSimpleName()
                    + (e instanceof StackOverflowError ? " (nested too deep)" : ": " + e.getMessage()));
            return null;
        }
        if (!(decoded instanceof ProtocolMessage message)) {
            closeOnBadFrame(ctx, TransportMetrics.FRAMES_MALFORMED, "message body decoded to " + (decoded == null ? "null" : decoded.getClass().getName()) + ", not a ProtocolMessage");
            return null;
        }
        return message;
    }

    /** The region name of the last region write and its UTF-8 bytes (a peer writes one region over and over). */
    private String lastRegion = "";
    private byte[] lastRegionBytes = new byte[0];

    /**
     * The name at the reader index: the last one again if the bytes match, so the same {@code String}
     * (its hash computed once) serves the lookups of every write, instead of a new one per frame.
     */
    private String regionName(ByteBuf in, int nameLength) {
        int at = in.readerIndex();
        byte[] last = lastRegionBytes;
        if (last.length == nameLength) {
            int i = 0;
            while (i < nameLength && in.getByte(at + i) == last[i]) i++;
            if (i == nameLength) return lastRegion;
        }
        byte[] bytes = new byte[nameLength];
        in.getBytes(at, bytes);
        lastRegion = new String(bytes, StandardCharsets.UTF_8);
        lastRegionBytes = bytes;
        return lastRegion;
    }

    private void onRegionWrite(ChannelHandlerContext ctx, ByteBuf in, int length) {
        if (length < RegionWriteBody.FIXED_BYTES) {
            closeOnBadFrame(ctx, TransportMetrics.FRAMES_MALFORMED, "region write of " + length + " bytes is too short");
            return;
        }
        if (removed(ctx)) return;
        int nameLength = in.readUnsignedShort();
        if (nameLength > length - RegionWriteBody.FIXED_BYTES) {
            closeOnBadFrame(ctx, TransportMetrics.FRAMES_MALFORMED, "region write name claims " + nameLength + " bytes of a " + length + "-byte body");
            return;
        }
        String region = regionName(in, nameLength);
        in.skipBytes(nameLength);
        int offset = in.readInt();
        int dataLength = length - RegionWriteBody.FIXED_BYTES - nameLength;
        // Applied straight from the receive buffer (one copy, into the region); the frame's end is skipped to by the caller.
        java.lang.foreign.MemorySegment data = java.lang.foreign.MemorySegment.ofBuffer(in.nioBuffer(in.readerIndex(), dataLength));
        link.framesReceived.increment();
        link.bytesReceived.add(FrameFormat.HEADER_BYTES + (long) length);
        // An unknown region is not a framing error: the peer may have registered it before we did.
        // A frozen writer's writes are dropped without a word (derecho.md §2.8).
        RegionTable.Outcome outcome = transport.regionTable().apply(link.peer, region, offset, data);
        if (outcome == RegionTable.Outcome.FROZEN) return;
        if (outcome != RegionTable.Outcome.APPLIED) {
            refusedRegionWrite(region, offset, dataLength);
            return;
        }
        try {
            transport.listener().onRegionWrite(link.peer, region, offset, dataLength);
        } catch (RuntimeException e) {
            log.error("{}: listener failed on a region write from {}", transport.self(), link.peer, e);
        }
    }

    /**
     * Region writes with at least this many data bytes are applied as their bytes arrive instead of
     * once the whole frame is buffered. Smaller ones (guards, counters, the control range) always land
     * whole, as before.
     */
    static final int STREAM_MIN_BYTES = 4096;

    /** The region of the write being streamed, or null (see {@link #startStream}). */
    private String streamRegion;
    /** The streamed write's first offset and data length (for the notice at its end). */
    private int streamStart;
    private int streamLength;
    /** Where its next data byte goes, and how many are still to come. */
    private int streamOffset;
    private int streamRemaining;
    /** The rest of the streamed write is read and dropped (its writer is frozen, or the region refused a piece). */
    private boolean streamDropping;
    /** Bytes of the streamed write's next word when a read ended inside it (fewer than 8). */
    private final byte[] carry = new byte[8];
    private int carried;

    /**
     * Starts applying the region write at the reader index before all of its data are here, if it is
     * large and well formed (aligned offset and length); false leaves it to the whole-frame path.
     *
     * <p>Why: a push of many ring slots is a frame of up to hundreds of KiB, longer than one socket
     * read. Waiting for it whole made Netty merge every later read into its cumulation buffer (a copy
     * of nearly every received byte, plus the buffer's regrowth) before the frame was applied (a second
     * copy). Applied piece by piece, the reads are consumed whole, so Netty keeps no cumulation and the
     * bytes are copied once, from the receive buffer into the region.
     *
     * <p>Why it is safe (derecho.md §2.5): each piece is applied like a write of its own by
     * {@link RegionTable#apply} (a release fence, then whole aligned words), in stream order, so R1-R3
     * hold as before; a reader may see some words of the write before others, which R4 allows for any
     * write (words land in any order); guards travel in separate later writes (R5), so nothing is read
     * under a guard before its data are complete. The listener hears of the write once, whole, at its
     * end. A piece of fewer than 8 bytes left at the end of a read is kept in {@link #carry} until its
     * word is complete, so no word is ever split.
     */
    private boolean startStream(ByteBuf in, int length) {
        int at = in.readerIndex() + FrameFormat.HEADER_BYTES;
        if (length < RegionWriteBody.FIXED_BYTES + STREAM_MIN_BYTES || in.readableBytes() < FrameFormat.HEADER_BYTES + 2) return false;
        int nameLength = in.getUnsignedShort(at);
        int dataLength = length - RegionWriteBody.FIXED_BYTES - nameLength;
        if (dataLength < STREAM_MIN_BYTES || in.readableBytes() < FrameFormat.HEADER_BYTES + RegionWriteBody.FIXED_BYTES + nameLength) return false;
        int offset = in.getInt(at + 2 + nameLength);
        if (link.isRetired()) return false;
        in.readerIndex(at + 2);
        String region = regionName(in, nameLength);
        if (transport.regionTable().check(link.peer, region, offset, dataLength) != RegionTable.Outcome.APPLIED) {
            in.readerIndex(at - FrameFormat.HEADER_BYTES); // a write that would be refused (or dropped) is refused whole, by the whole-frame path
            return false;
        }
        in.skipBytes(nameLength + 4);
        streamRegion = region;
        link.framesReceived.increment();
        link.bytesReceived.add(FrameFormat.HEADER_BYTES + (long) length);
        streamStart = offset;
        streamOffset = offset;
        streamLength = dataLength;
        streamRemaining = dataLength;
        streamDropping = false;
        carried = 0;
        return true;
    }

    /** Applies what is here of the streamed write; true once it is complete (then {@code in} may hold more frames), false if {@code in} is used up. */
    private boolean continueStream(ByteBuf in) {
        while (streamRemaining > 0 && in.isReadable()) {
            if (carried > 0 || in.readableBytes() < 8) {
                int take = Math.min(8 - carried, in.readableBytes());
                in.readBytes(carry, carried, take);
                carried += take;
                if (carried < 8) return false;
                carried = 0;
                applyPiece(java.lang.foreign.MemorySegment.ofArray(carry), 8);
                continue;
            }
            int n = Math.min(in.readableBytes(), streamRemaining) & ~7;
            applyPiece(java.lang.foreign.MemorySegment.ofBuffer(in.nioBuffer(in.readerIndex(), n)), n);
            in.skipBytes(n);
        }
        if (streamRemaining > 0) return false;
        String region = streamRegion;
        streamRegion = null;
        if (streamDropping) return true;
        try {
            transport.listener().onRegionWrite(link.peer, region, streamStart, streamLength);
        } catch (RuntimeException e) {
            log.error("{}: listener failed on a region write from {}", transport.self(), link.peer, e);
        }
        return true;
    }

    private void applyPiece(java.lang.foreign.MemorySegment data, int n) {
        if (!streamDropping) {
            RegionTable.Outcome outcome = transport.regionTable().apply(link.peer, streamRegion, streamOffset, data);
            if (outcome != RegionTable.Outcome.APPLIED) {
                streamDropping = true;
                if (outcome != RegionTable.Outcome.FROZEN) refusedRegionWrite(streamRegion, streamStart, streamLength);
            }
        }
        streamOffset += n;
        streamRemaining -= n;
    }

    private void refusedRegionWrite(String region, int offset, int dataLength) {
        transport.metrics().counter(TransportMetrics.REGION_WRITES_REJECTED, "peer", link.peer.value()).increment();
        if (!regionRejectionLogged) {
            regionRejectionLogged = true;
            log.warn("{}: ignoring region write from {} to '{}' at [{}, +{}): no such region registered here, or the range is outside it (logged once per connection)",
                    transport.self(), link.peer, region, offset, dataLength);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (state == State.CLOSED) return;
        if (isTlsFailure(cause)) {
            reject(ctx, Rejection.TLS, "TLS failed: " + describeTlsFailure(cause), tlsKind(cause));
            return;
        }
        if (cause instanceof DecoderException) { // a bug in frame handling, never a normal event: count it and say so
            closeOnBadFrame(ctx, TransportMetrics.FRAMES_MALFORMED, "frame handling failed: " + cause.getCause());
            log.warn("{}: frame handling failure", transport.self(), cause);
            return;
        }
        state = State.CLOSED;
        if (cause instanceof IOException) {
            log.debug("{}: connection {} {} failed: {}", transport.self(), peerName(), ctx.channel().remoteAddress(), cause.toString());
        } else {
            log.warn("{}: closing connection {} {} after an unexpected error", transport.self(), peerName(), ctx.channel().remoteAddress(), cause);
        }
        ctx.close();
    }

    private void reject(ChannelHandlerContext ctx, Rejection reason, String detail) {
        reject(ctx, reason, detail, "");
    }

    /** {@code kind} refines the reason for rate limiting, so that one kind of TLS failure flooding the log does not hide another. */
    private void reject(ChannelHandlerContext ctx, Rejection reason, String detail, String kind) {
        if (state == State.CLOSED) return;
        state = State.CLOSED;
        cancelHandshakeTimer();
        transport.metrics().counter(TransportMetrics.HANDSHAKE_REJECTIONS, "reason", reason.tag).increment();
        transport.badInputLog().warn("rejected-" + reason.tag + kind, "{}: rejected connection {} {}: {} [handshake.rejections reason={}]; closing it",
                transport.self(), dialedPeer() == null ? "from" : "to " + dialedPeer() + " at", ctx.channel().remoteAddress(), detail, reason.tag);
        ctx.close();
    }

    private void closeOnBadFrame(ChannelHandlerContext ctx, String counter, String detail) {
        if (state == State.CLOSED) return;
        state = State.CLOSED;
        cancelHandshakeTimer();
        transport.metrics().counter(counter, "peer", peerName()).increment();
        transport.badInputLog().warn(counter + "-" + peerName(), "{}: closing connection {} {}: {} [{}]", transport.self(),
                link != null ? "with " + link.peer : contact != null ? "(contact) with " + contact.peer : "from", ctx.channel().remoteAddress(), detail, counter);
        ctx.close();
    }

    private String peerName() {
        if (link != null) return link.peer.value();
        if (contact != null) return contact.peer.value();
        if (dialedPeer() != null) return dialedPeer().value();
        return TransportMetrics.UNKNOWN_PEER;
    }

    private void cancelHandshakeTimer() {
        if (handshakeTimer != null) {
            handshakeTimer.cancel(false);
            handshakeTimer = null;
        }
    }

    private byte[] scratch(int length) {
        if (length > SCRATCH_MAX_BYTES) return new byte[length];
        if (scratch.length < length) scratch = new byte[Math.max(length, Math.min(SCRATCH_MAX_BYTES, scratch.length * 2))];
        return scratch;
    }

    static ByteBuf frame(ChannelHandlerContext ctx, byte type, byte[] body) {
        ByteBuf buf = ctx.alloc().buffer(FrameFormat.HEADER_BYTES + body.length);
        buf.writeShort(FrameFormat.MAGIC).writeByte(FrameFormat.VERSION).writeByte(type).writeInt(body.length).writeBytes(body);
        return buf;
    }
}
