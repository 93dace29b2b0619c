package io.tandem.peers.tandem;

import static io.tandem.peers.driver.testing.PeerTestClusters.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.kv.client.TandemKvClient;
import io.tandem.peers.driver.ClientConfig;
import io.tandem.peers.driver.ClusterLayout;
import io.tandem.peers.driver.PeerClient;
import io.tandem.peers.driver.PeerSystem;
import io.tandem.peers.driver.ReplicaConfig;
import io.tandem.peers.driver.Role;
import io.tandem.peers.driver.testing.PeerTestClusters;
import io.tandem.peers.driver.testing.PeerTestClusters.Sockets;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real clusters of each Tandem system in this JVM, on free loopback ports: the real KV servers with the TCP
 * transport and file storage (fsync on), puts through the adapter's client, every one acknowledged, applied on
 * a majority and readable through the KV client, and exactly one replica reporting LEADER.
 */
class TandemPeerSystemTest {
    private static final int PUTS = 300;
    private static final int OUTSTANDING = 16;

    @TempDir Path dir;

    @Test
    void theJarFindsAllFourSystemsByName() {
        List<String> names = new ArrayList<>();
        for (PeerSystem s : ServiceLoader.load(PeerSystem.class)) names.add(s.name());
        assertThat(names).containsExactlyInAnyOrder("tandem-raft", "tandem-raft-tls", "tandem-multipaxos", "tandem-unreplicated");
    }

    @Test
    void raftClusterWithTlsAcknowledgesEveryPutAndHasOneLeader() throws Exception {
        runCluster(new TandemRaftTls(), 3, Map.of("election-timeout-min", "300ms", "election-timeout-max", "600ms"));
    }

    @Test
    void raftClusterAcknowledgesEveryPutAndHasOneLeader() throws Exception {
        runCluster(new TandemRaft(), 3, Map.of("election-timeout-min", "300ms", "election-timeout-max", "600ms"));
    }

    @Test
    void multiPaxosClusterAcknowledgesEveryPutAndHasOneLeader() throws Exception {
        runCluster(new TandemMultiPaxos(), 3, Map.of());
    }

    @Test
    void unreplicatedServerAcknowledgesEveryPutAndLeads() throws Exception {
        runCluster(new TandemUnreplicated(), 1, Map.of());
    }

