package io.tandem.peers.jgroupsraft;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.peers.driver.ClientConfig;
import io.tandem.peers.driver.ClosedLoopDriver;
import io.tandem.peers.driver.ClusterLayout;
import io.tandem.peers.driver.PeerClient;
import io.tandem.peers.driver.PeerSystem;
import io.tandem.peers.driver.Replica;
import io.tandem.peers.driver.ReplicaConfig;
import io.tandem.peers.driver.Role;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real three-member jgroups-raft cluster (JGroups over loopback TCP) in this JVM, driven through the adapter exactly as the load driver does. */
class JGroupsRaftSystemTest {
    static final int PUTS = 300;

    @TempDir Path dir;

    @Test
    void putsCommitOnAMajorityAndExactlyOneReplicaLeads() throws Exception {
        PeerSystem system = ServiceLoader.load(PeerSystem.class).stream().map(ServiceLoader.Provider::get)
                .filter(s -> s.name().equals("jgroups-raft")).findFirst().orElseThrow();
        ClusterLayout layout = new ClusterLayout("127.0.0.1", 3, freeBasePort());
        List<Replica> replicas = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Path data = Files.createDirectories(dir.resolve("r" + i));
                replicas.add(system.startReplica(new ReplicaConfig(i, layout, data, true, Map.of())));
            }
            awaitTrue("a leader", 30, () -> replicas.stream().filter(r -> r.role() == Role.LEADER).count() == 1
                    && replicas.stream().filter(r -> r.role() == Role.FOLLOWER).count() == 2);

            try (PeerClient client = system.connect(new ClientConfig(layout, 16, Map.of()))) {
                putAll(client, 60);
            }
            // Acknowledged means committed (and applied on the leader); followers apply once they learn the commit index.
            awaitTrue("every put applied on a majority", 30, () -> replicas.stream()
                    .filter(r -> ((JGroupsRaftSystem.JGroupsRaftReplica) r).stateMachine().size() == PUTS).count() >= 2);
            for (Replica r : replicas) {
                MapStateMachine sm = ((JGroupsRaftSystem.JGroupsRaftReplica) r).stateMachine();
                if (sm.size() == PUTS) assertThat(sm.applied(ClosedLoopDriver.key(7))).isEqualTo("v7".getBytes());
            }
            assertThat(replicas.stream().filter(r -> r.role() == Role.LEADER).count()).isEqualTo(1);
        } finally {
            for (Replica r : replicas) r.close();
        }
    }

    /**
     * Puts key i -> "v" + i for every i below {@link #PUTS}, all in flight at once, and puts again any that
     * failed (the contract lets a put fail during a leader change, e.g. when a stalled leader is replaced), until
     * every one has been acknowledged or the deadline passes.
     */
    static void putAll(PeerClient client, int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Integer> pending = new ArrayList<>();
        for (int i = 0; i < PUTS; i++) pending.add(i);
        while (!pending.isEmpty()) {
            if (System.nanoTime() > deadline) throw new AssertionError(pending.size() + " puts still not acknowledged");
            Map<Integer, CompletableFuture<Void>> puts = new java.util.LinkedHashMap<>();
            for (int i : pending) puts.put(i, client.put(ClosedLoopDriver.key(i), ("v" + i).getBytes()));
            pending = new ArrayList<>();
            for (Map.Entry<Integer, CompletableFuture<Void>> e : puts.entrySet()) {
                try {
                    e.getValue().get(seconds, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException failed) {
                    pending.add(e.getKey());
                }
            }
        }
    }

    static void awaitTrue(String what, int seconds, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            TimeUnit.MILLISECONDS.sleep(20); // polling interval of the condition, not a wait for an event
        }
    }

    /**
     * A base port below Linux's ephemeral range (32768-60999, where another process's outgoing connection can
     * take a port between our check and our bind) whose whole block of ports is free now for every replica.
     */
    static int freeBasePort() throws Exception {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = 20000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(600) * ClusterLayout.PORTS_PER_REPLICA;
            boolean free = true;
            for (int port = base; port < base + 3 * ClusterLayout.PORTS_PER_REPLICA && free; port++) {
                try (ServerSocket s = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
                    free = true;
                } catch (java.io.IOException e) {
                    free = false;
                }
            }
            if (free) return base;
        }
        throw new IllegalStateException("no free port block");
    }
}
