package io.tandem.protocols;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.api.NotLeaderException;
import io.tandem.api.ReplicatedNode;
import io.tandem.api.Tandem;
import io.tandem.api.UnavailableException;
import io.tandem.api.UnsupportedRequestException;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.AdminRequest;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.protocols.multipaxos.MultiPaxosConfig;
import io.tandem.protocols.raft.RaftConfig;
import io.tandem.storage.memory.MemoryDisk;
import io.tandem.testing.Await;
import io.tandem.testing.RecordingStateMachine;
import io.tandem.transport.LocalNetwork;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code ReplicatedNode.status()} and {@code admin()} on the real runtime over the in-JVM transport,
 * for every shipped engine: every engine names one leader that its followers agree on, in one epoch,
 * and its leader reports its peers' lag; Raft runs membership changes and leadership transfer through
 * {@code admin}, other engines refuse them with a clear message. Real time: every wait has a deadline.
 */
class EngineStatusRuntimeTest {
    private static final List<String> THREE = List.of("n1", "n2", "n3");
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final RaftConfig RAFT = RaftConfig.builder()
            .electionTimeout(Duration.ofMillis(150), Duration.ofMillis(300)).heartbeatInterval(Duration.ofMillis(30))
            .maxClockDrift(Duration.ofMillis(20)).build();
    private static final MultiPaxosConfig MULTI_PAXOS = MultiPaxosConfig.builder()
            .electionTimeout(Duration.ofMillis(150), Duration.ofMillis(300)).heartbeatInterval(Duration.ofMillis(30))
            .catchUpTimeout(Duration.ofMillis(100)).build();

    private final Map<String, ReplicatedNode> nodes = new TreeMap<>();

    @AfterEach
    void closeAll() {
        nodes.values().forEach(ReplicatedNode::close);
    }

    static Stream<String> replicatedEngines() {
        return Stream.of("raft", "multipaxos", "toy-pb");
    }

    private static Supplier<Protocol> protocol(String name) {
        return switch (name) {
            case "raft" -> () -> Protocols.raft(RAFT);
            case "multipaxos" -> () -> Protocols.multiPaxos(MULTI_PAXOS);
            default -> () -> Protocols.byName(name);
        };
    }

    private void startAll(List<String> members, Supplier<Protocol> protocol) {
        KryoCodec.Builder codec = KryoCodec.builder();
        protocol.get().registerMessages(codec);
        LocalNetwork net = new LocalNetwork(members.stream().map(NodeId::of).toList(), codec.build());
        for (String id : members) {
            nodes.put(id, Tandem.node().id(id).members(members.toArray(String[]::new)).protocol(protocol.get())
                    .transport(setup -> net.transport(setup.self())).requestTimeout(Duration.ofSeconds(2))
                    .inMemoryStorage(new MemoryDisk()).stateMachine(new RecordingStateMachine()).start());
        }
    }

    private Map<String, EngineStatus> statuses() {
        Map<String, EngineStatus> all = new TreeMap<>();
        nodes.forEach((id, node) -> all.put(id, node.status().join()));
        return all;
    }

    /** The node every member names as leader in one epoch, once it reports itself LEADER. */
    private Optional<String> agreedLeader() {
        Map<String, EngineStatus> all = statuses();
        List<String> leaders = all.entrySet().stream().filter(e -> e.getValue().isLeader()).map(Map.Entry::getKey).toList();
        if (leaders.size() != 1) return Optional.empty();
        EngineStatus ls = all.get(leaders.getFirst());
        boolean agreed = all.values().stream().allMatch(s -> NodeId.of(leaders.getFirst()).equals(s.leader()) && s.epoch() == ls.epoch());
        return agreed ? Optional.of(leaders.getFirst()) : Optional.empty();
    }

