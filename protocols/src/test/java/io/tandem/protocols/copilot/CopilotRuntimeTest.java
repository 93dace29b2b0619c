package io.tandem.protocols.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.api.ReplicatedNode;
import io.tandem.api.Tandem;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import io.tandem.protocols.Protocols;
import io.tandem.storage.memory.MemoryDisk;
import io.tandem.testing.Await;
import io.tandem.testing.RecordingStateMachine;
import io.tandem.transport.LocalNetwork;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Copilot on the real runtime (in-JVM transport through the Kryo codec, real threads): both pilots
 * answer a command a client sent to both, it is applied once everywhere, a member that is no pilot
 * forwards, reads go through the logs, and the status names both pilots. Every wait has a deadline.
 */
class CopilotRuntimeTest {
    private static final List<String> THREE = List.of("n1", "n2", "n3");
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private final Map<String, ReplicatedNode> nodes = new TreeMap<>();
    private final Map<String, RecordingStateMachine> machines = new TreeMap<>();

    @AfterEach
    void closeAll() {
        nodes.values().forEach(ReplicatedNode::close);
    }

    private void start() {
        KryoCodec.Builder codec = KryoCodec.builder();
        Protocols.copilot().registerMessages(codec);
        LocalNetwork net = new LocalNetwork(THREE.stream().map(NodeId::of).toList(), codec.build());
        for (String id : THREE) {
            RecordingStateMachine machine = new RecordingStateMachine();
            machines.put(id, machine);
            nodes.put(id, Tandem.node().id(id).members(THREE.toArray(String[]::new)).protocol(Protocols.copilot())
                    .transport(setup -> net.transport(setup.self())).requestTimeout(Duration.ofSeconds(5))
                    .inMemoryStorage(new MemoryDisk()).stateMachine(machine).start());
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void bothPilotsAnswerACommandSentToBothAndItIsAppliedOnce() {
        start();
        for (int i = 1; i <= 20; i++) {
            ClientRequest.Session session = new ClientRequest.Session(42, i);
            CompletableFuture<byte[]> viaPilot = nodes.get("n1").submit(utf8("c" + i), session);
            CompletableFuture<byte[]> viaCopilot = nodes.get("n2").submit(utf8("c" + i), session);
            byte[] a = viaPilot.orTimeout(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();
            byte[] b = viaCopilot.orTimeout(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();
            assertThat(new String(a, StandardCharsets.UTF_8)).as("command %d: the same answer from both pilots", i).isEqualTo(new String(b, StandardCharsets.UTF_8));
        }
        // Submitted on the member that is no pilot: redirected to the pilots and forwarded by the runtime.
        assertThat(nodes.get("n3").submit(utf8("via-n3"), new ClientRequest.Session(43, 1)).orTimeout(20, java.util.concurrent.TimeUnit.SECONDS).join()).isNotEmpty();
        Await.until(DEADLINE, () -> machines.values().stream().allMatch(m -> m.applied.size() == 21), () -> "applied: " + machines);
        List<String> order = machines.get("n1").applied;
        for (RecordingStateMachine m : machines.values()) assertThat(m.applied).as("the same order everywhere, each command once").isEqualTo(order).doesNotHaveDuplicates();

        String read = new String(nodes.get("n2").query(utf8("all"), ReadPolicy.LINEARIZABLE).orTimeout(20, java.util.concurrent.TimeUnit.SECONDS).join(), StandardCharsets.UTF_8);
        assertThat(read.split(",")).hasSize(21).contains("c20", "via-n3");

        EngineStatus s1 = nodes.get("n1").status().join(), s2 = nodes.get("n2").status().join(), s3 = nodes.get("n3").status().join();
        assertThat(s1.role()).isEqualTo(EngineStatus.Role.LEADER);
        assertThat(s2.role()).isEqualTo(EngineStatus.Role.LEADER);
        assertThat(s3.role()).isEqualTo(EngineStatus.Role.FOLLOWER);
        assertThat(s3.leader()).isEqualTo(NodeId.of("n1"));
    }

    /**
     * The late-copy race: the client's message to the copilot arrives after the pilot's copy of the
     * command ran there. The copilot never hands its own copy to execution (a command runs at its first
     * position only); the runtime answers it from the session table, whether the copilot is idle or
     * busy ordering other commands at that moment.
     */
    @Test
    void aCopyReachingAPilotAfterTheCommandRanThereIsAnsweredFromTheSessionTable() {
        start();
        for (int round = 1; round <= 5; round++) {
            ClientRequest.Session session = new ClientRequest.Session(50, round);
            byte[] first = nodes.get("n1").submit(utf8("early-" + round), session).orTimeout(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();
            String command = "early-" + round;
            Await.until(DEADLINE, () -> machines.get("n2").applied.contains(command), () -> "n2 applied " + machines.get("n2").applied);
            // Busy in odd rounds: a burst of other clients' commands goes to the copilot with the late copy.
            List<CompletableFuture<byte[]>> burst = new java.util.ArrayList<>();
            if (round % 2 == 1) {
                for (int i = 0; i < 10; i++) burst.add(nodes.get("n2").submit(utf8("busy-" + round + "-" + i), new ClientRequest.Session(100 + i, round)));
            }
            byte[] late = nodes.get("n2").submit(utf8("early-" + round), session).orTimeout(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();
            assertThat(late).as("round %d: the late copy gets the command's one answer", round).isEqualTo(first);
            burst.forEach(f -> f.orTimeout(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join());
        }
        Await.until(DEADLINE, () -> machines.values().stream().allMatch(m -> m.applied.size() == 5 + 3 * 10), () -> "applied: " + machines);
        for (RecordingStateMachine m : machines.values()) assertThat(m.applied).doesNotHaveDuplicates().isEqualTo(machines.get("n1").applied);
    }
}
