package io.tandem.transport.tcp;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.engine.NodeId;
import io.tandem.transport.Endpoint;
import io.tandem.transport.RegionsContract;
import io.tandem.transport.Transport;
import io.tandem.transport.TransportFixture;
import io.tandem.transport.TransportSetup;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtendWith;

/** The memory-region contract over TCP on loopback (ephemeral ports), on real threads. */
@ExtendWith(NettyLeakCheck.class)
class TcpRegionsContractTest extends RegionsContract {
    @Override
    protected Fixture start() {
        int[] ports = TestSupport.freePorts(MEMBERS.size());
        Map<NodeId, Endpoint> endpoints = new LinkedHashMap<>();
        for (int i = 0; i < MEMBERS.size(); i++) endpoints.put(MEMBERS.get(i), new Endpoint("127.0.0.1", ports[i]));
        Map<NodeId, Transport> transports = new LinkedHashMap<>();
        for (NodeId n : MEMBERS) {
            transports.put(n, new TcpTransport(new TransportSetup(TestSupport.CLUSTER, n, endpoints, TestSupport.codec(), new SimpleMeterRegistry()),
                    TcpTransportTest.fast()));
        }
        return new TransportFixture(transports, 2_000, () -> transports.entrySet().stream().allMatch(e ->
                MEMBERS.stream().allMatch(p -> p.equals(e.getKey()) || ((TcpTransport) e.getValue()).isConnected(p))));
    }
}
