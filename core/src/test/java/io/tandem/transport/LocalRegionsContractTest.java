package io.tandem.transport;

import io.tandem.codec.KryoCodec;
import io.tandem.engine.NodeId;
import java.util.LinkedHashMap;
import java.util.Map;

/** The memory-region contract over the in-JVM transport, on real threads. */
class LocalRegionsContractTest extends RegionsContract {
    @Override
    protected Fixture start() {
        LocalNetwork net = new LocalNetwork(MEMBERS, KryoCodec.builder().build());
        Map<NodeId, Transport> transports = new LinkedHashMap<>();
        for (NodeId n : MEMBERS) transports.put(n, net.transport(n));
        return new TransportFixture(transports, 2_000, () -> true);
    }
}
