package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.api.NotLeaderException;
import io.tandem.api.ReplicatedNode;
import io.tandem.api.Tandem;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import io.tandem.storage.memory.MemoryDisk;
import io.tandem.testing.Await;
import io.tandem.testing.RecordingStateMachine;
import io.tandem.transport.LocalNetwork;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MultiPaxos on the real runtime (NodeRuntime: event loop, execution thread, disk thread) with the
 * real storage (in memory with crash semantics, and on files) over the in-JVM transport through the
 * Kryo codec. Real time: every wait has a deadline.
 */
class MultiPaxosRuntimeTest {
    private static final List<String> THREE = List.of("n1", "n2", "n3");
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final MultiPaxosConfig CONFIG = MultiPaxosConfig.builder()
            .electionTimeout(Duration.ofMillis(150), Duration.ofMillis(300))
            .heartbeatInterval(Duration.ofMillis(30))
            .catchUpTimeout(Duration.ofMillis(100))
            .snapshotThreshold(50).logRetentionSlots(10).snapshotChunkBytes(256)
            .build();

    private final Map<String, ReplicatedNode> nodes = new TreeMap<>();
    private final Map<String, RecordingStateMachine> machines = new TreeMap<>();
    private final Map<String, SimpleMeterRegistry> meters = new TreeMap<>();
    private String lastAcceptedBy;
    private long sequence;

    @AfterEach
    void closeAll() {
        nodes.values().forEach(ReplicatedNode::close);
    }

    private static LocalNetwork network(List<String> names) {
        KryoCodec.Builder codec = KryoCodec.builder();
        new MultiPaxosProtocol().registerMessages(codec);
        return new LocalNetwork(names.stream().map(NodeId::of).toList(), codec.build());
    }

    private void start(LocalNetwork net, String id, MultiPaxosConfig config, MemoryDisk disk, Path dir) {
        RecordingStateMachine sm = new RecordingStateMachine();
        var builder = Tandem.node().id(id).members(THREE.toArray(String[]::new))
                .protocol(new MultiPaxosProtocol(config))
                .transport(setup -> net.transport(setup.self()))
                .requestTimeout(Duration.ofSeconds(2))
                .stateMachine(sm)
                .meterRegistry(meters.computeIfAbsent(id, k -> new SimpleMeterRegistry()));
        builder = disk != null ? builder.inMemoryStorage(disk) : builder.dataDir(dir.resolve(id));
        nodes.put(id, builder.start());
        machines.put(id, sm);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /**
     * Submits through whichever node leads, following NotLeader hints, until it succeeds. Every command
     * has its own client session, so a retry of a command that was in fact chosen (its first attempt
     * timed out during a leader change) applies once.
     */
    private byte[] submit(byte[] command) {
        ClientRequest.Session session = new ClientRequest.Session(1, ++sequence);
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        String target = lastAcceptedBy != null && nodes.containsKey(lastAcceptedBy) ? lastAcceptedBy : nodes.keySet().iterator().next();
        while (System.nanoTime() < deadline) {
            try {
                byte[] result = nodes.get(target).submit(command, session).join();
                lastAcceptedBy = target;
                return result;
            } catch (CompletionException e) {
                if (e.getCause() instanceof NotLeaderException n && n.leaderHint().isPresent() && nodes.containsKey(n.leaderHint().get().value())
                        && !n.leaderHint().get().value().equals(target)) {
                    target = n.leaderHint().get().value();
                } else {
                    List<String> names = new ArrayList<>(nodes.keySet());
                    target = names.get((names.indexOf(target) + 1) % names.size());
                    Thread.onSpinWait();
                }
            }
        }
        throw new AssertionError("no node accepted the command within " + DEADLINE);
    }

    private void awaitSameState() {
        Await.until(DEADLINE, () -> machines.values().stream().map(m -> m.applied).distinct().count() == 1,
                () -> "applied " + machines.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue().applied.size()).toList());
    }

    private void assertEveryNodeReadsEverything(int commands) {
        awaitSameState();
        String all = String.join(",", machines.values().iterator().next().applied);
        assertThat(machines.values().iterator().next().applied).hasSize(commands);
        for (ReplicatedNode n : nodes.values()) {
            // Reads need no leader: any node asks a quorum of acceptors and reads at its own replica.
            assertThat(text(n.query(new byte[0], ReadPolicy.LINEARIZABLE).join())).as(n.id().value()).isEqualTo(all);
            assertThat(text(n.query(new byte[0], ReadPolicy.LEASE).join())).as(n.id().value()).isEqualTo(all);
            assertThat(text(n.query(new byte[0], ReadPolicy.stale(commands)).join())).as(n.id().value()).isEqualTo(all);
        }
    }