    private String awaitAgreedLeader() {
        String[] leader = new String[1];
        Await.until(DEADLINE, () -> agreedLeader().map(l -> leader[0] = l).isPresent(), () -> "no agreed leader: " + statuses());
        return leader[0];
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @MethodSource("replicatedEngines")
    void followersNameTheLeaderInItsEpochAndTheLeaderReportsTheirLag(String engine) {
        startAll(THREE, protocol(engine));
        String leader = awaitAgreedLeader();
        for (int i = 0; i < 10; i++) nodes.get(leader).submit(utf8("c" + i)).join();

        Await.until(DEADLINE, () -> {
            EngineStatus ls = nodes.get(leader).status().join();
            return ls.lag().keySet().equals(Set.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3")).stream()
                    .filter(n -> !n.value().equals(leader)).collect(java.util.stream.Collectors.toSet()))
                    && ls.lag().values().stream().allMatch(l -> l == 0);
        }, () -> engine + ": leader " + leader + " status " + statuses());
        Await.until(DEADLINE, () -> statuses().values().stream().allMatch(s -> s.appliedIndex() >= 10), () -> engine + ": " + statuses());

        Map<String, EngineStatus> all = statuses();
        EngineStatus ls = all.get(leader);
        assertThat(ls.role()).isEqualTo(EngineStatus.Role.LEADER);
        assertThat(ls.leader()).isEqualTo(NodeId.of(leader));
        assertThat(ls.voters()).extracting(NodeId::value).containsExactlyElementsOf(THREE);
        assertThat(ls.learners()).isEmpty();
        assertThat(ls.commitIndex()).isGreaterThanOrEqualTo(10);
        assertThat(ls.appliedIndex()).isGreaterThanOrEqualTo(10);
        all.forEach((id, s) -> {
            if (id.equals(leader)) return;
            assertThat(s.role()).as(id).isEqualTo(EngineStatus.Role.FOLLOWER);
            assertThat(s.leader()).as(id).isEqualTo(NodeId.of(leader));
            assertThat(s.epoch()).as(id).isEqualTo(ls.epoch());
            assertThat(s.lag()).as(id).isEmpty();
        });
    }

    @Test
    void theUnreplicatedEngineLeadsAloneWithoutLag() {
        startAll(List.of("solo"), protocol("unreplicated"));
        nodes.get("solo").submit(utf8("x")).join();
        EngineStatus s = nodes.get("solo").status().join();
        assertThat(s.role()).isEqualTo(EngineStatus.Role.LEADER);
        assertThat(s.leader()).isEqualTo(NodeId.of("solo"));
        assertThat(s.voters()).containsExactly(NodeId.of("solo"));
        assertThat(s.commitIndex()).isEqualTo(1);
        assertThat(s.appliedIndex()).isEqualTo(1);
        assertThat(s.lag()).isEmpty();
    }

    @Test
    void raftAddsALearnerPromotesItAndTransfersLeadershipThroughAdmin() {
        List<String> four = List.of("n1", "n2", "n3", "n4");
        RaftConfig threeVoters = RAFT.toBuilder().initialVoters(Set.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"))).build();
        KryoCodec.Builder codec = KryoCodec.builder();
        Protocols.raft(threeVoters).registerMessages(codec);
        LocalNetwork net = new LocalNetwork(four.stream().map(NodeId::of).toList(), codec.build());
        for (String id : four) {
            nodes.put(id, Tandem.node().id(id).members(four.toArray(String[]::new)).protocol(Protocols.raft(threeVoters))
                    .transport(setup -> net.transport(setup.self())).requestTimeout(Duration.ofSeconds(2))
                    .inMemoryStorage(new MemoryDisk()).stateMachine(new RecordingStateMachine()).start());
        }
        NodeId n4 = NodeId.of("n4");
        String leader = awaitAgreedLeaderAmong(List.of("n1", "n2", "n3"));
        assertThat(nodes.get("n4").status().join().role()).isEqualTo(EngineStatus.Role.NOT_MEMBER);
        ReplicatedNode follower = nodes.get(THREE.stream().filter(n -> !n.equals(leader)).findFirst().orElseThrow());
        assertThatThrownBy(() -> follower.admin(new AdminRequest.AddLearner(n4)).join()).cause()
                .isInstanceOfSatisfying(NotLeaderException.class, e -> assertThat(e.leaderHint()).contains(NodeId.of(leader)));

        // A change right after the election may be refused until the leader committed an entry of its term: retry.
        retryWhileUnavailable(() -> nodes.get(leader).admin(new AdminRequest.AddLearner(n4)).join());
        assertThat(nodes.get(leader).status().join().learners()).containsExactly(n4);
        Await.until(DEADLINE, () -> nodes.get("n4").status().join().role() == EngineStatus.Role.LEARNER, () -> "n4: " + nodes.get("n4").status().join());

        retryWhileUnavailable(() -> nodes.get(leader).admin(new AdminRequest.Promote(n4)).join());
        assertThat(nodes.get(leader).status().join().voters()).contains(n4);
        Await.until(DEADLINE, () -> nodes.get("n4").status().join().role() == EngineStatus.Role.FOLLOWER, () -> "n4: " + nodes.get("n4").status().join());

        retryWhileUnavailable(() -> nodes.get(leader).admin(new AdminRequest.TransferLeadership(n4)).join());
        Await.until(DEADLINE, () -> nodes.get("n4").status().join().isLeader(), () -> "after the transfer: " + statuses());
        assertThat(nodes.get(leader).status().join().role()).isNotEqualTo(EngineStatus.Role.LEADER);
    }

    private String awaitAgreedLeaderAmong(List<String> voters) {
        String[] leader = new String[1];
        Await.until(DEADLINE, () -> {
            Map<String, EngineStatus> all = statuses();
            for (String v : voters) {
                EngineStatus s = all.get(v);
                if (s.isLeader() && voters.stream().allMatch(o -> NodeId.of(v).equals(all.get(o).leader()))) {
                    leader[0] = v;
                    return true;
                }
            }
            return false;
        }, () -> "no agreed leader: " + statuses());
        return leader[0];
    }

    private static void retryWhileUnavailable(Runnable change) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (true) {
            try {
                change.run();
                return;
            } catch (CompletionException e) {
                if (!(e.getCause() instanceof UnavailableException) || System.nanoTime() > deadline) throw e;
                Thread.onSpinWait();
            }
        }
    }

    @Test
    void multiPaxosRefusesMembershipChangesAndTransfersWithAClearMessage() {
        startAll(THREE, protocol("multipaxos"));
        String leader = awaitAgreedLeader();
        assertThatThrownBy(() -> nodes.get(leader).admin(new AdminRequest.AddLearner(NodeId.of("n4"))).join()).cause()
                .isInstanceOf(UnsupportedRequestException.class).hasMessage("multipaxos does not support add-learner");
        assertThatThrownBy(() -> nodes.get(leader).admin(new AdminRequest.TransferLeadership(NodeId.of("n2"))).join()).cause()
                .isInstanceOf(UnsupportedRequestException.class).hasMessage("multipaxos does not support transfer-leadership");
    }
}
