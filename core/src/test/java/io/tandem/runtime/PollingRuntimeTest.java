package io.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.api.ReplicatedNode;
import io.tandem.api.Tandem;
import io.tandem.api.UnavailableException;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.NodeId;
import io.tandem.testing.Await;
import io.tandem.testing.RecordingStateMachine;
import io.tandem.testing.RegionCounterProtocol;
import io.tandem.transport.LocalNetwork;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The poll hook in the real runtime: engines that only poll a memory region (no messages, timers
 * or write events) count to their target in lockstep, under each idle strategy, and are no longer
 * polled once they stop asking.
 */
class PollingRuntimeTest {
    private static final List<String> MEMBERS = List.of("n1", "n2", "n3");
    private static final long STEPS = 300;
    private final List<ReplicatedNode> nodes = new ArrayList<>();

    @AfterEach
    void closeAll() {
        nodes.forEach(ReplicatedNode::close);
    }

    static Stream<IdleStrategy> strategies() {
        return Stream.of(IdleStrategy.BACKOFF, IdleStrategy.PARK, new IdleStrategy(10, 2, Duration.ofNanos(1_000), Duration.ofMillis(2)));
    }

    @ParameterizedTest
    @MethodSource("strategies")
    void anEngineThatOnlyPollsCountsARegionCounterToItsTargetAndIsNoLongerPolledOnceItStops(IdleStrategy idle) {
        // Every step of the lockstep needs all three loop threads scheduled in turn on this machine's
        // cores; 2,000 steps took more than 20 s when the machine ran at load 40+. A few hundred
        // steps still take every loop through its spin, yield and park phases many times over.
        RegionCounterProtocol protocol = new RegionCounterProtocol(STEPS);
        LocalNetwork net = new LocalNetwork(MEMBERS.stream().map(NodeId::of).toList(), KryoCodec.builder().build());
        for (String id : MEMBERS) {
            nodes.add(Tandem.node().id(id).members(MEMBERS.toArray(String[]::new)).protocol(protocol)
                    .transport(setup -> net.transport(setup.self())).inMemoryStorage().stateMachine(new RecordingStateMachine())
                    .runtimeConfig(io.tandem.runtime.RuntimeConfig.DEFAULTS.withIdleStrategy(idle).withRequestTimeout(Duration.ofSeconds(5)))
                    .start());
        }
        Await.until(Duration.ofSeconds(20), () -> protocol.engines.size() == 3 && protocol.engines.values().stream().allMatch(RegionCounterProtocol.Counter::done),
                () -> "counts " + protocol.engines.values().stream().map(RegionCounterProtocol.Counter::count).toList());
        // Make every loop turn again: had polling not stopped, these turns would poll.
        for (ReplicatedNode node : nodes) {
            assertThatThrownBy(() -> node.submit(new byte[] {1}).join()).cause().isInstanceOf(UnavailableException.class);
        }
        assertThat(protocol.engines.values()).allSatisfy(c -> {
            assertThat(c.count()).isEqualTo(STEPS);
            assertThat(c.pollsAfterStop()).as("polls after the engine stopped asking").isZero();
        });
    }

    @org.junit.jupiter.api.Test
    void aRegionRegisteredForEventsCallsOnRegionWriteOnTheLoopForEachPushInOrder() {
        io.tandem.testing.RegionEventsProtocol events = new io.tandem.testing.RegionEventsProtocol(50);
        LocalNetwork net = new LocalNetwork(MEMBERS.stream().map(NodeId::of).toList(), KryoCodec.builder().build());
        for (String id : List.of("n3", "n2", "n1")) { // n1 pushes just after it starts: the others have registered by then
            nodes.add(Tandem.node().id(id).members(MEMBERS.toArray(String[]::new)).protocol(events)
                    .transport(setup -> net.transport(setup.self())).inMemoryStorage().stateMachine(new RecordingStateMachine()).start());
            if (!id.equals("n1")) Await.until(Duration.ofSeconds(10), () -> nodes.getLast().status().join() != null);
        }
        Await.until(Duration.ofSeconds(20), () -> events.seen.get(NodeId.of("n2")).size() == 50 && events.seen.get(NodeId.of("n3")).size() == 50,
                () -> "seen " + events.seen);
        // Each event reads memory when it runs on the loop: a later push may already have landed, never an earlier one.
        for (String n : List.of("n2", "n3")) {
            List<Long> values = events.seen.get(NodeId.of(n)).stream().map(e -> Long.parseLong(e.substring(e.indexOf('=') + 1))).toList();
            assertThat(values).as(n).isSorted();
            assertThat(values.getLast()).isEqualTo(50);
            assertThat(events.seen.get(NodeId.of(n))).allMatch(e -> e.startsWith("n1:events@0+8="));
        }
    }
}
