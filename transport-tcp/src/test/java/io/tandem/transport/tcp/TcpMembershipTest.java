package io.tandem.transport.tcp;

import static io.tandem.transport.tcp.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.engine.NodeId;
import io.tandem.transport.Endpoint;
import io.tandem.transport.TransportSetup;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Members added and removed at run time: a joiner is dialed or accepted; a removed member is cut off and refused. */
@ExtendWith(NettyLeakCheck.class)
class TcpMembershipTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");
    private static final NodeId C = NodeId.of("c");
    private final List<TcpTransport> transports = new ArrayList<>();
    private final Map<NodeId, Endpoint> endpoints = new LinkedHashMap<>();

    @AfterEach
    void closeAll() {
        transports.forEach(TcpTransport::close);
    }

    private TcpTransport start(NodeId self, Recorder recorder, NodeId... members) {
        Map<NodeId, Endpoint> known = new LinkedHashMap<>();
        for (NodeId m : members) known.put(m, endpoints.get(m));
        TcpTransport t = new TcpTransport(new TransportSetup(TestSupport.CLUSTER, self, known, TestSupport.codec(), new SimpleMeterRegistry()), TcpTransportTest.fast());
        transports.add(t);
        t.start(recorder);
        return t;
    }

    @Test
    void aMemberAddedAtRunTimeIsConnectedAndARemovedOneIsCutOffAndRefused() {
        int[] ports = TestSupport.freePorts(3);
        endpoints.put(A, new Endpoint("127.0.0.1", ports[0]));
        endpoints.put(B, new Endpoint("127.0.0.1", ports[1]));
        endpoints.put(C, new Endpoint("127.0.0.1", ports[2]));
        Recorder atB = new Recorder();
        Recorder atC = new Recorder();
        TcpTransport b = start(B, atB, B, C);
        TcpTransport c = start(C, atC, B, C);
        // a joins: it knows the group (and, having the lowest id, dials b and c), but b and c do not know it yet.
        TcpTransport a = start(A, new Recorder(), A, B, C);
        await("b refuses the stranger a at the handshake", () -> b.stats().handshakeRejections() > 0);
        assertThat(b.peers()).containsExactly(C);

        b.addMember(A, endpoints.get(A));
        c.addMember(A, endpoints.get(A));
        assertThat(b.peers()).containsExactlyInAnyOrder(A, C);
        await("a connects to b and c once they added it", () -> a.isConnected(B) && a.isConnected(C) && b.isConnected(A));
        a.send(B, new TestSupport.Seq(1));
        await("b receives a's message", () -> atB.received(A, 1));

        long rejectionsBefore = b.stats().handshakeRejections();
        b.removeMember(A);
        assertThat(b.peers()).containsExactly(C);
        assertThat(b.send(A, new TestSupport.Seq(2))).as("sends to a removed member are refused").isFalse();
        // a keeps redialing b; b now refuses it at the handshake, so nothing a sends reaches b.
        await("b refuses the removed a when it redials", () -> b.stats().handshakeRejections() > rejectionsBefore);
        a.send(B, new TestSupport.Seq(3));
        await("a and c still talk", () -> {
            a.send(C, new TestSupport.Seq(4));
            return atC.received(A, 4);
        });
        assertThat(atB.received(A, 3)).isFalse();
        assertThat(atB.count(A)).isEqualTo(1);

        b.addMember(A, endpoints.get(A));
        await("a is let back in", () -> b.isConnected(A));
        await("b hears a again", () -> {
            a.send(B, new TestSupport.Seq(5));
            return atB.received(A, 5);
        });
    }
}
