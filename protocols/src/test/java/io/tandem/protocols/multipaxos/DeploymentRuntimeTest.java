package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.api.ReplicatedNode;
import io.tandem.api.Tandem;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import io.tandem.protocols.testing.CounterMachine;
import io.tandem.roles.Deployment;
import io.tandem.roles.DeploymentException;
import io.tandem.testing.Await;
import io.tandem.transport.LocalNetwork;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MultiPaxos on the real runtime with its roles on different members, as a deployment file says:
 * proposers on n1 and n2, acceptors on n3..n5, replicas on n1..n3, frontends on n1 and n2. Requests
 * submitted on a member without a frontend are redirected to one by the role host and forwarded
 * there by the runtime; only the replicas execute.
 */
class DeploymentRuntimeTest {
    private static final List<String> FIVE = List.of("n1", "n2", "n3", "n4", "n5");
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final MultiPaxosConfig CONFIG = MultiPaxosConfig.builder()
            .electionTimeout(Duration.ofMillis(150), Duration.ofMillis(300)).heartbeatInterval(Duration.ofMillis(30)).build();

    private final Map<String, ReplicatedNode> nodes = new TreeMap<>();

    @AfterEach
    void closeAll() {
        nodes.values().forEach(ReplicatedNode::close);
    }

    @Test
    void rolesPlacedByAFileOnDifferentMembersServeRequestsSubmittedOnEveryMember(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("separated.conf"), MultiPaxosSimulationTest.SEPARATED);
        MultiPaxosProtocol protocol = new MultiPaxosProtocol(CONFIG).withDeployment(Deployment.read(file, MultiPaxosProtocol.ROLES));
        KryoCodec.Builder codec = KryoCodec.builder();
        protocol.registerMessages(codec);
        LocalNetwork net = new LocalNetwork(FIVE.stream().map(NodeId::of).toList(), codec.build());
        Map<String, CounterMachine> counters = new TreeMap<>();
        for (String id : FIVE) {
            counters.put(id, new CounterMachine());
            nodes.put(id, Tandem.node().id(id).members(FIVE.toArray(String[]::new)).protocol(protocol)
                    .transport(setup -> net.transport(setup.self())).inMemoryStorage().requestTimeout(Duration.ofSeconds(5))
                    .stateMachine(counters.get(id)).start());
        }
        for (ReplicatedNode n : nodes.values()) assertThat(n.awaitReady(DEADLINE).join().leader()).isIn(NodeId.of("n1"), NodeId.of("n2"));

        TreeSet<Long> answers = new TreeSet<>();
        for (ReplicatedNode n : nodes.values()) answers.add(ByteBuffer.wrap(n.submit(new byte[] {1}).join()).getLong());
        assertThat(answers).containsExactly(1L, 2L, 3L, 4L, 5L);
        for (String id : FIVE) {
            long read = ByteBuffer.wrap(nodes.get(id).query(new byte[0], ReadPolicy.LINEARIZABLE).join()).getLong();
            assertThat(read).as("linearizable read submitted on %s", id).isEqualTo(5);
        }
        for (String replica : List.of("n1", "n2", "n3")) {
            Await.until(DEADLINE, () -> counters.get(replica).value() == 5, () -> replica + " applied " + counters.get(replica).value());
        }
        assertThat(counters.get("n4").value()).as("n4 runs no replica").isZero();
        assertThat(counters.get("n5").value()).as("n5 runs no replica").isZero();

        EngineStatus acceptorOnly = nodes.get("n4").status().join();
        assertThat(acceptorOnly.role()).isEqualTo(EngineStatus.Role.REPLICA);
        assertThat(acceptorOnly.voters()).extracting(NodeId::value).containsExactly("n3", "n4", "n5");
        assertThat(nodes.get("n1").status().join().learners()).extracting(NodeId::value).containsExactly("n1", "n2");
    }

    /**
     * Unbatchers on the real runtime (spec §2.7): replica n3 takes no clients, so every command it
     * answers for (slot mod 3) is another member's, and its result reaches that member's frontend
     * through the unbatchers on n4 and n5 (the runtime hands execution results to the engine with
     * {@code deliverReportingResult}).
     */
    @Test
    void replicasHandResultsToUnbatchersWhichAnswerTheMembersThatTookTheCommands() {
        String text = MultiPaxosSimulationTest.SEPARATED + "unbatcher = n4, n5\n";
        MultiPaxosProtocol protocol = new MultiPaxosProtocol(CONFIG).withDeployment(Deployment.parse(text, "unbatched.conf", MultiPaxosProtocol.ROLES));
        KryoCodec.Builder codec = KryoCodec.builder();
        protocol.registerMessages(codec);
        LocalNetwork net = new LocalNetwork(FIVE.stream().map(NodeId::of).toList(), codec.build());
        Map<String, io.micrometer.core.instrument.simple.SimpleMeterRegistry> meters = new TreeMap<>();
        for (String id : FIVE) {
            meters.put(id, new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
            nodes.put(id, Tandem.node().id(id).members(FIVE.toArray(String[]::new)).protocol(protocol)
                    .transport(setup -> net.transport(setup.self())).inMemoryStorage().requestTimeout(Duration.ofSeconds(5))
                    .meterRegistry(meters.get(id)).stateMachine(new CounterMachine()).start());
        }
        for (ReplicatedNode n : nodes.values()) n.awaitReady(DEADLINE).join();
        TreeSet<Long> answers = new TreeSet<>();
        for (int i = 0; i < 30; i++) answers.add(ByteBuffer.wrap(nodes.get(i % 2 == 0 ? "n1" : "n2").submit(new byte[] {1}).join()).getLong());
        assertThat(answers).hasSize(30).first().isEqualTo(1L);
        java.util.function.ToDoubleFunction<String> count = name -> FIVE.stream()
                .mapToDouble(id -> meters.get(id).find(name).counters().stream().mapToDouble(io.micrometer.core.instrument.Counter::count).sum()).sum();
        Await.until(DEADLINE, () -> count.applyAsDouble("tandem.multipaxos.frontend.unbatched_replies") > 0,
                () -> "replies through unbatchers: " + count.applyAsDouble("tandem.multipaxos.frontend.unbatched_replies"));
        assertThat(meters.get("n3").find("tandem.multipaxos.replica.reply_batches").counter().count()).as("n3 sent reply batches").isPositive();
        assertThat(count.applyAsDouble("tandem.multipaxos.unbatcher.replies")).as("replies fanned out by n4 and n5").isPositive();
    }

    @Test
    void aProtocolWithoutRolesRefusesADeploymentAndABadFileFailsBeforeAnythingStarts(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> new io.tandem.protocols.raft.RaftProtocol().withDeployment(MultiPaxosProtocol.CLASSIC))
                .isInstanceOf(DeploymentException.class).hasMessage("raft runs one engine per member and takes no deployment file");
        Path bad = Files.writeString(dir.resolve("bad.conf"), "leader = n1\nacceptor = n1, n2, n3\nreplica = n1, n6\nfrontend = n1\n");
        MultiPaxosProtocol protocol = new MultiPaxosProtocol(CONFIG).withDeployment(Deployment.read(bad, MultiPaxosProtocol.ROLES));
        assertThatThrownBy(() -> protocol.createEngine(NodeId.of("n1"), List.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"))))
                .isInstanceOf(DeploymentException.class).hasMessage("role replica (line 3) names n6, which is not a member of the group [n1, n2, n3]");
    }
}
