package io.tandem.protocols.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.api.ReplicatedNode;
import io.tandem.api.Tandem;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.NodeId;
import io.tandem.execution.ExecutionMode;
import io.tandem.execution.ParallelExecutors;
import io.tandem.execution.ParallelOptions;
import io.tandem.protocols.raft.RaftConfig;
import io.tandem.protocols.raft.RaftProtocol;
import io.tandem.runtime.RuntimeConfig;
import io.tandem.sim.KvRegisterMachine;
import io.tandem.testing.Await;
import io.tandem.transport.LocalNetwork;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Optimistic P-SMR on the real runtime: three Raft members, each executing with two worker
 * threads. Concurrent adds on several registers, many of which fail their check and come back as
 * conservative copies ordered through the engine (every member re-sends, the first copy runs),
 * are each applied exactly once on every member and answered to the member they were submitted on.
 */
class ParallelExecutionRuntimeTest {
    private static final List<String> THREE = List.of("n1", "n2", "n3");
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final RaftConfig RAFT = RaftConfig.builder()
            .electionTimeout(Duration.ofMillis(150), Duration.ofMillis(300)).heartbeatInterval(Duration.ofMillis(30)).build();

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) c.close();
    }

    @Test
    void concurrentAddsWithFailedChecksAreAppliedExactlyOnceEverywhere() {
        KryoCodec.Builder codec = KryoCodec.builder();
        new RaftProtocol(RAFT).registerMessages(codec);
        LocalNetwork net = new LocalNetwork(THREE.stream().map(NodeId::of).toList(), codec.build());
        List<KvRegisterMachine> machines = new ArrayList<>();
        List<ReplicatedNode> nodes = new ArrayList<>();
        List<SimpleMeterRegistry> meters = new ArrayList<>();
        RuntimeConfig config = RuntimeConfig.DEFAULTS.withExecutors(ParallelExecutors.of(ParallelOptions.of(ExecutionMode.OPT_PSMR, 2), null));
        for (String id : THREE) {
            KvRegisterMachine m = new KvRegisterMachine();
            machines.add(m);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            meters.add(registry);
            ReplicatedNode n = Tandem.node().meterRegistry(registry).id(id).members(THREE.toArray(String[]::new)).protocol(new RaftProtocol(RAFT))
                    .transport(setup -> net.transport(setup.self())).inMemoryStorage().requestTimeout(Duration.ofSeconds(20))
                    .runtimeConfig(config).stateMachine(m).start();
            open.add(n);
            nodes.add(n);
        }
        for (ReplicatedNode n : nodes) n.awaitReady(DEADLINE).join();
        int keys = 4;
        int perKey = 60;
        List<CompletableFuture<byte[]>> answers = new ArrayList<>();
        for (int round = 0; round < perKey; round++) {
            for (int k = 0; k < keys; k++) answers.add(nodes.get((round + k) % 3).submit(KvRegisterMachine.add(k, 1)));
        }
        List<Long> seen = new ArrayList<>();
        for (CompletableFuture<byte[]> a : answers) seen.add(ByteBuffer.wrap(a.join(), 1, 8).getLong());
        // Each key's answers are 1..perKey, each once: no add applied twice, none lost.
        for (int k = 0; k < keys; k++) {
            List<Long> mine = new ArrayList<>();
            for (int i = k; i < seen.size(); i += keys) mine.add(seen.get(i));
            assertThat(mine).as("answers of key %d", k).containsExactlyInAnyOrderElementsOf(java.util.stream.LongStream.rangeClosed(1, perKey).boxed().toList());
        }
        Await.until(DEADLINE, () -> machines.stream().allMatch(m -> java.util.stream.IntStream.range(0, keys).allMatch(k -> m.valueOf(k) == perKey)),
                () -> "values " + machines.stream().map(m -> java.util.stream.IntStream.range(0, keys).mapToObj(m::valueOf).toList()).toList());
        // The fail-latency meter (Mode L): an add fails its check while its register is a multiple of
        // 3, which it stays until a conservative copy runs, so the first add of every key fails and,
        // with all adds submitted at once, most of the others too. Each is counted once, by the
        // member it was submitted on, and its latency summed beside it.
        double afterFailedCheck = meters.stream().mapToDouble(r -> completed(r, "write-after-failed-check")).sum();
        assertThat(afterFailedCheck).isGreaterThanOrEqualTo(keys).isLessThanOrEqualTo(keys * perKey);
        assertThat(meters.stream().mapToDouble(r -> r.get("tandem.client.latency.sum").tag("kind", "write-after-failed-check").counter().count()).sum()).isPositive();
    }

    private static double completed(SimpleMeterRegistry registry, String kind) {
        return registry.get("tandem.client.completed").tag("kind", kind).counter().count();
    }
}
