package io.tandem.peers.ratis;

import static io.tandem.peers.driver.testing.PeerTestClusters.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.peers.driver.ClientConfig;
import io.tandem.peers.driver.ClosedLoopDriver;
import io.tandem.peers.driver.ClusterLayout;
import io.tandem.peers.driver.PeerClient;
import io.tandem.peers.driver.PeerSystem;
import io.tandem.peers.driver.Replica;
import io.tandem.peers.driver.ReplicaConfig;
import io.tandem.peers.driver.Role;
import io.tandem.peers.driver.testing.PeerTestClusters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real three-server Ratis cluster in this JVM, driven through the adapter exactly as the load driver does. */
class RatisSystemTest {
    static final int PUTS = 300;

    @TempDir Path dir;

    @Test
    void putsCommitOnAMajorityAndExactlyOneReplicaLeads() throws Exception {
        PeerSystem system = PeerTestClusters.system("ratis");
        ClusterLayout layout = PeerTestClusters.freeLayout(3);
        List<Replica> replicas = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Path data = Files.createDirectories(dir.resolve("r" + i));
                replicas.add(system.startReplica(new ReplicaConfig(i, layout, data, true, Map.of())));
            }
            await("a leader", Duration.ofSeconds(30), () -> replicas.stream().filter(r -> r.role() == Role.LEADER).count() == 1
                    && replicas.stream().filter(r -> r.role() == Role.FOLLOWER).count() == 2);

            try (PeerClient client = system.connect(new ClientConfig(layout, 16, Map.of()))) {
                PeerTestClusters.putAll(client, PUTS, PUTS, ClosedLoopDriver::key, i -> ("v" + i).getBytes(), Duration.ofSeconds(60));
                assertThat(((RatisSystem.RatisClient) client).get(ClosedLoopDriver.key(PUTS - 1))).isEqualTo(("v" + (PUTS - 1)).getBytes());
            }
            // Acknowledged means committed, hence applied on a majority once the followers learn the commit index.
            await("every put applied on a majority", Duration.ofSeconds(30), () -> replicas.stream()
                    .filter(r -> ((RatisSystem.RatisReplica) r).stateMachine().size() == PUTS).count() >= 2);
            for (Replica r : replicas) {
                MapStateMachine sm = ((RatisSystem.RatisReplica) r).stateMachine();
                if (sm.size() == PUTS) assertThat(sm.applied(ClosedLoopDriver.key(7))).isEqualTo("v7".getBytes());
            }
            assertThat(replicas.stream().filter(r -> r.role() == Role.LEADER).count()).isEqualTo(1);
        } finally {
            for (Replica r : replicas) r.close();
        }
    }
}
