package io.tandem.transport.tcp;

import io.tandem.codec.FrameFormat;
import io.tandem.transport.tcp.tls.TlsConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link TcpTransport}, validated at construction. Start from {@link #defaults()} and
 * change what you need with the {@code with...} methods.
 *
 * @param maxFrameBytes             largest frame body accepted or sent; a peer announcing a larger
 *                                  frame is disconnected before any of its body is read
 * @param outboundHighWaterMessages per-peer outbound queue bound in messages: once reached, sends
 *                                  to that peer are dropped (and counted) ...
 * @param outboundLowWaterMessages  ... until the queue has drained to this many messages
 * @param outboundHighWaterBytes    the same bound in bytes (frame headers included); must hold at
 *                                  least one frame of {@code maxFrameBytes}
 * @param outboundLowWaterBytes     the byte level at which sends are accepted again
 * @param connectTimeout            how long one connection attempt may take
 * @param reconnectBackoffMin       first delay before redialing a lost or refused peer; it doubles
 *                                  on every failed attempt ...
 * @param reconnectBackoffMax       ... up to this cap; each delay is jittered in [delay/2, delay]
 * @param handshakeTimeout          a connection that has not completed its handshake by then is closed
 * @param ioThreads                 event-loop threads for all connections of the transport
 * @param ioMode                    io_uring, epoll, NIO, or {@link IoMode#AUTO} for the best available
 * @param tls                       mutual TLS on every member connection, the member id bound to the
 *                                  certificate; null for plaintext (tests, loopback demos)
 * @param maxPendingConnectionsPerSource accepted connections from one source address that have not
 *                                  completed their handshake yet; more are closed at once (a flood from
 *                                  one host cannot starve the others or the members)
 * @param maxPendingConnections     the same bound over all sources
 */
public record TcpTransportConfig(
        int maxFrameBytes,
        int outboundHighWaterMessages,
        int outboundLowWaterMessages,
        long outboundHighWaterBytes,
        long outboundLowWaterBytes,
        Duration connectTimeout,
        Duration reconnectBackoffMin,
        Duration reconnectBackoffMax,
        Duration handshakeTimeout,
        int ioThreads,
        IoMode ioMode,
        TlsConfig tls,
        int maxPendingConnectionsPerSource,
        int maxPendingConnections) {

    /** Frames smaller than this could not even carry a handshake. */
    public static final int MIN_FRAME_BYTES = 1024;
    /** Upper bound for {@link #maxFrameBytes}: frames are held whole in memory on both sides. */
    public static final int MAX_FRAME_BYTES_LIMIT = 1 << 30;

    public TcpTransportConfig {
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(reconnectBackoffMin, "reconnectBackoffMin");
        Objects.requireNonNull(reconnectBackoffMax, "reconnectBackoffMax");
        Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
        Objects.requireNonNull(ioMode, "ioMode");
        if (maxFrameBytes < MIN_FRAME_BYTES || maxFrameBytes > MAX_FRAME_BYTES_LIMIT) {
            throw new IllegalArgumentException("maxFrameBytes must be in [" + MIN_FRAME_BYTES + ", " + MAX_FRAME_BYTES_LIMIT + "], was " + maxFrameBytes);
        }
        if (outboundLowWaterMessages < 1 || outboundLowWaterMessages > outboundHighWaterMessages) {
            throw new IllegalArgumentException("outbound message watermarks need 1 <= low <= high, were low=" + outboundLowWaterMessages + " high=" + outboundHighWaterMessages);
        }
        if (outboundLowWaterBytes < 1 || outboundLowWaterBytes > outboundHighWaterBytes) {
            throw new IllegalArgumentException("outbound byte watermarks need 1 <= low <= high, were low=" + outboundLowWaterBytes + " high=" + outboundHighWaterBytes);
        }
        if (outboundHighWaterBytes < (long) maxFrameBytes + FrameFormat.HEADER_BYTES) {
            throw new IllegalArgumentException("outboundHighWaterBytes (" + outboundHighWaterBytes + ") must hold one frame of maxFrameBytes (" + maxFrameBytes + ") plus its "
                    + FrameFormat.HEADER_BYTES + "-byte header, or such a message could never be sent");
        }
        requirePositive("connectTimeout", connectTimeout);
        requirePositive("reconnectBackoffMin", reconnectBackoffMin);
        requirePositive("handshakeTimeout", handshakeTimeout);
        if (reconnectBackoffMax.compareTo(reconnectBackoffMin) < 0) {
            throw new IllegalArgumentException("reconnectBackoffMax (" + reconnectBackoffMax + ") must be >= reconnectBackoffMin (" + reconnectBackoffMin + ")");
        }
        if (ioThreads < 1) throw new IllegalArgumentException("ioThreads must be >= 1, was " + ioThreads);
        if (maxPendingConnectionsPerSource < 1 || maxPendingConnections < maxPendingConnectionsPerSource) {
            throw new IllegalArgumentException("pending connection limits need 1 <= per source <= total, were per source=" + maxPendingConnectionsPerSource
                    + " total=" + maxPendingConnections);
        }
    }

    private static void requirePositive(String name, Duration d) {
        if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be positive, was " + d);
    }

    /**
     * 16 MiB frames; 65,536 messages or 64 MiB queued per peer (drops until back under half of
     * that); 2 s connect timeout; redial after 50 ms doubling up to 2 s; 5 s handshake timeout;
     * half the cores (1 to 4) as I/O threads; the best available I/O mode; plaintext; at most 16
     * connections per source address and 256 in all waiting for their handshake.
     */
    public static TcpTransportConfig defaults() {
        int threads = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
        return new TcpTransportConfig(
                FrameFormat.DEFAULT_MAX_FRAME_BYTES,
                65_536, 32_768,
                64L << 20, 32L << 20,
                Duration.ofSeconds(2),
                Duration.ofMillis(50), Duration.ofSeconds(2),
                Duration.ofSeconds(5),
                threads,
                IoMode.AUTO,
                null,
                16, 256);
    }

    public TcpTransportConfig withMaxFrameBytes(int max) {
        return new TcpTransportConfig(max, outboundHighWaterMessages, outboundLowWaterMessages, outboundHighWaterBytes, outboundLowWaterBytes,
                connectTimeout, reconnectBackoffMin, reconnectBackoffMax, handshakeTimeout, ioThreads, ioMode, tls, maxPendingConnectionsPerSource, maxPendingConnections);
    }

    /** Sets the per-peer outbound queue bounds (high) and the levels at which sends resume (low). */
    public TcpTransportConfig withOutboundWatermarks(int highMessages, int lowMessages, long highBytes, long lowBytes) {
        return new TcpTransportConfig(maxFrameBytes, highMessages, lowMessages, highBytes, lowBytes,
                connectTimeout, reconnectBackoffMin, reconnectBackoffMax, handshakeTimeout, ioThreads, ioMode, tls, maxPendingConnectionsPerSource, maxPendingConnections);
    }

    public TcpTransportConfig withConnectTimeout(Duration timeout) {
        return new TcpTransportConfig(maxFrameBytes, outboundHighWaterMessages, outboundLowWaterMessages, outboundHighWaterBytes, outboundLowWaterBytes,
                timeout, reconnectBackoffMin, reconnectBackoffMax, handshakeTimeout, ioThreads, ioMode, tls, maxPendingConnectionsPerSource, maxPendingConnections);
    }

    public TcpTransportConfig withReconnectBackoff(Duration min, Duration max) {
        return new TcpTransportConfig(maxFrameBytes, outboundHighWaterMessages, outboundLowWaterMessages, outboundHighWaterBytes, outboundLowWaterBytes,
                connectTimeout, min, max, handshakeTimeout, ioThreads, ioMode, tls, maxPendingConnectionsPerSource, maxPendingConnections);
    }

    public TcpTransportConfig withHandshakeTimeout(Duration timeout) {
        return new TcpTransportConfig(maxFrameBytes, outboundHighWaterMessages, outboundLowWaterMessages, outboundHighWaterBytes, outboundLowWaterBytes,
                connectTimeout, reconnectBackoffMin, reconnectBackoffMax, timeout, ioThreads, ioMode, tls, maxPendingConnectionsPerSource, maxPendingConnections);
    }

    public TcpTransportConfig withIoThreads(int threads) {
        return new TcpTransportConfig(maxFrameBytes, outboundHighWaterMessages, outboundLowWaterMessages, outboundHighWaterBytes, outboundLowWaterBytes,
                connectTimeout, reconnectBackoffMin, reconnectBackoffMax, handshakeTimeout, threads, ioMode, tls, maxPendingConnectionsPerSource, maxPendingConnections);
    }

    public TcpTransportConfig withIoMode(IoMode mode) {
        return new TcpTransportConfig(maxFrameBytes, outboundHighWaterMessages, outboundLowWaterMessages, outboundHighWaterBytes, outboundLowWaterBytes,
                connectTimeout, reconnectBackoffMin, reconnectBackoffMax, handshakeTimeout, ioThreads, mode, tls, maxPendingConnectionsPerSource, maxPendingConnections);
    }

    /** Mutual TLS on every member connection ({@code null}: plaintext). */
    public TcpTransportConfig withTls(TlsConfig tls) {
        return new TcpTransportConfig(maxFrameBytes, outboundHighWaterMessages, outboundLowWaterMessages, outboundHighWaterBytes, outboundLowWaterBytes,
                connectTimeout, reconnectBackoffMin, reconnectBackoffMax, handshakeTimeout, ioThreads, ioMode, tls, maxPendingConnectionsPerSource, maxPendingConnections);
    }

    /** Bounds of accepted connections still waiting for their handshake, per source address and in all. */
    public TcpTransportConfig withPendingConnectionLimits(int perSource, int total) {
        return new TcpTransportConfig(maxFrameBytes, outboundHighWaterMessages, outboundLowWaterMessages, outboundHighWaterBytes, outboundLowWaterBytes,
                connectTimeout, reconnectBackoffMin, reconnectBackoffMax, handshakeTimeout, ioThreads, ioMode, tls, perSource, total);
    }
}
