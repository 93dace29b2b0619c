package io.tandem.transport;

import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import java.util.Set;

/**
 * Moves protocol messages between the members of a group and replicates memory regions
 * (DESIGN §5). Implementations: {@link LocalTransport} (in-JVM), the simulator's network, TCP
 * (Netty) and RDMA; {@link FaultInjectingTransport} wraps any of them.
 *
 * <p>Messages to one peer arrive in the order they were sent, or not at all: a transport may drop
 * messages (outbox full, connection lost) and protocols recover on their own timers.
 */
public interface Transport extends AutoCloseable {
    NodeId self();

    /** The peers this transport can address now (excluding {@link #self()}). */
    Set<NodeId> peers();

    /**
     * Connects to {@code member} at {@code endpoint} from now on (run-time membership, DESIGN §2.1):
     * messages and region pushes to it are sent, and its own are accepted. Adding a current peer
     * changes nothing. In-JVM transports ignore the endpoint ({@link Endpoint#UNADDRESSED} is fine).
     *
     * @throws IllegalArgumentException if this transport needs an address and {@code endpoint} is not one
     */
    void addMember(NodeId member, Endpoint endpoint);

    /**
     * Disconnects from {@code member}: sends to it are refused, its messages and region writes are
     * refused on arrival, pending push completions to it fail, and our copies of its regions are
     * dropped. Removing a non-peer changes nothing.
     */
    void removeMember(NodeId member);

    /** Starts delivering inbound traffic to {@code listener}, from the transport's own threads. */
    void start(TransportListener listener);

    /**
     * Queues {@code message} for {@code to}. Never blocks and never throws.
     *
     * @return false if the message was dropped at once (unknown peer, outbox full, closed); a
     *         true result is no promise of delivery
     */
    boolean send(NodeId to, ProtocolMessage message);

    /**
     * From now until {@link #flushBatch()}, the calling thread's sends and region pushes are queued as
     * always but their I/O threads are not woken for each one: an event loop that sends several messages
     * per turn opens a batch at the turn's start and flushes it before it waits, so a turn's frames go to
     * each peer in one write and one wake-up instead of one each. A batch changes only <em>when</em>
     * queued frames are handed to the socket, never whether or in which order they go. Other threads'
     * sends are not held. A transport that writes at once ignores both (the default).
     */
    default void startBatch() {}

    /** Hands what the calling thread queued since {@link #startBatch()} to the I/O threads and ends its batch. */
    default void flushBatch() {}

    /** Memory regions with one-sided writes (SST support). */
    MemoryRegions regions();

    /** Stops all I/O and releases resources. Idempotent. */
    @Override
    void close();
}