    @Test
    void unreplicatedRefusesAnyOtherClusterSize() {
        ClusterLayout three = new ClusterLayout("127.0.0.1", 3, 40000);
        assertThatThrownBy(() -> new TandemUnreplicated().startReplica(new ReplicaConfig(0, three, dir, true, Map.of())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exactly one replica").hasMessageContaining("--replicas 1");
        assertThatThrownBy(() -> new TandemUnreplicated().connect(new ClientConfig(three, 4, Map.of())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--replicas 1");
    }

    @Test
    void optionsThatTheLayoutDecidesAreRefused() {
        ClusterLayout one = new ClusterLayout("127.0.0.1", 1, 40000);
        assertThatThrownBy(() -> new TandemRaft().serverConfig(new ReplicaConfig(0, one, dir, true, Map.of("fsync", "false"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'fsync'");
        assertThatThrownBy(() -> new TandemRaft().connect(new ClientConfig(one, 1, Map.of("bogus", "1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bogus");
        var config = new TandemRaft().serverConfig(new ReplicaConfig(0, one, dir, false, Map.of("election-timeout-min", "300ms", "election-timeout-max", "600ms")));
        assertThat(config.fsync()).isFalse();
        assertThat(config.protocol()).isEqualTo("raft");
        assertThat(config.peerAddress().port()).isEqualTo(one.port(0, TandemSystem.PEER_PORT));
        assertThat(config.clientAddress().port()).isEqualTo(one.port(0, TandemSystem.CLIENT_PORT));
        assertThat(config.protocolSettings().snapshotThreshold()).isEqualTo(TandemSystem.BENCHMARK_SNAPSHOT_THRESHOLD);
        var own = new TandemRaft().serverConfig(new ReplicaConfig(0, one, dir, false, Map.of("snapshot-threshold", "5000")));
        assertThat(own.protocolSettings().snapshotThreshold()).isEqualTo(5000);
        var paxos = new TandemMultiPaxos().serverConfig(new ReplicaConfig(0, one, dir, false, Map.of()));
        assertThat(paxos.protocolSettings().snapshotThreshold()).isEqualTo(TandemSystem.BENCHMARK_SNAPSHOT_THRESHOLD_MULTIPAXOS);
        var paxosOwn = new TandemMultiPaxos().serverConfig(new ReplicaConfig(0, one, dir, false, Map.of("snapshot-threshold", "5000")));
        assertThat(paxosOwn.protocolSettings().snapshotThreshold()).isEqualTo(5000);
    }

    @Test
    void theStateMachineIsAHashMapAsInEveryPeerUnlessAnOptionOrTheExecutionModeSaysOtherwise() {
        ClusterLayout one = new ClusterLayout("127.0.0.1", 1, 40000);
        for (TandemSystem system : List.of(new TandemRaft(), new TandemMultiPaxos(), new TandemUnreplicated())) {
            assertThat(system.serverConfig(new ReplicaConfig(0, one, dir, false, Map.of())).stateMachine()).as(system.name()).isEqualTo("hashmap");
        }
        var tree = new TandemRaft().serverConfig(new ReplicaConfig(0, one, dir, false, Map.of("state-machine", "btree")));
        assertThat(tree.stateMachine()).isEqualTo("btree");
        var psmr = new TandemRaft().serverConfig(new ReplicaConfig(0, one, dir, false, Map.of("execution", "psmr")));
        assertThat(psmr.stateMachine()).as("P-SMR runs the tree only").isEqualTo("btree");
        assertThatThrownBy(() -> new TandemRaft().serverConfig(new ReplicaConfig(0, one, dir, false, Map.of("execution", "psmr", "state-machine", "hashmap"))))
                .isInstanceOf(io.tandem.kv.server.ConfigException.class).hasMessageContaining("sequential execution only");
    }

    private void runCluster(TandemSystem system, int replicas, Map<String, String> options) throws Exception {
        ClusterLayout layout = PeerTestClusters.freeLayout(replicas, Sockets.TCP, TandemSystem.PEER_PORT, TandemSystem.CLIENT_PORT);
        List<TandemReplica> running = new ArrayList<>();
        try {
            for (int i = 0; i < replicas; i++) {
                Path data = Files.createDirectories(dir.resolve(system.name() + "-" + i));
                running.add((TandemReplica) system.startReplica(new ReplicaConfig(i, layout, data, true, options)));
            }
            await("one leader among " + system.name() + " replicas", Duration.ofSeconds(30), () -> leaders(running) == 1);

            try (PeerClient client = system.connect(new ClientConfig(layout, OUTSTANDING, Map.of()))) {
                // One buffer for every put, overwritten as soon as the put is handed over: the adapter must not
                // keep the caller's arrays. A put that fails (allowed during a leader change) is put again.
                byte[] value = new byte[64];
                PeerTestClusters.putAll(client, PUTS, OUTSTANDING, TandemPeerSystemTest::key, i -> {
                    ThreadLocalRandom.current().nextBytes(value);
                    value[0] = (byte) i;
                    return value;
                }, Duration.ofSeconds(60));
            }

            // Applied on a majority (each put is one log entry, besides the engine's own entries).
            int majority = replicas / 2 + 1;
            await(PUTS + " entries applied on a majority", Duration.ofSeconds(30), () ->
                    running.stream().filter(r -> r.server().status().appliedIndex() >= PUTS).count() >= majority);
            // Readable through the KV client (linearizable read at the leader), with the last value written.
            List<String> members = new ArrayList<>();
            for (int i = 0; i < replicas; i++) members.add(TandemSystem.clientAddress(layout, i).toString());
            var kvConfig = io.tandem.kv.client.KvClientConfig.of(members.toArray(String[]::new));
            Path tls = system.tlsDir(layout);
            if (tls != null) kvConfig = kvConfig.withSecurity(io.tandem.kv.client.KvClientSecurity.fromDirectory(tls, TandemRaftTls.CLIENT));
            try (TandemKvClient kv = TandemKvClient.connect(kvConfig)) {
                for (int i = 0; i < PUTS; i += 37) {
                    Optional<byte[]> read = kv.get(key(i));
                    assertThat(read).as("key %d", i).isPresent();
                    assertThat(read.get()).hasSize(64);
                    assertThat(read.get()[0]).isEqualTo((byte) i);
                }
            }
            assertThat(leaders(running)).isEqualTo(1);
        } finally {
            for (TandemReplica r : running) r.close();
        }
        assertThat(running).allMatch(r -> r.role() == Role.OTHER);
    }

    private static byte[] key(int i) {
        return ("key" + i).getBytes(StandardCharsets.US_ASCII);
    }

    private static long leaders(List<TandemReplica> replicas) {
        return replicas.stream().filter(r -> r.role() == Role.LEADER).count();
    }
}
