package io.tandem.protocols.raft;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raft on the real runtime (NodeRuntime: event loop, execution thread, disk thread) with the real
 * storage (in memory with crash semantics, and on files) over the in-JVM transport through the
 * Kryo codec. Real time: every wait has a deadline.
 */
class RaftRuntimeTest {
    private static final List<String> THREE = List.of("n1", "n2", "n3");
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final RaftConfig CONFIG = RaftConfig.builder()
            .electionTimeout(Duration.ofMillis(150), Duration.ofMillis(300))
            .heartbeatInterval(Duration.ofMillis(30))
            .maxClockDrift(Duration.ofMillis(20))
            .snapshotThreshold(50).logRetentionEntries(10).snapshotChunkBytes(256)
            .build();

    private final Map<String, ReplicatedNode> nodes = new TreeMap<>();
    private final Map<String, RecordingStateMachine> machines = new TreeMap<>();

    @AfterEach
    void closeAll() {
        nodes.values().forEach(ReplicatedNode::close);
    }

    private static LocalNetwork network(List<String> names) {
        KryoCodec.Builder codec = KryoCodec.builder();
        new RaftProtocol().registerMessages(codec);
        return new LocalNetwork(names.stream().map(NodeId::of).toList(), codec.build());
    }

    private void start(LocalNetwork net, String id, List<String> members, RaftConfig config, MemoryDisk disk, Path dir) {
        RecordingStateMachine sm = new RecordingStateMachine();
        var builder = Tandem.node().id(id).members(members.toArray(String[]::new))
                .protocol(new RaftProtocol(config))
                .transport(setup -> net.transport(setup.self()))
                .requestTimeout(Duration.ofSeconds(2))
                .stateMachine(sm);
        builder = disk != null ? builder.inMemoryStorage(disk) : builder.dataDir(dir.resolve(id));
        nodes.put(id, builder.start());
        machines.put(id, sm);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The test's one client: every command its own sequence number, so a retry after a timeout applies once. */
    private long nextSequence = 1;

    /**
     * Submits through whichever node leads, following NotLeader hints, until it succeeds. A request that timed out
     * (a slow machine: the request timeout is 2 s) may still have been applied; the retry carries the same session,
     * so the exactly-once table answers it instead of applying it again, and the tests can count what was applied.
     */
    private byte[] submit(byte[] command) {
        ClientRequest.Session session = new ClientRequest.Session(1, nextSequence++);
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        String target = nodes.keySet().iterator().next();
        while (System.nanoTime() < deadline) {
            ReplicatedNode node = nodes.get(target);
            try {
                return node.submit(command, session).join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof NotLeaderException n && n.leaderHint().isPresent() && nodes.containsKey(n.leaderHint().get().value())) {
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

    /** The member whose engine says it leads in the highest epoch (an old leader may not have heard yet). */
    private String leader() {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            String best = null;
            long epoch = -1;
            for (var e : nodes.entrySet()) {
                var status = e.getValue().status().join();
                if (status.isLeader() && status.epoch() > epoch) {
                    best = e.getKey();
                    epoch = status.epoch();
                }
            }
            if (best != null) return best;
            Thread.onSpinWait();
        }
        throw new AssertionError("no member led within " + DEADLINE);
    }

    private void awaitSameState() {
        Await.until(DEADLINE, () -> machines.values().stream().map(m -> m.applied).distinct().count() == 1,
                () -> "applied " + machines.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue().applied.size()).toList());
    }

    @Test
    void threeNodesReplicateAndServeEveryReadPolicy() {
        LocalNetwork net = network(THREE);
        for (String id : THREE) start(net, id, THREE, CONFIG, new MemoryDisk(), null);
        for (int i = 1; i <= 120; i++) assertThat(new String(submit(utf8("c" + i)), StandardCharsets.UTF_8)).isEqualTo(Integer.toString(i));
        awaitSameState();
        String leader = leader();
        String all = String.join(",", machines.get(leader).applied);
        assertThat(new String(nodes.get(leader).query(new byte[0], ReadPolicy.LINEARIZABLE).join(), StandardCharsets.UTF_8)).isEqualTo(all);
        assertThat(new String(nodes.get(leader).query(new byte[0], ReadPolicy.LEASE).join(), StandardCharsets.UTF_8)).isEqualTo(all);
        String follower = THREE.stream().filter(n -> !n.equals(leader)).findFirst().orElseThrow();
        long applied = nodes.get(leader).appliedIndex();
        assertThat(new String(nodes.get(follower).query(new byte[0], ReadPolicy.stale(applied)).join(), StandardCharsets.UTF_8)).isEqualTo(all);
    }

    @Test
    void aCrashedLeaderRestartsFromItsDiskAndCatchesUpFromASnapshot() {
        LocalNetwork net = network(THREE);
        Map<String, MemoryDisk> disks = new TreeMap<>();
        for (String id : THREE) {
            disks.put(id, new MemoryDisk());
            start(net, id, THREE, CONFIG, disks.get(id), null);
        }
        for (int i = 1; i <= 100; i++) submit(utf8("a" + i));
        String old = leader();
        nodes.remove(old).close();
        machines.remove(old);
        disks.get(old).crash();
        for (int i = 1; i <= 150; i++) submit(utf8("b" + i)); // the others compact far beyond what the old leader holds
        start(net, old, THREE, CONFIG, disks.get(old), null);
        awaitSameState();
        assertThat(machines.get(old).applied).hasSize(250);
        submit(utf8("after"));
        awaitSameState();
    }

    @Test
    void theGroupRestartsFromFilesAfterEveryNodeStopped(@TempDir Path dir) {
        LocalNetwork net = network(THREE);
        for (String id : THREE) start(net, id, THREE, CONFIG, null, dir);
        for (int i = 1; i <= 130; i++) submit(utf8("x" + i));
        awaitSameState();
        for (ReplicatedNode n : nodes.values()) n.close();
        nodes.clear();
        machines.clear();
        for (String id : THREE) start(net, id, THREE, CONFIG, null, dir);
        submit(utf8("y"));
        awaitSameState();
        assertThat(machines.values().iterator().next().applied).hasSize(131).endsWith("y");
    }

    @Test
    void membershipChangesAndLeadershipTransferThroughOrdinarySubmits() {
        List<String> four = List.of("n1", "n2", "n3", "n4");
        LocalNetwork net = network(four);
        RaftConfig config = CONFIG.toBuilder().initialVoters(Set.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"))).build();
        for (String id : four) start(net, id, four, config, new MemoryDisk(), null);
        for (int i = 1; i <= 80; i++) submit(utf8("m" + i));
        submit(RaftAdmin.addLearner(NodeId.of("n4")));
        awaitSameState(); // the learner caught up, from a snapshot
        assertThat(machines.get("n4").applied).hasSize(80).doesNotContain(new String(RaftAdmin.addLearner(NodeId.of("n4")), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (true) { // a learner is promoted only once the leader knows it caught up
            try {
                nodes.get(leader()).submit(RaftAdmin.promote(NodeId.of("n4"))).join();
                break;
            } catch (CompletionException e) {
                if (System.nanoTime() > deadline) throw e;
            }
        }
        nodes.get(leader()).submit(RaftAdmin.transferLeadership(NodeId.of("n4"))).join();
        Await.until(DEADLINE, () -> leader().equals("n4"), () -> "leader is " + leader());
        submit(utf8("led by n4"));
        awaitSameState();
    }
}
