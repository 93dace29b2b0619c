package io.tandem.peers.aeron;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.peers.driver.ClientConfig;
import io.tandem.peers.driver.ClosedLoopDriver;
import io.tandem.peers.driver.ClusterLayout;
import io.tandem.peers.driver.PeerClient;
import io.tandem.peers.driver.ReplicaConfig;
import io.tandem.peers.driver.Role;
import java.io.IOException;
import java.net.InetAddress;
import java.net.DatagramSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starts a real 3-member Aeron Cluster in this JVM (three media drivers) and puts through the adapter's client. */
class AeronClusterSystemTest {
    private static final int PUTS = 300;
    private static final int CONCURRENCY = 8;

    @Test
    void isFoundByName() {
        assertThat(ServiceLoader.load(io.tandem.peers.driver.PeerSystem.class).stream().map(p -> p.get().name()))
                .contains("aeron-cluster");
    }

    @Test
    void putsAreAppliedOnAMajorityAndOneReplicaLeads(@TempDir Path dir) throws Exception {
        ClusterLayout layout = new ClusterLayout("127.0.0.1", 3, freeBasePort(3));
        AeronClusterSystem system = new AeronClusterSystem();
        List<AeronReplica> replicas = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                replicas.add((AeronReplica) system.startReplica(new ReplicaConfig(i, layout, dir.resolve("r" + i), false, Map.of())));
            }
            await("a leader", () -> replicas.stream().filter(r -> r.role() == Role.LEADER).count() == 1
                    && replicas.stream().filter(r -> r.role() == Role.FOLLOWER).count() == 2);

            byte[][] values = new byte[PUTS][];
            try (PeerClient client = system.connect(new ClientConfig(layout, CONCURRENCY, Map.of()))) {
                // CONCURRENCY puts outstanding at a time, as the load driver's closed loop keeps them.
                for (int start = 0; start < PUTS; start += CONCURRENCY) {
                    List<CompletableFuture<Void>> batch = new ArrayList<>();
                    for (int i = start; i < Math.min(PUTS, start + CONCURRENCY); i++) {
                        values[i] = ("value-" + i).getBytes();
                        batch.add(client.put(ClosedLoopDriver.key(i), values[i]));
                    }
                    CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
                }
            }

            AeronReplica leader = replicas.stream().filter(r -> r.role() == Role.LEADER).findFirst().orElseThrow();
            for (int i = 0; i < PUTS; i++) {
                assertThat(leader.service().get(ClosedLoopDriver.key(i))).as("put %d on the leader", i).isEqualTo(values[i]);
            }
            // Followers apply once the commit position reaches them.
            await("every put applied on a majority", () -> {
                for (int i = 0; i < PUTS; i++) {
                    int copies = 0;
                    for (AeronReplica r : replicas) {
                        if (Arrays.equals(r.service().get(ClosedLoopDriver.key(i)), values[i])) copies++;
                    }
                    if (copies < 2) return false;
                }
                return true;
            });
            assertThat(replicas.stream().filter(r -> r.role() == Role.LEADER).count()).isEqualTo(1);
        } finally {
            for (AeronReplica r : replicas) r.close();
        }
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            TimeUnit.MILLISECONDS.sleep(20); // polling interval of a condition with a deadline
        }
    }

    /** A base port whose fixed UDP ports (offsets 0-4 of each replica) are free now. */
    static int freeBasePort(int replicas) {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = 20000 + ThreadLocalRandom.current().nextInt(600) * ClusterLayout.PORTS_PER_REPLICA; // below the ephemeral range
            ClusterLayout layout = new ClusterLayout("127.0.0.1", replicas, base);
            boolean free = true;
            for (int i = 0; i < replicas && free; i++) {
                for (int offset = 0; offset <= AeronSettings.ARCHIVE_CONTROL && free; offset++) free = udpPortFree(layout.port(i, offset));
            }
            if (free) return base;
        }
        throw new IllegalStateException("no free port range found");
    }

    private static boolean udpPortFree(int port) {
        try (DatagramSocket socket = new DatagramSocket(port, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
