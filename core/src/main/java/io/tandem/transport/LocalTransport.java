package io.tandem.transport;

import io.tandem.codec.CodecException;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import java.lang.foreign.MemorySegment;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-JVM transport: delivers on the sender's thread straight into the receiver's listener
 * (which only enqueues), so per-peer FIFO holds because each node sends from its single loop.
 * Region pushes are applied into the target's copy on the pusher's thread, so a push has landed
 * (or not) when {@code push} returns, and its completion is reported before it returns.
 */
public final class LocalTransport implements Transport {
    private static final Logger log = LoggerFactory.getLogger(LocalTransport.class);

    private final NodeId self;
    private final LocalNetwork network;
    private final Set<NodeId> peers = ConcurrentHashMap.newKeySet();
    private final RegionTable regions;
    private final MemoryRegions regionService = new Regions();
    private final AtomicLong nextPushId = new AtomicLong();
    private volatile TransportListener listener;
    private volatile boolean closed;

    LocalTransport(NodeId self, LocalNetwork network, Set<NodeId> members) {
        this.self = self;
        this.network = network;
        for (NodeId m : members) if (!m.equals(self)) peers.add(m);
        this.regions = new RegionTable(self, peers);
    }

    @Override
    public NodeId self() {
        return self;
    }

    @Override
    public Set<NodeId> peers() {
        return Set.copyOf(peers);
    }

    @Override
    public void start(TransportListener listener) {
        if (this.listener != null) throw new IllegalStateException("transport of " + self + " already started");
        this.listener = listener;
        network.attach(this);
    }

    @Override
    public boolean send(NodeId to, ProtocolMessage message) {
        // A contact message (a join request, derecho.md §5.4) may go to a node of the network outside the view.
        if (closed || !peers.contains(to) && !(message instanceof io.tandem.engine.ContactMessage)) return false;
        try {
            return network.deliver(self, to, message);
        } catch (CodecException e) {
            log.error("{} cannot send {} to {}: {}", self, message.getClass().getSimpleName(), to, e.getMessage());
            return false;
        }
    }

    @Override
    public void addMember(NodeId member, Endpoint endpoint) {
        if (member.equals(self)) return;
        regions.addPeer(member);
        peers.add(member);
    }

    @Override
    public void removeMember(NodeId member) {
        peers.remove(member);
        regions.removePeer(member);
    }

    /** A removed member's (or a stranger's) messages are refused, except contact messages (see {@link io.tandem.engine.ContactMessage}). */
    boolean receive(NodeId from, ProtocolMessage message) {
        TransportListener l = listener;
        if (closed || l == null || !peers.contains(from) && !(message instanceof io.tandem.engine.ContactMessage)) return false;
        l.onMessage(from, message);
        return true;
    }

    boolean receiveRegionWrite(NodeId from, String region, int offset, byte[] data) {
        TransportListener l = listener;
        if (closed || l == null || !peers.contains(from)) return false;
        // Reached the target: a frozen row or an unregistered region drops it there, by the target's rule.
        if (regions.apply(from, region, offset, data) == RegionTable.Outcome.APPLIED) l.onRegionWrite(from, region, offset, data.length);
        return true;
    }

    @Override
    public MemoryRegions regions() {
        return regionService;
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        network.detach(this);
    }

    private final class Regions implements MemoryRegions {
        @Override
        public MemorySegment register(String name, int sizeBytes) {
            return regions.register(name, sizeBytes);
        }

        @Override
        public MemorySegment local(String name) {
            return regions.local(name);
        }

        @Override
        public MemorySegment remote(NodeId peer, String name) {
            return regions.remote(peer, name);
        }

        @Override
        public void push(String name, int offset, int length) {
            push(name, offset, length, peers);
        }

        @Override
        public void push(String name, int offset, int length, Collection<NodeId> targets) {
            byte[] data = regions.snapshotRange(name, offset, length);
            if (closed) return;
            for (NodeId peer : regions.targets(targets)) network.deliverRegionWrite(self, peer, name, offset, data);
        }

        @Override
        public long pushWithCompletion(String name, int offset, int length, Collection<NodeId> targets) {
            byte[] data = regions.snapshotRange(name, offset, length);
            long id = nextPushId.incrementAndGet();
            TransportListener l = listener;
            for (NodeId target : targets.stream().distinct().sorted().toList()) {
                if (target.equals(self)) continue;
                boolean applied = !closed && peers.contains(target) && network.deliverRegionWrite(self, target, name, offset, data);
                if (l != null && !closed) l.onPushCompleted(id, name, target, applied);
            }
            return id;
        }

        @Override
        public void freeze(NodeId peer) {
            regions.freeze(peer);
        }

        @Override
        public boolean isFrozen(NodeId peer) {
            return regions.isFrozen(peer);
        }

        @Override
        public long peersVersion() {
            return regions.peersVersion();
        }

        @Override
        public long changes() {
            return regions.changes();
        }
    }
}
