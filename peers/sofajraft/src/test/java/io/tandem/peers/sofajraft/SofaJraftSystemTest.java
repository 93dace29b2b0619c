package io.tandem.peers.sofajraft;

import static io.tandem.peers.driver.testing.PeerTestClusters.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.peers.driver.ClientConfig;
import io.tandem.peers.driver.ClosedLoopDriver;
import io.tandem.peers.driver.ClusterLayout;
import io.tandem.peers.driver.PeerClient;
import io.tandem.peers.driver.ReplicaConfig;
import io.tandem.peers.driver.Role;
import io.tandem.peers.driver.testing.PeerTestClusters;
import io.tandem.peers.driver.testing.PeerTestClusters.Sockets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starts a real 3-node jraft group in this JVM and puts through the adapter's client. */
class SofaJraftSystemTest {
    private static final int PUTS = 300;
    private static final int CONCURRENCY = 8;

    @Test
    void isFoundByName() {
        assertThat(ServiceLoader.load(io.tandem.peers.driver.PeerSystem.class).stream().map(p -> p.get().name()))
                .contains("sofajraft");
    }

    @Test
    void putsAreAppliedOnAMajorityAndOneReplicaLeads(@TempDir Path dir) throws Exception {
        ClusterLayout layout = PeerTestClusters.freeLayout(3, Sockets.TCP, 0); // the adapter binds only offset 0
        SofaJraftSystem system = new SofaJraftSystem();
        List<SofaJraftReplica> replicas = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                replicas.add((SofaJraftReplica) system.startReplica(new ReplicaConfig(i, layout, dir.resolve("r" + i), false, Map.of())));
            }
            await("a leader", Duration.ofSeconds(30), () -> replicas.stream().filter(r -> r.role() == Role.LEADER).count() == 1
                    && replicas.stream().filter(r -> r.role() == Role.FOLLOWER).count() == 2);

            byte[][] values = new byte[PUTS][];
            for (int i = 0; i < PUTS; i++) values[i] = ("value-" + i).getBytes();
            try (PeerClient client = system.connect(new ClientConfig(layout, CONCURRENCY, Map.of()))) {
                // CONCURRENCY puts outstanding at a time, as the load driver's closed loop keeps them.
                PeerTestClusters.putAll(client, PUTS, CONCURRENCY, ClosedLoopDriver::key, i -> values[i], Duration.ofSeconds(60));
            }

            SofaJraftReplica leader = replicas.stream().filter(r -> r.role() == Role.LEADER).findFirst().orElseThrow();
            for (int i = 0; i < PUTS; i++) {
                assertThat(leader.stateMachine().get(ClosedLoopDriver.key(i))).as("put %d on the leader", i).isEqualTo(values[i]);
            }
            // Followers apply once the leader's next append or heartbeat carries the commit index.
            await("every put applied on a majority", Duration.ofSeconds(30), () -> {
                for (int i = 0; i < PUTS; i++) {
                    int copies = 0;
                    for (SofaJraftReplica r : replicas) {
                        if (Arrays.equals(r.stateMachine().get(ClosedLoopDriver.key(i)), values[i])) copies++;
                    }
                    if (copies < 2) return false;
                }
                return true;
            });
            assertThat(replicas.stream().filter(r -> r.role() == Role.LEADER).count()).isEqualTo(1);
        } finally {
            for (SofaJraftReplica r : replicas) r.close();
        }
    }
}
