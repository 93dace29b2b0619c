package io.tandem.transport.tcp;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.NodeId;
import io.tandem.transport.Endpoint;
import io.tandem.transport.TransportSetup;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * TCP transports of a test cluster on loopback, one per member, each with its own
 * {@link Recorder} and meter registry. Members can be left unstarted, to be played by a raw socket.
 */
final class Cluster implements AutoCloseable {
    final String clusterName;
    final Map<NodeId, Endpoint> members = new LinkedHashMap<>();
    final KryoCodec codec = TestSupport.codec();
    private final TcpTransportConfig config;
    /** Per-member TLS settings, or null for plaintext. */
    private java.util.function.Function<NodeId, io.tandem.transport.tcp.tls.TlsConfig> tls;
    private final Map<NodeId, TcpTransport> transports = new HashMap<>();
    private final Map<NodeId, Recorder> recorders = new HashMap<>();
    private final Map<NodeId, SimpleMeterRegistry> registries = new HashMap<>();

    Cluster(TcpTransportConfig config, NodeId... ids) {
        this(TestSupport.CLUSTER, config, ids);
    }

    Cluster(String clusterName, TcpTransportConfig config, NodeId... ids) {
        this.clusterName = clusterName;
        this.config = config;
        int[] ports = TestSupport.freePorts(ids.length);
        for (int i = 0; i < ids.length; i++) members.put(ids[i], new Endpoint("127.0.0.1", ports[i]));
    }

    /** Builds and starts {@code id}'s transport (again, after {@link #stop}). */
    TcpTransport start(NodeId id) {
        SimpleMeterRegistry registry = registries.computeIfAbsent(id, k -> new SimpleMeterRegistry());
        TcpTransportConfig c = tls == null ? config : config.withTls(tls.apply(id));
        TcpTransport t = new TcpTransport(new TransportSetup(clusterName, id, members, codec, registry), c);
        Recorder r = new Recorder();
        t.start(r);
        transports.put(id, t);
        recorders.put(id, r);
        return t;
    }

    /** Members started from now on use mutual TLS with these settings. */
    void tlsFor(java.util.function.Function<NodeId, io.tandem.transport.tcp.tls.TlsConfig> perMember) {
        this.tls = perMember;
    }

    void startAll() {
        for (NodeId id : members.keySet()) start(id);
    }

    void stop(NodeId id) {
        TcpTransport t = transports.remove(id);
        if (t != null) t.close();
    }

    TcpTransport transport(NodeId id) {
        return transports.get(id);
    }

    Recorder recorder(NodeId id) {
        return recorders.get(id);
    }

    SimpleMeterRegistry registry(NodeId id) {
        return registries.get(id);
    }

    Endpoint endpoint(NodeId id) {
        return members.get(id);
    }

    /**
     * Sends a message from {@code a} to {@code b} and waits until it arrives; resends now and then,
     * since a message written into a connection that is just dying is lost (as the SPI allows).
     */
    void assertDelivers(NodeId a, NodeId b, long seq) {
        TcpTransport from = transports.get(a);
        long[] lastSend = {Long.MIN_VALUE};
        TestSupport.await(a + " -> " + b + " delivers seq " + seq, () -> {
            if (recorders.get(b).received(a, seq)) return true;
            long now = System.nanoTime();
            if (lastSend[0] == Long.MIN_VALUE || now - lastSend[0] > 250_000_000L) {
                from.send(b, new TestSupport.Seq(seq));
                lastSend[0] = now;
            }
            return false;
        }, () -> "(connected: " + from.isConnected(b) + ", stats of " + a + ": " + from.stats() + ")");
    }

    @Override
    public void close() {
        for (TcpTransport t : transports.values()) t.close();
        transports.clear();
    }
}
