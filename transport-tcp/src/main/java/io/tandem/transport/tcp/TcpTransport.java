package io.tandem.transport.tcp;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.tandem.codec.FrameFormat;
import io.tandem.codec.KryoCodec;
import io.tandem.codec.TrailingBytes;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.transport.Endpoint;
import io.tandem.transport.MemoryRegions;
import io.tandem.transport.RegionTable;
import io.tandem.transport.Transport;
import io.tandem.transport.TransportFactory;
import io.tandem.transport.TransportListener;
import io.tandem.transport.TransportSetup;
import io.tandem.transport.tcp.tls.CertificateIdentity;
import io.tandem.transport.tcp.tls.TlsConfigException;
import io.tandem.transport.tcp.tls.TlsMaterial;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP transport (DESIGN §5), on Netty 4.2 with io_uring or epoll where available and NIO
 * otherwise ({@link #ioMode()} says which; it is also logged and published as the gauge
 * {@code tandem.transport.io.mode}).
 *
 * <ul>
 *   <li><b>One connection per peer pair</b>: the member with the lower {@link NodeId} dials, the
 *       other accepts; the dialer redials a lost or refused peer with exponential backoff and
 *       jitter. A new connection from a peer replaces its old one.
 *   <li><b>Handshake first</b>: each side names its cluster, itself and the member it expects; a
 *       handshake for another cluster, from an unknown member, in the wrong direction, or any
 *       other first frame closes the connection (counted, logged once).
 *   <li><b>Frames</b>: {@link FrameFormat} headers validated before the body is read; garbage,
 *       oversized or undecodable frames close the connection and never reach the listener.
 *   <li><b>Sending</b> never blocks and never throws: the message is encoded on the caller's
 *       thread and queued per peer (FIFO); the peer's event loop writes everything queued in one
 *       flush. A bounded queue (messages and bytes, with hysteresis) drops and counts sends to a
 *       peer that stops reading; other peers are unaffected.
 *   <li><b>Mutual TLS</b> (optional, {@link TcpTransportConfig#tls()}): TLS 1.3 on every connection,
 *       both sides present a certificate of the cluster's CA, and the member id a peer claims in
 *       its handshake must be the one its certificate names ({@link CertificateIdentity}).
 *   <li><b>Contact connections</b>: a known member identity (one of the configured members, or one
 *       ever added) that is not connected as a member may still exchange
 *       {@link io.tandem.engine.ContactMessage}s (a join request, a view probe and its answer) over a
 *       contact connection ({@link ContactLink}), in a restricted state: every other message, region
 *       write or fence from it is dropped, counted ({@code tandem.transport.contact.dropped}) and
 *       logged. With TLS its certificate must name it, as for members. A stranger is refused as before.
 *   <li><b>Admission</b>: accepted connections that have not completed their handshake are
 *       bounded per source address and in all; more are closed at once (counted, logged at most
 *       once per interval).
 *   <li><b>Memory regions</b> are emulated with {@code TYPE_REGION_WRITE} frames on the same
 *       per-peer queue, applied word-atomically on arrival ({@link RegionTable#apply}).
 * </ul>
 *
 * <pre>{@code
 * Transport t = TcpTransport.defaults().create(setup);   // or TcpTransport.factory(config)
 * t.start(listener);
 * t.send(peer, message);
 * t.close();
 * }</pre>
 */
public final class TcpTransport implements Transport {
    private static final Logger log = LoggerFactory.getLogger(TcpTransport.class);

    private final TcpTransportConfig config;
    private final String clusterName;
    private final NodeId self;
    private final Endpoint endpoint;
    private final KryoCodec codec;
    private final NettyIo io;
    private final TransportMetrics metrics;
    /** The current peers; members are added and removed at run time ({@link #addMember}, {@link #removeMember}). */
    private final Map<NodeId, PeerLink> links = new ConcurrentHashMap<>();
    /**
     * Every member identity this node knows and where it listens: the configured members and any
     * member added since. They may use contact connections; anyone else is a stranger.
     */
    private final Map<NodeId, Endpoint> known = new ConcurrentHashMap<>();
    /** Contact paths to known identities, created on first use (sending, or a contact dial accepted). */
    private final Map<NodeId, ContactLink> contacts = new ConcurrentHashMap<>();
    private final RegionTable regionTable;
    /** Region fences sent and not yet answered, by (push id, target): the push's region. */
    private final Map<PendingPush, String> pendingPushes = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong nextPushId = new java.util.concurrent.atomic.AtomicLong();
    private volatile Bootstrap dialing;
    private final MemoryRegions regions = new Regions();
    private final Set<Class<?>> unsendableTypesLogged = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Every open connection, so close() can close them while the event loops still run. */
    private final Set<Channel> channels = ConcurrentHashMap.newKeySet();

    private volatile TransportListener listener;
    private volatile MultiThreadIoEventLoopGroup group;
    private final List<Thread> ioThreads = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile Channel server;

    /** Key material and contexts when TLS is on, else null; replaced whole by {@link #reloadTls()}. */
    private volatile TlsContexts tls;

    /** The material and the contexts made from it, swapped together. */
    private record TlsContexts(TlsMaterial material, SslContext server, SslContext client) {
        static TlsContexts of(TlsMaterial m) {
            return new TlsContexts(m, m.serverContext(ClientAuth.REQUIRE), m.clientContext());
        }
    }
    /** Accepted connections without a completed handshake, per source address and in all. */
    private final SourceCounts pendingBySource = new SourceCounts();
    private final AtomicInteger pendingTotal = new AtomicInteger();
    private final RateLimitedLog badInputLog = new RateLimitedLog(log, Duration.ofSeconds(10));

    /**
     * Builds the transport of {@code setup.self()}; nothing is bound or dialed until
     * {@link #start}.
     *
     * @throws IllegalStateException if the configured I/O mode is not available on this machine
     */
    public TcpTransport(TransportSetup setup, TcpTransportConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.clusterName = setup.clusterName();
        if (clusterName.isEmpty() || clusterName.getBytes(StandardCharsets.UTF_8).length > Handshake.MAX_CLUSTER_NAME_BYTES) {
            throw new IllegalArgumentException("cluster name must be 1 to " + Handshake.MAX_CLUSTER_NAME_BYTES + " UTF-8 bytes, was '" + clusterName + "'");
        }
        this.self = setup.self();
        this.endpoint = setup.members().get(self);
        this.codec = setup.codec();
        this.io = NettyIo.resolve(config.ioMode());
        this.metrics = new TransportMetrics(setup.metrics(), self.value());
        for (Map.Entry<NodeId, Endpoint> member : setup.members().entrySet()) {
            if (!member.getKey().equals(self)) links.put(member.getKey(), new PeerLink(this, member.getKey(), member.getValue(), metrics));
        }
        known.putAll(setup.members());
        known.remove(self);
        this.regionTable = new RegionTable(self, links.keySet());
        metrics.gauge(TransportMetrics.IO_MODE, io, x -> 1, "mode", io.toString());
        this.tls = config.tls() == null ? null : TlsContexts.of(loadTls());
    }

    /**
     * Reads the TLS files again (a renewed certificate, a CA bundle that trusts a new CA as well)
     * and uses them for every connection made from now on; open connections keep theirs. If the
     * new files do not pass the start-up checks, nothing changes and the exception says why.
     *
     * @throws TlsConfigException if the files cannot be used
     * @throws IllegalStateException if this transport runs without TLS
     */
    public void reloadTls() {
        if (tls == null) throw new IllegalStateException(self + " runs without TLS: nothing to reload");
        TlsContexts fresh = TlsContexts.of(loadTls());
        tls = fresh;
        log.info("{}: reloaded TLS files: now {} (certificate valid until {}); new connections use them", self, fresh.material().identity().describe(),
                fresh.material().certificate().getNotAfter().toInstant());
    }

    /** Loads and checks the key material; this node's certificate must name this node, or no peer would accept it. */
    private TlsMaterial loadTls() {
        TlsMaterial m = TlsMaterial.load(config.tls());
        CertificateIdentity id = m.identity();
        if (id.member().isEmpty() || !id.member().get().equals(self)) {
            throw new TlsConfigException("TLS certificate " + config.tls().certificateChain() + " is for " + id.describe() + ", not for member " + self
                    + ": its subject alternative names must include " + CertificateIdentity.memberUri(self));
        }
        return m;
    }

    /** Whether member connections use mutual TLS. */
    public boolean tlsEnabled() {
        return tls != null;
    }

    /** A factory with {@link TcpTransportConfig#defaults()}, for the node builder. */
    public static TransportFactory defaults() {
        return factory(TcpTransportConfig.defaults());
    }

    public static TransportFactory factory(TcpTransportConfig config) {
        Objects.requireNonNull(config, "config");
        return setup -> new TcpTransport(setup, config);
    }

    @Override
    public NodeId self() {
        return self;
    }

    @Override
    public Set<NodeId> peers() {
        return Set.copyOf(links.keySet());
    }

    /**
     * Adds {@code member} at {@code endpoint}: if this node is the dialer of the pair (the lower id)
     * and started, it dials at once; otherwise the member's dial is accepted from now on. A current
     * member is left as it is.
     *
     * @throws IllegalArgumentException if {@code endpoint} is {@link Endpoint#UNADDRESSED}
     */
    @Override
    public synchronized void addMember(NodeId member, Endpoint endpoint) {
        Objects.requireNonNull(member, "member");
        Objects.requireNonNull(endpoint, "endpoint");
        if (member.equals(self) || links.containsKey(member) || closed.get()) return;
        if (endpoint.equals(Endpoint.UNADDRESSED)) throw new IllegalArgumentException("the TCP transport needs the address of " + member);
        PeerLink link = new PeerLink(this, member, endpoint, metrics);
        known.put(member, endpoint);
        regionTable.addPeer(member);
        links.put(member, link);
        log.info("{}: member {} at {} added", self, member, endpoint);
        Bootstrap b = dialing;
        if (link.dialer && b != null) link.startDialing(b.clone().handler(connectionInitializer(link)));
    }

    /**
     * Removes {@code member}: its connection is closed and not redialed, what is queued for it is
     * dropped, its member dials are refused at the handshake (unknown member), and fences awaiting
     * its answer complete as not applied. It stays a known identity: its contact messages still
     * pass (a removed member asks to join again through them).
     */
    @Override
    public synchronized void removeMember(NodeId member) {
        PeerLink link = links.remove(member);
        if (link == null) return;
        regionTable.removePeer(member);
        link.retire();
        metrics.removeGauges(member.value());
        failPendingPushes(member);
        log.info("{}: member {} removed", self, member);
    }
    /** The I/O implementation in use (never {@link IoMode#AUTO}). */
    public IoMode ioMode() {
        return io.mode();
    }

    public TcpTransportConfig config() {
        return config;
    }

    /** Where this node listens. */
    public Endpoint endpoint() {
        return endpoint;
    }

    /**
     * Binds the listening socket and starts dialing the peers this node dials.
     *
     * @throws IllegalStateException if already started or closed, or the endpoint cannot be bound
     *                               (the transport is then closed)
     */
    @Override
    public synchronized void start(TransportListener listener) {
        Objects.requireNonNull(listener, "listener");
        if (closed.get()) throw new IllegalStateException("TCP transport of " + self + " is closed");
        if (this.listener != null) throw new IllegalStateException("TCP transport of " + self + " already started");
        this.listener = listener;
        MultiThreadIoEventLoopGroup g = io.newEventLoopGroup(config.ioThreads(), "tandem-tcp-" + self, ioThreads::add);
        this.group = g;
        try {
            server = new ServerBootstrap()
                    .group(g)
                    .channel(io.serverSocketChannel())
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.RCVBUF_ALLOCATOR, readAllocator())
                    .childHandler(connectionInitializer(null))
                    .bind(endpoint.host(), endpoint.port())
                    .syncUninterruptibly()
                    .channel();
        } catch (Exception e) { // BindException and friends arrive unchecked from syncUninterruptibly
            close();
            throw new IllegalStateException(self + " cannot listen on " + endpoint + ": " + e, e);
        }
        log.info("{}: TCP transport of cluster '{}' listening on {} with {} ({} I/O thread{}), {}, peers {}",
                self, clusterName, endpoint, io, config.ioThreads(), config.ioThreads() == 1 ? "" : "s",
                tls == null ? "plaintext" : "mutual TLS 1.3 as " + tls.material().identity().describe() + " (" + TlsMaterial.providerName() + ")", links.keySet());
        if (tls == null && !isLoopback(endpoint.host())) {
            log.warn("{}: THE MEMBER PORT {} IS REACHABLE BEYOND THIS MACHINE WITHOUT TLS: anyone who can connect to it can claim to be a member, "
                    + "forge votes and log entries, and read every replicated command. Turn on TLS (see transport-tcp/README.md, 'Security').", self, endpoint);
        }
        Bootstrap dialing = new Bootstrap()
                .group(g)
                .channel(io.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.RCVBUF_ALLOCATOR, readAllocator())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis()));
        this.dialing = dialing;
        for (PeerLink link : links.values()) {
            if (link.dialer) link.startDialing(dialing.clone().handler(connectionInitializer(link)));
        }
    }

    /**
     * The largest receive buffer one socket read may use. Netty's adaptive guess starts at 2 KiB and grows
     * while reads fill their buffer, up to 64 KiB by default; a streaming connection then reads in 64 KiB
     * pieces (one completion, one pipeline pass and, with io_uring, one submission each). Up to 256 KiB
     * it reads four times as much per pass; a connection of small frames never grows its guess, so it
     * keeps its small buffers (and its latency: a read hands over whatever the socket has, it never
     * waits to fill the buffer). 256 KiB stays below the pooled allocator's largest pooled buffer (1 MiB).
     * {@code -Dtandem.tcp.readMaxBytes} changes it, for measurements.
     */
    static final int READ_MAX_BYTES = Integer.getInteger("tandem.tcp.readMaxBytes", 256 * 1024);

    private static AdaptiveRecvByteBufAllocator readAllocator() {
        return new AdaptiveRecvByteBufAllocator(64, 2048, Math.max(2048, READ_MAX_BYTES));
    }

    private static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private ChannelInitializer<Channel> connectionInitializer(PeerLink dialed) {
        return connectionInitializer(dialed, null);
    }

    private ChannelInitializer<Channel> connectionInitializer(PeerLink dialed, ContactLink contact) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                boolean accepted = dialed == null && contact == null;
                if (accepted && !admit(ch)) return;
                channels.add(ch);
                ch.closeFuture().addListener(f -> channels.remove(ch));
                TlsContexts t = tls;
                if (t != null) {
                    Endpoint to = dialed != null ? dialed.endpoint : contact != null ? contact.endpoint : null;
                    SslHandler ssl = accepted ? t.server().newHandler(ch.alloc()) : t.client().newHandler(ch.alloc(), to.host(), to.port());
                    ssl.setHandshakeTimeoutMillis(config.handshakeTimeout().toMillis());
                    ch.pipeline().addLast("tls", ssl);
                }
                ch.pipeline().addLast("tandem-connection", new Connection(TcpTransport.this, dialed, contact));
            }
        };
    }

    /**
     * Counts an accepted connection as pending until its handshake completes or it closes; refuses
     * it if its source or the node already has as many pending as allowed. A member's connection
     * stops counting once it is handshaken, so a flood of idle sockets cannot hold members out for
     * longer than the handshake timeout, and a flood from one address not at all from another.
     */
    private boolean admit(Channel ch) {
        InetAddress source = ch.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        int fromSource = source == null ? 1 : pendingBySource.add(source);
        String refused = null;
        if (fromSource > config.maxPendingConnectionsPerSource()) {
            refused = "per-source";
        } else if (pendingTotal.incrementAndGet() > config.maxPendingConnections()) {
            pendingTotal.decrementAndGet();
            refused = "pending";
        }
        if (refused != null) {
            if (source != null) pendingBySource.remove(source);
            metrics.counter(TransportMetrics.CONNECTIONS_REFUSED, "reason", refused).increment();
            badInputLog.warn("refused-" + refused, "{}: refused a connection from {}: {} connections {} have not completed their handshake yet "
                    + "[connections.refused reason={}]", self, ch.remoteAddress(),
                    refused.equals("per-source") ? config.maxPendingConnectionsPerSource() : config.maxPendingConnections(),
                    refused.equals("per-source") ? "from " + source : "in all", refused);
            ch.close();
            return false;
        }
        AtomicBoolean released = new AtomicBoolean();
        Runnable release = () -> {
            if (released.compareAndSet(false, true)) {
                pendingTotal.decrementAndGet();
                if (source != null) pendingBySource.remove(source);
            }
        };
        ch.attr(Connection.RELEASE_PENDING).set(release);
        ch.closeFuture().addListener(f -> release.run());
        return true;
    }

    /** Connections closed unserved because too many from their source, or in all, were waiting for a handshake. */
    public long refusedConnections() {
        return metrics.total(TransportMetrics.CONNECTIONS_REFUSED);
    }

    /** Flushes the sending thread wrote to the socket itself, without handing them to an I/O thread (tests). */
    long directFlushes() {
        return metrics.total(TransportMetrics.FLUSHES_DIRECT);
    }

    /** The calling thread's bodies of shared-encoding messages (tests). */
    SharedBodies sharedBodiesOfThisThread() {
        return batch().sharedBodies(this);
    }

    /** Direct sends the socket took only part of, the rest passed to the I/O thread (tests). */
    long directShortSends() {
        long n = 0;
        for (PeerLink l : links.values()) n += l.directShortSends.sum();
        return n;
    }

    /** The log for bad input from the network: one line per kind per 10 s. */
    RateLimitedLog badInputLog() {
        return badInputLog;
    }

    /**
     * Encodes {@code message} on the calling thread and queues it for {@code to}. Never blocks,
     * never throws. Returns false if {@code to} is not a peer, the transport is closed, the message
     * cannot be encoded or exceeds the maximum frame size (a sender bug, logged once per type and
     * counted in {@code sends.failed}), or the peer's outbound queue is full (counted in
     * {@code sends.dropped}).
     */
    @Override
    public boolean send(NodeId to, ProtocolMessage message) {
        if (to == null || message == null || closed.get()) return false;
        PeerLink link = links.get(to);
        // A contact message goes wherever the member link cannot take it now: the peer may not count
        // this node as a member (it removed it), and then it never dials or accepts the member link.
        boolean viaContact = message instanceof io.tandem.engine.ContactMessage && (link == null || !link.isConnected()) && known.containsKey(to);
        if (link == null && !viaContact) return false;
        if (!viaContact && message instanceof TrailingBytes trailing && trailing.trailingArray() != null && trailing.trailingLength() >= TRAILING_FROM_BYTES) {
            return sendWithTrailing(link, trailing);
        }
        if (!viaContact && message instanceof io.tandem.codec.SharedEncoding) return sendShared(link, message);
        byte[] body;
        try {
            body = codec.encode(message);
        } catch (RuntimeException e) {
            return unsendable(link, message, e.getMessage());
        }
        if (body.length > config.maxFrameBytes()) return unsendable(link, message, oversized(body.length));
        if (viaContact) return contactLink(to).offer(body);
        return link.offer(FrameFormat.TYPE_MESSAGE, body);
    }

    /**
     * One thread's open batch ({@link #startBatch}): the links it queued frames for and whose drain it holds
     * back until {@link #flushBatch}. Touched only by its own thread.
     */
    private static final class Batch {
        final Thread owner = Thread.currentThread();
        boolean open;
        final ArrayList<PeerLink> links = new ArrayList<>(4);
        /** This thread's bodies of shared-encoding messages, made on its first such send. */
        private SharedBodies shared;

        SharedBodies sharedBodies(TcpTransport transport) {
            SharedBodies s = shared;
            if (s == null) shared = s = new SharedBodies(transport.codec, transport.codec.maxEncodedBytes());
            return s;
        }
    }

    private final ThreadLocal<Batch> batches = ThreadLocal.withInitial(Batch::new);
    /**
     * The batch last looked up, so the thread that sends nearly everything (the engine loop) finds its own without a
     * {@code ThreadLocal} lookup per turn and per send. Racy on purpose: another thread reading it sees a batch whose
     * final {@code owner} is not itself and looks its own up; a plain field is enough because a {@code Batch} is
     * only ever used by its owner.
     */
    private Batch lastBatch;

    private Batch batch() {
        Batch b = lastBatch;
        if (b == null || b.owner != Thread.currentThread()) {
            b = batches.get();
            lastBatch = b;
        }
        return b;
    }

    @Override
    public void startBatch() {
        batch().open = true;
    }

    /**
     * Asks each link the batch queued frames for to drain: one event-loop task, one write and one wake-up per
     * peer for the whole batch. Nothing strands: a link whose drain is already running or scheduled re-checks
     * its queue when that drain ends ({@link PeerLink#requestDrain}).
     */
    @Override
    public void flushBatch() {
        Batch b = batch();
        b.open = false;
        List<PeerLink> held = b.links;
        if (held.isEmpty()) return;
        for (int i = 0; i < held.size(); i++) held.get(i).requestDrain();
        held.clear();
    }

    /** {@code link} has a new frame queued by the calling thread: drain it now, or when the thread's batch is flushed. */
    void drainSoon(PeerLink link) {
        Batch b = batch();
        if (!b.open) {
            link.requestDrain();
            return;
        }
        List<PeerLink> held = b.links;
        for (int i = 0; i < held.size(); i++) if (held.get(i) == link) return;
        held.add(link);
    }

    /**
     * A {@link io.tandem.codec.SharedEncoding} message: encoded once into one of the sending thread's reusable bodies
     * (the same body again when the same instance goes to the next peer: a leader's AppendEntries to each follower),
     * queued with a reference that the link's drain releases once it has copied the bytes into the socket buffer
     * ({@link SharedBodies}: why a body is never rewritten while a frame still refers to it). No array per message.
     */
    private boolean sendShared(PeerLink link, ProtocolMessage message) {
        SharedBodies.Body body;
        try {
            body = batch().sharedBodies(this).bodyOf(message);
        } catch (RuntimeException e) {
            return unsendable(link, message, e.getMessage());
        }
        if (body.length() > config.maxFrameBytes()) return unsendable(link, message, oversized(body.length()));
        return link.offer(FrameFormat.TYPE_MESSAGE, body);
    }

    /** From this many trailing bytes on, a {@link TrailingBytes} message is queued as its head and a reference to its bytes. */
    static final int TRAILING_FROM_BYTES = 64 * 1024;

    /**
     * A large block (derecho.md §3): only its head is encoded here; the drain copies the head and then the
     * block's bytes, straight from the message's array, into the send buffer. One copy of the block instead of
     * two (into a frame array, then into the send buffer). The bytes are the same as {@code codec.encode}'s.
     */
    private boolean sendWithTrailing(PeerLink link, TrailingBytes message) {
        KryoCodec.Head head;
        try {
            head = codec.encodeHead(message);
        } catch (RuntimeException e) {
            return unsendable(link, (ProtocolMessage) message, e.getMessage());
        }
        if (head.totalBytes() > config.maxFrameBytes()) return unsendable(link, (ProtocolMessage) message, oversized(head.totalBytes()));
        return link.offer(FrameFormat.TYPE_MESSAGE, head.head(), head.tail(), head.offset(), head.length());
    }

    /** Whether {@code node} is a known member identity (configured, or added at some time), current member or not. */
    boolean isKnown(NodeId node) {
        return known.containsKey(node);
    }

    /** The contact path to a known identity, created on first use. */
    ContactLink contactLink(NodeId peer) {
        return contacts.computeIfAbsent(peer, p -> new ContactLink(this, p, known.get(p), metrics));
    }

    /** A bootstrap for a contact dial by {@code link}, or null before start or after close. */
    Bootstrap contactBootstrap(ContactLink link) {
        Bootstrap b = dialing;
        if (b == null || closed.get()) return null;
        return b.clone().handler(connectionInitializer(null, link));
    }

    /** Contact messages and frames from contact connections that were dropped, for any reason. */
    public long contactDropped() {
        return metrics.total(TransportMetrics.CONTACT_DROPPED);
    }

    /** Whether a contact connection with {@code peer} is open (tests and diagnostics). */
    public boolean isContactConnected(NodeId peer) {
        ContactLink c = contacts.get(peer);
        return c != null && c.isConnected();
    }

    /**
     * A message this node cannot send (it does not encode, or its frame is too large): counted on its link (none for a
     * contact message to a peer with no member link) and logged once per type; false, for the send to return.
     */
    private boolean unsendable(PeerLink link, ProtocolMessage message, String why) {
        if (link != null) link.sendsFailed.increment();
        logUnsendable(message, why);
        return false;
    }

    private String oversized(long bodyBytes) {
        return "encoded to " + bodyBytes + " bytes, over the maximum frame of " + config.maxFrameBytes();
    }

    private void logUnsendable(ProtocolMessage message, String why) {
        if (unsendableTypesLogged.add(message.getClass())) {
            log.error("{}: cannot send {} ({}); such messages are dropped and counted in tandem.transport.sends.failed (logged once per type)",
                    self, message.getClass().getName(), why);
        }
    }

    @Override
    public MemoryRegions regions() {
        return regions;
    }

    /** A snapshot of the counters, summed over peers. */
    public TcpTransportStats stats() {
        return new TcpTransportStats(
                metrics.total(TransportMetrics.FRAMES_SENT),
                metrics.total(TransportMetrics.BYTES_SENT),
                metrics.total(TransportMetrics.FRAMES_RECEIVED),
                metrics.total(TransportMetrics.BYTES_RECEIVED),
                metrics.total(TransportMetrics.FRAMES_MALFORMED),
                metrics.total(TransportMetrics.FRAMES_OVERSIZED),
                metrics.total(TransportMetrics.HANDSHAKE_REJECTIONS),
                metrics.total(TransportMetrics.SENDS_DROPPED),
                metrics.total(TransportMetrics.SENDS_FAILED),
                metrics.total(TransportMetrics.RECONNECTS),
                metrics.total(TransportMetrics.CONNECTIONS_OPENED),
                metrics.total(TransportMetrics.REGION_WRITES_REJECTED),
                metrics.total(TransportMetrics.FLUSHES));
    }

    /** Whether a handshaken connection to {@code peer} is up. */
    public boolean isConnected(NodeId peer) {
        return requireLink(peer).isConnected();
    }

    /** Messages queued for {@code peer} and not yet handed to its socket. */
    public long queuedMessages(NodeId peer) {
        return requireLink(peer).queuedMessages();
    }

    /** Bytes (frame headers included) queued for {@code peer} and not yet handed to its socket. */
    public long queuedBytes(NodeId peer) {
        return requireLink(peer).queuedBytes();
    }

    /** Sends and region pushes to {@code peer} dropped because its outbound queue was full. */
    public long droppedSends(NodeId peer) {
        return requireLink(peer).sendsDropped.sum();
    }

    private PeerLink requireLink(NodeId peer) {
        PeerLink link = links.get(Objects.requireNonNull(peer, "peer"));
        if (link == null) throw new IllegalArgumentException(peer + " is not a peer of " + self);
        return link;
    }

    /**
     * Closes the listening socket and every connection, stops the event loops (waiting for them),
     * drops queued messages and unregisters the meters. Idempotent. No listener call happens after
     * it returns.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        synchronized (this) {
            MultiThreadIoEventLoopGroup g = group;
            if (g != null) {
                // Close every socket and wait for it while the loops still run: with io_uring a socket
                // is really closed (FIN sent, port free) only once its pending operations have been
                // cancelled and their completions handled, which a loop that is shutting down may not
                // do. Otherwise peers may never see the connection end, and a successor cannot bind.
                List<ChannelFuture> closing = new ArrayList<>();
                Channel s = server;
                if (s != null) closing.add(s.close());
                for (Channel ch : channels) closing.add(ch.close());
                for (ChannelFuture f : closing) f.awaitUninterruptibly(5, TimeUnit.SECONDS);
                if (!g.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS)) {
                    log.warn("{}: TCP event loops did not stop within 10 s", self);
                }
                // The group's termination completes on its last loop thread just before that thread
                // exits; join them so that "closed" really means no thread of ours is left.
                for (Thread t : ioThreads) {
                    try {
                        t.join(TimeUnit.SECONDS.toMillis(5));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
            for (PeerLink link : links.values()) link.discardOutbox();
            regionFrames.close(); // after the outboxes let go: a frame still held is freed by its last reference
            metrics.close();
            regionTable.close();
            log.info("{}: TCP transport closed", self);
        }
    }

    // ---------------------------------------------------------------- for PeerLink and Connection

    boolean isClosed() {
        return closed.get();
    }

    EventLoopGroup eventLoops() {
        return group;
    }

    PeerLink link(NodeId peer) {
        return links.get(peer);
    }

    Set<NodeId> members() {
        Set<NodeId> all = new TreeSet<>(links.keySet());
        all.add(self);
        return all;
    }

    String clusterName() {
        return clusterName;
    }

    KryoCodec codec() {
        return codec;
    }

    TransportListener listener() {
        return listener;
    }

    RegionTable regionTable() {
        return regionTable;
    }

    TransportMetrics metrics() {
        return metrics;
    }

    /** Who a push fence waits for. */
    private record PendingPush(long pushId, NodeId target) {}

    /** {@code peer} answered fence {@code pushId}: it applied every region write we sent before it. */
    void pushAcknowledged(NodeId peer, long pushId) {
        String region = pendingPushes.remove(new PendingPush(pushId, peer));
        if (region != null) reportPush(pushId, region, peer, true);
    }

    /** The connection to {@code peer} ended (or it was removed): fences it has not answered may never be. */
    void failPendingPushes(NodeId peer) {
        for (PendingPush p : List.copyOf(pendingPushes.keySet())) {
            if (!p.target().equals(peer)) continue;
            String region = pendingPushes.remove(p);
            if (region != null) reportPush(p.pushId(), region, peer, false);
        }
    }

    private void reportPush(long pushId, String region, NodeId target, boolean applied) {
        TransportListener l = listener;
        if (l == null || closed.get()) return;
        try {
            l.onPushCompleted(pushId, region, target, applied);
        } catch (RuntimeException e) {
            log.error("{}: listener failed on a push completion", self, e);
        }
    }

    /** Reused direct buffers of large region-write frames (see {@link RegionFrames}). */
    private final RegionFrames regionFrames = new RegionFrames();

    /** The reused region-write frames (tests). */
    RegionFrames regionFrames() {
        return regionFrames;
    }

    /** Emulates one-sided writes: a push sends the byte range to every peer as region-write frames. */
    private final class Regions implements MemoryRegions {
        @Override
        public MemorySegment register(String name, int sizeBytes) {
            Objects.requireNonNull(name, "name");
            int nameBytes = name.getBytes(StandardCharsets.UTF_8).length;
            if (nameBytes == 0 || nameBytes > RegionWriteBody.MAX_NAME_BYTES) {
                throw new IllegalArgumentException("region name must be 1 to " + RegionWriteBody.MAX_NAME_BYTES + " UTF-8 bytes, was '" + name + "'");
            }
            return regionTable.register(name, sizeBytes);
        }

        @Override
        public MemorySegment local(String name) {
            return regionTable.local(name);
        }

        @Override
        public MemorySegment remote(NodeId peer, String name) {
            return regionTable.remote(peer, name);
        }

        /**
         * Snapshots the range word by word and queues it for every peer. A range larger than one
         * frame goes as several frames, each applied atomically per word and in order.
         */
        @Override
        public void push(String name, int offset, int length) {
            push(name, offset, length, links.keySet());
        }

        @Override
        public void push(String name, int offset, int length, java.util.Collection<NodeId> targets) {
            send(name, offset, length, targets, 0);
        }

        /**
         * Sends the writes, then to each target a fence that it answers once it handled every write
         * before it; a target that is not connected now completes as not applied at once.
         */
        @Override
        public long pushWithCompletion(String name, int offset, int length, java.util.Collection<NodeId> targets) {
            long id = nextPushId.incrementAndGet();
            send(name, offset, length, targets, id);
            return id;
        }

        @Override
        public void freeze(NodeId peer) {
            regionTable.freeze(peer);
        }

        @Override
        public boolean isFrozen(NodeId peer) {
            return regionTable.isFrozen(peer);
        }

        @Override
        public long peersVersion() {
            return regionTable.peersVersion();
        }

        @Override
        public long changes() {
            return regionTable.changes();
        }

        /** The last region name pushed and its UTF-8 bytes (an engine pushes one region over and over). */
        private volatile Object[] lastName = {"", new byte[0]};

        private byte[] nameBytes(String name) {
            Object[] last = lastName;
            if (last[0].equals(name)) return (byte[]) last[1];
            byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
            lastName = new Object[] {name, bytes};
            return bytes;
        }

        /**
         * A push of a range this large is snapshotted once into a whole encoded frame in a pooled
         * direct buffer that every target's link writes as it is (a retained duplicate each): one copy
         * of the bytes at the sender instead of a heap snapshot plus one copy per peer into its batch
         * buffer. Smaller ranges (guards, counters) are packed into the links' batch buffers as before.
         */
        static final int ENCODED_PUSH_BYTES = 512;
        /**
         * ... and goes to at least this many peers. With one target there is no per-peer copy to save,
         * and at 2 members the shared frames measured slower than packed ones (B/D check of session
         * vsync8: 56k/87k against 111k/98k msg/s at 1 KiB, 52k/51k against 87k/69k at 8 KiB). A chunk larger
         * than {@link RegionFrames#LARGE_CHUNK_MIN} goes encoded to one target too: it is larger than a link's
         * batch buffer, so it was never packed with neighbours (vsync25).
         */
        static final int ENCODED_PUSH_TARGETS = 2;

        /**
         * Sends one chunk as a shared encoded frame; false if the regions were released by a concurrent close. A large
         * chunk ({@link RegionFrames#LARGE_CHUNK_MIN}) goes in a reused direct buffer ({@link RegionFrames}: no allocation,
         * no zeroing), a smaller one in a buffer of the allocator's.
         */
        private boolean sendEncoded(String name, byte[] nameBytes, int offset, int chunk, java.util.List<NodeId> to) {
            int bodyLength = RegionWriteBody.dataOffset(nameBytes) + chunk;
            int frameBytes = FrameFormat.HEADER_BYTES + bodyLength;
            ByteBuf frame = chunk > RegionFrames.LARGE_CHUNK_MIN ? regionFrames.take(frameBytes) : ByteBufAllocator.DEFAULT.directBuffer(frameBytes);
            try {
                frame.writeShort(FrameFormat.MAGIC).writeByte(FrameFormat.VERSION).writeByte(FrameFormat.TYPE_REGION_WRITE).writeInt(bodyLength);
                frame.writeShort(nameBytes.length).writeBytes(nameBytes).writeInt(offset);
                // Snapshot of my own region, written only by this thread (see RegionTable#snapshotInto): never torn.
                regionTable.snapshotInto(name, offset, chunk, MemorySegment.ofBuffer(frame.nioBuffer(frame.writerIndex(), chunk)));
                frame.writerIndex(frame.writerIndex() + chunk);
            } catch (IllegalStateException e) { // the regions were released by a concurrent close
                frame.release();
                if (closed.get()) return false;
                throw e;
            } catch (RuntimeException e) {
                frame.release();
                throw e;
            }
            try {
                for (NodeId target : to) {
                    PeerLink link = links.get(target);
                    if (link != null) link.offerEncoded(frame.retainedDuplicate()); // the link owns (and releases) its reference
                }
            } finally {
                frame.release(); // ours: the links hold theirs
            }
            return true;
        }

        private void send(String name, int offset, int length, java.util.Collection<NodeId> targets, long pushId) {
            if (closed.get()) return;
            java.util.List<NodeId> to = regionTable.targets(targets);
            byte[] nameBytes = nameBytes(name);
            // Frames of at most RegionFrames.LARGE_CHUNK_MAX data bytes, so a large push fits the reused buffers; each frame is
            // applied in order on the same link, as the frames of a push cut at maxFrameBytes always were.
            int maxChunk = Math.min(RegionFrames.LARGE_CHUNK_MAX, RegionWriteBody.maxChunk(config.maxFrameBytes(), nameBytes));
            int at = 0;
            while (at < length) {
                int chunk = Math.min(maxChunk, length - at);
                if (chunk >= ENCODED_PUSH_BYTES && to.size() >= ENCODED_PUSH_TARGETS || chunk > RegionFrames.LARGE_CHUNK_MIN) {
                    if (!sendEncoded(name, nameBytes, offset + at, chunk, to)) return;
                    at += chunk;
                    continue;
                }
                // The range is snapshotted word by word straight into the frame body (one copy), shared by the targets, never modified.
                byte[] body = RegionWriteBody.withHeader(nameBytes, offset + at, chunk);
                try {
                    regionTable.snapshotInto(name, offset + at, chunk, body, RegionWriteBody.dataOffset(nameBytes));
                } catch (IllegalStateException e) { // the regions were released by a concurrent close
                    if (closed.get()) return;
                    throw e;
                }
                at += chunk;
                for (NodeId target : to) {
                    PeerLink link = links.get(target);
                    if (link != null) link.offer(FrameFormat.TYPE_REGION_WRITE, body);
                }
            }
            if (pushId == 0) return;
            byte[] fence = java.nio.ByteBuffer.allocate(8).putLong(pushId).array();
            // Every target is told (a non-peer as not applied); the usual list of ascending peers as it is, no stream per push.
            java.util.List<NodeId> told = to == targets ? to : targets.stream().distinct().sorted().toList();
            for (NodeId target : told) {
                if (target.equals(self)) continue;
                PeerLink link = links.get(target);
                if (link == null || !link.isConnected()) {
                    reportPush(pushId, name, target, false);
                    continue;
                }
                pendingPushes.put(new PendingPush(pushId, target), name);
                if (!link.offer(FrameFormat.TYPE_REGION_FENCE, fence) && pendingPushes.remove(new PendingPush(pushId, target)) != null) {
                    reportPush(pushId, name, target, false); // its queue is full: the writes may be lost too
                }
            }
        }
    }
}