    @Test
    void threeNodesReplicateAndEveryNodeServesEveryReadPolicy() {
        LocalNetwork net = network(THREE);
        for (String id : THREE) start(net, id, CONFIG, new MemoryDisk(), null);
        for (int i = 1; i <= 120; i++) assertThat(text(submit(utf8("c" + i)))).isEqualTo(Integer.toString(i));
        assertEveryNodeReadsEverything(120);
        // A read invoked after a write completed sees it, on every node (the write's slot is below the acceptors' watermark).
        for (int i = 121; i <= 130; i++) {
            submit(utf8("c" + i));
            for (ReplicatedNode n : nodes.values()) assertThat(text(n.query(new byte[0], ReadPolicy.LINEARIZABLE).join())).endsWith("c" + i);
        }
    }

    @Test
    void readsThroughTheLogAreServedWhereTheyExecute() {
        LocalNetwork net = network(THREE);
        MultiPaxosConfig logReads = CONFIG.toBuilder().linearizableReads(MultiPaxosConfig.ReadPath.LOG).build();
        for (String id : THREE) start(net, id, logReads, new MemoryDisk(), null);
        for (int i = 1; i <= 30; i++) submit(utf8("r" + i));
        awaitSameState();
        String all = String.join(",", machines.get(lastAcceptedBy).applied);
        // Ordered through the log: only the leader accepts them.
        assertThat(text(nodes.get(lastAcceptedBy).query(new byte[0], ReadPolicy.LINEARIZABLE).join())).isEqualTo(all);
    }

    @Test
    void aCrashedLeaderRestartsFromItsDiskAndCatchesUpFromASnapshot() {
        LocalNetwork net = network(THREE);
        Map<String, MemoryDisk> disks = new TreeMap<>();
        // The leader keeps only the last 16 chosen values for replicas that missed them, so a replica far behind needs a snapshot.
        MultiPaxosConfig config = CONFIG.toBuilder().windowSlots(16).maxReplicaLagSlots(32).retainedChosenSlots(16).build();
        for (String id : THREE) {
            disks.put(id, new MemoryDisk());
            start(net, id, config, disks.get(id), null);
        }
        for (int i = 1; i <= 100; i++) submit(utf8("a" + i));
        String old = lastAcceptedBy;
        nodes.remove(old).close();
        machines.remove(old);
        disks.get(old).crash();
        for (int i = 1; i <= 150; i++) submit(utf8("b" + i)); // a new leader; the others snapshot and compact far beyond the old one
        assertThat(lastAcceptedBy).isNotEqualTo(old);
        meters.remove(old);
        start(net, old, config, disks.get(old), null);
        awaitSameState();
        assertThat(machines.get(old).applied).hasSize(250);
        // The peers keep only 10 slots behind their snapshots: the restarted replica needed a snapshot from one of them. The
        // state machine is restored before the engine hears of it, so the engine's count may lag the state a little.
        Await.until(DEADLINE, () -> meters.get(old).get("tandem.multipaxos.replica.snapshots_installed").counter().count() >= 1,
                () -> "no snapshot was installed on " + old);
        submit(utf8("after"));
        assertEveryNodeReadsEverything(251);
    }

    @Test
    void theGroupRestartsFromFilesAfterEveryNodeStopped(@TempDir Path dir) {
        LocalNetwork net = network(THREE);
        for (String id : THREE) start(net, id, CONFIG, null, dir);
        for (int i = 1; i <= 130; i++) submit(utf8("x" + i));
        awaitSameState();
        for (ReplicatedNode n : nodes.values()) n.close();
        nodes.clear();
        machines.clear();
        for (String id : THREE) start(net, id, CONFIG, null, dir);
        submit(utf8("y"));
        awaitSameState();
        assertThat(machines.values().iterator().next().applied).hasSize(131).endsWith("y");
        assertEveryNodeReadsEverything(131);
    }

    @Test
    void aRestartedNodeNeverAnswersNewRequestsWithTheResultsOfItsPreviousLife() {
        LocalNetwork net = network(THREE);
        Map<String, MemoryDisk> disks = new TreeMap<>();
        MultiPaxosConfig noSnapshots = CONFIG.toBuilder().snapshotThreshold(1_000_000).build();
        for (String id : THREE) {
            disks.put(id, new MemoryDisk());
            start(net, id, noSnapshots, disks.get(id), null);
        }
        for (int i = 1; i <= 40; i++) submit(utf8("p" + i));
        String origin = lastAcceptedBy; // it originated every command: request ids 1..40 of its first life
        nodes.remove(origin).close();
        machines.remove(origin);
        disks.get(origin).crash();
        start(net, origin, noSnapshots, disks.get(origin), null);
        // Its replica re-executes slots 1..40 (no snapshot), whose commands carry the request ids of its first life. A new
        // request of this life must get its own answer, not that of an old command with the same id.
        String answer = text(nodes.get(origin).query(new byte[0], ReadPolicy.LINEARIZABLE).join());
        assertThat(answer).startsWith("p1,p2,p3");
    }
}
