package io.tandem.transport.tcp;

import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.transport.TransportListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** A listener that records what arrived, per sender. */
final class Recorder implements TransportListener {
    record RegionWrite(NodeId writer, String region, int offset, int length) {}

    private final Map<NodeId, List<ProtocolMessage>> messages = new ConcurrentHashMap<>();
    private final List<RegionWrite> regionWrites = new ArrayList<>();
    private final AtomicLong total = new AtomicLong();

    @Override
    public void onMessage(NodeId from, ProtocolMessage message) {
        List<ProtocolMessage> list = messages.computeIfAbsent(from, k -> new ArrayList<>());
        synchronized (list) {
            list.add(message);
        }
        total.incrementAndGet();
    }

    @Override
    public void onRegionWrite(NodeId writer, String region, int offset, int length) {
        synchronized (regionWrites) {
            regionWrites.add(new RegionWrite(writer, region, offset, length));
        }
    }

    List<ProtocolMessage> from(NodeId sender) {
        List<ProtocolMessage> list = messages.getOrDefault(sender, List.of());
        synchronized (list) {
            return List.copyOf(list);
        }
    }

    int count(NodeId sender) {
        List<ProtocolMessage> list = messages.getOrDefault(sender, List.of());
        synchronized (list) {
            return list.size();
        }
    }

    /** The sequence numbers of the {@link TestSupport.Seq} messages from {@code sender}, in arrival order. */
    List<Long> seqsFrom(NodeId sender) {
        return from(sender).stream().filter(m -> m instanceof TestSupport.Seq).map(m -> ((TestSupport.Seq) m).seq()).toList();
    }

    boolean received(NodeId sender, long seq) {
        return seqsFrom(sender).contains(seq);
    }

    long total() {
        return total.get();
    }

    List<RegionWrite> regionWrites() {
        synchronized (regionWrites) {
            return List.copyOf(regionWrites);
        }
    }
}
