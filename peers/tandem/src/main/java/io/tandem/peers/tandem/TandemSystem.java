package io.tandem.peers.tandem;

import io.tandem.kv.DurationText;
import io.tandem.kv.client.KvClientConfig;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.net.NodeStatus;
import io.tandem.kv.server.KvServer;
import io.tandem.kv.server.ServerConfig;
import io.tandem.peers.driver.ClientConfig;
import io.tandem.peers.driver.ClusterLayout;
import io.tandem.peers.driver.PeerClient;
import io.tandem.peers.driver.PeerSystem;
import io.tandem.peers.driver.Replica;
import io.tandem.peers.driver.ReplicaConfig;
import io.tandem.peers.driver.Role;
import io.tandem.transport.Endpoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Tandem itself as a system under test: a replica is the real KV server ({@link KvServer}: the KV state machine,
 * the node runtime, durable storage, the Netty TCP transport between peers and the client endpoint) running the
 * protocol engine this system names; the client is the real {@link TandemKvClient}. Replica {@code i} is node
 * {@code r<i>} with its peer port at offset {@value #PEER_PORT} and its client port at offset {@value #CLIENT_PORT}
 * of its port block.
 *
 * <p>Options: every {@code --opt key=value} of a replica is a KV server setting ({@link ServerConfig.Key}, e.g.
 * {@code election-timeout-min=300ms}), except the ones the layout decides; Raft replicas default to
 * {@code snapshot-threshold=1000000} (see {@link #BENCHMARK_SNAPSHOT_THRESHOLD}), MultiPaxos replicas to 250000
 * (see {@link #BENCHMARK_SNAPSHOT_THRESHOLD_MULTIPAXOS}), and every Tandem system to {@code state-machine=hashmap}
 * (see {@link #BENCHMARK_STATE_MACHINE}); a client takes {@code request-timeout}
 * (default 10 s: a put not acknowledged by then fails).
 */
public abstract sealed class TandemSystem implements PeerSystem permits TandemRaft, TandemRaftTls, TandemMultiPaxos, TandemUnreplicated {
    static final int PEER_PORT = 0;
    static final int CLIENT_PORT = 1;
    static final String CLUSTER = "peers";

    /** Settings the layout and the harness decide; an option may not override them. */
    private static final Set<String> FIXED = Set.of(ServerConfig.Key.ID.configName(), ServerConfig.Key.MEMBERS.configName(),
            ServerConfig.Key.CLIENT_MEMBERS.configName(), ServerConfig.Key.CLIENT_ADDRESS.configName(), ServerConfig.Key.CLIENT_PORT.configName(),
            ServerConfig.Key.DATA_DIR.configName(), ServerConfig.Key.FSYNC.configName(), ServerConfig.Key.PROTOCOL.configName());

    /**
     * Raft's {@code snapshot-threshold} unless an option sets it: at 50,000 puts/s about one snapshot per 20 s. The
     * server's default (10,000 entries) snapshots the state machine several times a second at that rate, on every
     * replica, while the jgroups-raft adapter snapshots only past a 1 GiB log and Ratis not at all within a run;
     * this keeps the comparison about replication. The in-memory log stays below about 200 MB of the 1 GiB heap.
     */
    static final long BENCHMARK_SNAPSHOT_THRESHOLD = 1_000_000;

    /**
     * MultiPaxos's {@code snapshot-threshold} unless an option sets it (session 17). With the server's default of
     * 10,000 slots every replica wrote a snapshot of the whole tree on its execution thread several times a second
     * (17-31 % of the execution thread's CPU in the window profile of {@code jmh/results/mp17-2026-11-28/}), stalling
     * each put behind it for a few milliseconds: the cause of most of its p99 gap to Raft, which ran at the
     * threshold above. MultiPaxos keeps more per slot between snapshots than Raft's log does (the acceptor's journal
     * and its in-memory votes, the replica's executed values kept for lagging peers: about 0.5 KB per 64 B put by a count of
     * the objects, not measured, against
     * Raft's ~0.2 KB per entry), so it gets the threshold that keeps about the same memory (~125 MB) rather than the
     * same count: one snapshot every ~2.5 s at 100,000 puts/s.
     */
    static final long BENCHMARK_SNAPSHOT_THRESHOLD_MULTIPAXOS = 250_000;

    /**
     * The KV state machine unless an option sets it (session 24): {@code hashmap}, because every peer adapter applies
     * a put to a {@code ConcurrentHashMap} (jgroups-raft's and Ratis' {@code MapStateMachine}, SOFAJRaft's
     * {@code KvStateMachine}, Aeron's {@code KvClusteredService}), while the server's default B+-tree costs a tree
     * descent per put on every replica (hot24's profile at 64 clients: 30 % of the leader's execution thread, 58 % of
     * each follower's). Like the snapshot threshold above, this keeps the comparison about replication. It needs the
     * sequential execution, so a run that asks for another execution mode keeps the server's default (the tree).
     */
    static final String BENCHMARK_STATE_MACHINE = "hashmap";

    private final String name;
    private final String protocol;

    TandemSystem(String name, String protocol) {
        this.name = name;
        this.protocol = protocol;
    }

    @Override
    public final String name() {
        return name;
    }

    /** The protocol registry name ({@code io.tandem.protocols.Protocols}) its servers run. */
    public final String protocol() {
        return protocol;
    }

    /** The directory of the cluster's TLS files ({@code tandem certs} layout), or null for plaintext. */
    java.nio.file.Path tlsDir(ClusterLayout layout) {
        return null;
    }

    /** Refuses a layout this system cannot run; every size is fine for the replicated engines. */
    void checkLayout(ClusterLayout layout) {}

    /**
     * This replica's role, from its server's engine-neutral status (the same for every engine): the
     * LEADER leads; a FOLLOWER that knows its leader follows; a candidate, or a follower that knows no
     * leader yet, is between.
     */
    final Role roleOf(NodeStatus status) {
        return switch (status.role()) {
            case "LEADER" -> Role.LEADER;
            case "FOLLOWER" -> status.leader() == null ? Role.OTHER : Role.FOLLOWER;
            default -> Role.OTHER;
        };
    }

    @Override
    public final Replica startReplica(ReplicaConfig config) {
        checkLayout(config.layout());
        KvServer server = KvServer.start(serverConfig(config));
        return new TandemReplica(server, this::roleOf);
    }

    @Override
    public final PeerClient connect(ClientConfig config) {
        checkLayout(config.layout());
        Duration requestTimeout = DurationText.parse(config.option("request-timeout", "10s"));
        for (String key : config.options().keySet()) {
            if (!key.equals("request-timeout")) throw new IllegalArgumentException(name + " client: unknown option '" + key + "' (known: request-timeout)");
        }
        List<Endpoint> members = new ArrayList<>();
        for (int i = 0; i < config.layout().replicas(); i++) members.add(clientAddress(config.layout(), i));
        KvClientConfig client = KvClientConfig.of(members)
                .withRequestTimeout(requestTimeout)
                .withMaxInFlight(Math.max(1024, config.concurrency()));
        java.nio.file.Path tls = tlsDir(config.layout());
        if (tls != null) client = client.withSecurity(io.tandem.kv.client.KvClientSecurity.fromDirectory(tls, TandemRaftTls.CLIENT));
        return new TandemPeerClient(TandemKvClient.connect(client));
    }

    /** The KV server settings of replica {@code config.id()}: as the {@code tandem server} flags of the same name. */
    ServerConfig serverConfig(ReplicaConfig config) {
        ClusterLayout layout = config.layout();
        Map<String, String> flags = new LinkedHashMap<>();
        config.options().forEach((key, value) -> {
            if (FIXED.contains(key)) throw new IllegalArgumentException(name + ": option '" + key + "' is decided by the cluster layout and --fsync, not by --opt");
            flags.put(key, value);
        });
        flags.put(ServerConfig.Key.ID.configName(), nodeId(config.id()));
        flags.put(ServerConfig.Key.MEMBERS.configName(), memberList(layout, PEER_PORT));
        flags.put(ServerConfig.Key.CLIENT_MEMBERS.configName(), memberList(layout, CLIENT_PORT));
        flags.put(ServerConfig.Key.DATA_DIR.configName(), config.dataDir().toString());
        flags.put(ServerConfig.Key.FSYNC.configName(), Boolean.toString(config.fsync()));
        flags.put(ServerConfig.Key.PROTOCOL.configName(), protocol);
        flags.putIfAbsent(ServerConfig.Key.CLUSTER.configName(), CLUSTER);
        String execution = flags.get(ServerConfig.Key.EXECUTION.configName());
        if (execution == null || execution.equals("sequential")) flags.putIfAbsent(ServerConfig.Key.STATE_MACHINE.configName(), BENCHMARK_STATE_MACHINE);
        if (protocol.startsWith("raft")) flags.putIfAbsent(ServerConfig.Key.SNAPSHOT_THRESHOLD.configName(), Long.toString(BENCHMARK_SNAPSHOT_THRESHOLD));
        if (protocol.equals("multipaxos")) flags.putIfAbsent(ServerConfig.Key.SNAPSHOT_THRESHOLD.configName(), Long.toString(BENCHMARK_SNAPSHOT_THRESHOLD_MULTIPAXOS));
        java.nio.file.Path tls = tlsDir(layout);
        if (tls != null) flags.put(ServerConfig.Key.TLS_DIR.configName(), tls.toString());
        return ServerConfig.load(null, flags);
    }

    static String nodeId(int replica) {
        return "r" + replica;
    }

    static Endpoint clientAddress(ClusterLayout layout, int replica) {
        return new Endpoint(layout.host(), layout.port(replica, CLIENT_PORT));
    }

    private static String memberList(ClusterLayout layout, int portOffset) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < layout.replicas(); i++) {
            if (i > 0) s.append(',');
            s.append(nodeId(i)).append('=').append(layout.host()).append(':').append(layout.port(i, portOffset));
        }
        return s.toString();
    }
}
