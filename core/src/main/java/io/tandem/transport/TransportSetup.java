package io.tandem.transport;

import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.NodeId;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link TransportFactory} needs to build one node's transport.
 *
 * @param clusterName names the group; peers of another cluster are refused at the handshake
 * @param members     every member (including {@code self}) and where it listens
 */
public record TransportSetup(String clusterName, NodeId self, Map<NodeId, Endpoint> members, KryoCodec codec, MeterRegistry metrics) {
    public TransportSetup {
        Objects.requireNonNull(clusterName, "clusterName");
        Objects.requireNonNull(self, "self");
        members = Map.copyOf(members);
        Objects.requireNonNull(codec, "codec");
        Objects.requireNonNull(metrics, "metrics");
        if (!members.containsKey(self)) throw new IllegalArgumentException(self + " is not among the members " + members.keySet());
    }
}
