package io.tandem.transport.tcp;

/**
 * A snapshot of a {@link TcpTransport}'s counters, summed over peers; the same numbers are
 * published as Micrometer meters {@code tandem.transport.*} with {@code node} and {@code peer} (or
 * {@code reason}) tags. Frame and byte counts cover message and region-write frames (headers
 * included), not handshakes.
 *
 * @param framesSent           frames handed to the socket
 * @param bytesSent            their bytes
 * @param framesReceived       valid frames delivered
 * @param bytesReceived        their bytes
 * @param malformedFrames      connections closed for garbage, bad magic/version/type, an undecodable body
 * @param oversizedFrames      connections closed for a frame longer than the maximum
 * @param handshakeRejections  connections refused at the handshake (other cluster, unknown member, timeout...)
 * @param droppedSends         sends and region pushes dropped because a peer's outbound queue was full
 * @param failedSends          sends refused because the message could not be encoded or was too large
 * @param reconnects           dial attempts after the first, per peer this node dials
 * @param connectionsOpened    connections that completed their handshake
 * @param regionWritesRejected region writes naming a region or range this node does not have
 * @param flushes              drains that handed frames to the socket, each ending in one flush
 *                             ({@code framesSent / flushes} frames went per write on average)
 */
public record TcpTransportStats(
        long framesSent,
        long bytesSent,
        long framesReceived,
        long bytesReceived,
        long malformedFrames,
        long oversizedFrames,
        long handshakeRejections,
        long droppedSends,
        long failedSends,
        long reconnects,
        long connectionsOpened,
        long regionWritesRejected,
        long flushes) {}
