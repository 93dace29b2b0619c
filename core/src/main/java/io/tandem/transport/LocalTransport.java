package io.tandem.transport;

import io.tandem.codec.CodecException;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-JVM transport: delivers on the sender's thread straight into the receiver's listener
 * (which only enqueues), so per-peer FIFO holds because each node sends from its single loop.
 */
public final class LocalTransport implements Transport {
    private static final Logger log = LoggerFactory.getLogger(LocalTransport.class);

    private final NodeId self;
    private final LocalNetwork network;
    private final Set<NodeId> peers;
    private final RegionTable regions;
    private final MemoryRegions regionService = new Regions();
    private volatile TransportListener listener;
    private volatile boolean closed;

    LocalTransport(NodeId self, LocalNetwork network) {
        this.self = self;
        this.network = network;
        Set<NodeId> others = new HashSet<>(network.members());
        others.remove(self);
        this.peers = Set.copyOf(others);
        this.regions = new RegionTable(self, peers);
    }

    @Override
    public NodeId self() {
        return self;
    }

    @Override
    public Set<NodeId> peers() {
        return peers;
    }

    @Override
    public void start(TransportListener listener) {
        if (this.listener != null) throw new IllegalStateException("transport of " + self + " already started");
        this.listener = listener;
        network.attach(this);
    }

    @Override
    public boolean send(NodeId to, ProtocolMessage message) {
        if (closed || !peers.contains(to)) return false;
        try {
            return network.deliver(self, to, message);
        } catch (CodecException e) {
            log.error("{} cannot send {} to {}: {}", self, message.getClass().getSimpleName(), to, e.getMessage());
            return false;
        }
    }

    boolean receive(NodeId from, ProtocolMessage message) {
        TransportListener l = listener;
        if (closed || l == null) return false;
        l.onMessage(from, message);
        return true;
    }

    boolean receiveRegionWrite(NodeId from, String region, int offset, byte[] data) {
        TransportListener l = listener;
        if (closed || l == null) return false;
        if (!regions.apply(from, region, offset, data)) return false;
        l.onRegionWrite(from, region, offset, data.length);
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
            byte[] data = regions.snapshotRange(name, offset, length);
            if (closed) return;
            for (NodeId peer : peers) network.deliverRegionWrite(self, peer, name, offset, data);
        }
    }
}
