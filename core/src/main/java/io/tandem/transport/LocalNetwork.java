package io.tandem.transport;

import io.tandem.codec.CodecException;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-JVM network joining {@link LocalTransport}s. By default every message is encoded and decoded
 * with the group's codec, exactly as over TCP, so an unregistered or unserializable message fails
 * in unit tests rather than in production; {@code byReference} skips that for speed.
 */
public final class LocalNetwork {
    private final KryoCodec codec;
    private final boolean byReference;
    private final Set<NodeId> members;
    private final Map<NodeId, LocalTransport> attached = new ConcurrentHashMap<>();
    private final AtomicLong decodeFailures = new AtomicLong();

    public LocalNetwork(Collection<NodeId> members, KryoCodec codec) {
        this(members, codec, false);
    }

    public LocalNetwork(Collection<NodeId> members, KryoCodec codec, boolean byReference) {
        this.members = Set.copyOf(members);
        this.codec = codec;
        this.byReference = byReference;
    }

    /**
     * An in-JVM network for {@code members} running {@code protocol}: the codec knows the protocol's
     * messages (and the runtime's), so nothing else needs setting up. Use it with
     * {@code Tandem.node()...transport(network.factory())}.
     */
    public static LocalNetwork of(io.tandem.engine.Protocol protocol, String... members) {
        KryoCodec.Builder codec = KryoCodec.builder();
        protocol.registerMessages(codec);
        return new LocalNetwork(java.util.Arrays.stream(members).map(NodeId::of).toList(), codec.build());
    }

    /** The transport factory of this network, for {@code NodeBuilder.transport}: each node gets its own transport. */
    public TransportFactory factory() {
        return this::transport;
    }

    /** Creates the transport of {@code member}, whose peers are this network's members; it receives traffic once started. */
    public LocalTransport transport(NodeId member) {
        if (!members.contains(member)) throw new IllegalArgumentException(member + " is not a member of this network " + members);
        return new LocalTransport(member, this, members);
    }

    /**
     * Creates the transport of {@code setup.self()}, whose peers are {@code setup.members()}: for a
     * node that joins later, or a group whose members know different member lists; members can be
     * added and removed at run time ({@link Transport#addMember}).
     */
    public LocalTransport transport(TransportSetup setup) {
        return new LocalTransport(setup.self(), this, setup.members().keySet());
    }

    Set<NodeId> members() {
        return members;
    }

    void attach(LocalTransport t) {
        LocalTransport previous = attached.putIfAbsent(t.self(), t);
        if (previous != null && previous != t) throw new IllegalStateException(t.self() + " is already attached to this network");
    }

    void detach(LocalTransport t) {
        attached.remove(t.self(), t);
    }

    boolean deliver(NodeId from, NodeId to, ProtocolMessage message) {
        LocalTransport target = attached.get(to);
        if (target == null) return false;
        ProtocolMessage delivered = message;
        if (!byReference) {
            try {
                delivered = (ProtocolMessage) codec.decode(codec.encode(message));
            } catch (CodecException e) {
                decodeFailures.incrementAndGet();
                throw e; // a sender bug (unregistered type): surface it to the caller's tests
            }
        }
        return target.receive(from, delivered);
    }

    boolean deliverRegionWrite(NodeId from, NodeId to, String region, int offset, byte[] data) {
        LocalTransport target = attached.get(to);
        return target != null && target.receiveRegionWrite(from, region, offset, data);
    }

    public long decodeFailures() {
        return decodeFailures.get();
    }
}
