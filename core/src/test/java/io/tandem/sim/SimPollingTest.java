package io.tandem.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.testing.RegionCounterProtocol;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The poll hook in the simulator: deterministic, polled after events, and an idle poller does not keep a run alive. */
class SimPollingTest {
    private static final long MS = SimTime.MILLIS;

    private static SimOptions quiet(long seed) {
        return SimOptions.defaults().withSeed(seed)
                .withWorkload(3, 1, 0)
                .withTiming(SimTime.seconds(1), SimTime.seconds(1), SimTime.seconds(2), 0)
                .withNetwork(new Latency.Uniform(MS / 10, 2 * MS), 0, 0, 0, false)
                .withDisk(new Latency.Fixed(MS), false, 0)
                .withFaults(EnumSet.noneOf(FaultKind.class))
                .withSchedule(FaultSchedule.parse(""));
    }

    @Test
    void anEngineThatOnlyPollsCountsARegionCounterToItsTargetTheSameWayEveryRun() {
        RegionCounterProtocol first = new RegionCounterProtocol(200);
        SimResult a = new Simulation(new TestProtocol(first::createEngine, List.of(), List.of()), quiet(11)).run();
        assertThat(a.passed()).as(a.failure().map(SimFailure::summary).orElse("")).isTrue();
        assertThat(first.engines.values()).hasSize(3).allSatisfy(c -> {
            assertThat(c.count()).isEqualTo(200);
            assertThat(c.done()).isTrue();
            assertThat(c.pollsAfterStop()).as("no poll after the engine stopped asking").isZero();
        });

        RegionCounterProtocol second = new RegionCounterProtocol(200);
        SimResult b = new Simulation(new TestProtocol(second::createEngine, List.of(), List.of()), quiet(11)).run();
        assertThat(b.traceHash()).as("same seed, same run").isEqualTo(a.traceHash());
        assertThat(second.engines.get(NodeId.of("n1")).polls()).isEqualTo(first.engines.get(NodeId.of("n1")).polls());
    }

    /** Asks to be polled forever and never finds work. */
    static final class IdlePoller implements Engine {
        final AtomicLong polls;
        EngineContext ctx;

        IdlePoller(AtomicLong polls) {
            this.polls = polls;
        }

        @Override
        public void start(EngineContext context) {
            ctx = context;
            ctx.requestPolling(true);
        }

        @Override
        public int doWork() {
            polls.incrementAndGet();
            return 0;
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {}

        @Override
        public void onTimer(TimerKey key) {}

        @Override
        public void onClientRequest(ClientRequest request) {
            ctx.reject(request.requestId(), new Rejection.Unavailable("idle"));
        }
    }

    @Test
    void anIdlePollerIsPolledAfterItsEventsOnlyAndTheRunEnds() {
        AtomicLong polls = new AtomicLong();
        SimResult r = new Simulation(new TestProtocol((self, members) -> new IdlePoller(polls), List.of(), List.of()), quiet(3)).run();
        assertThat(r.passed()).as(r.failure().map(SimFailure::summary).orElse("")).isTrue();
        assertThat(r.virtualNanos()).as("the run ends once its clients are done, polling or not").isLessThan(SimTime.seconds(10));
        // Nodes that never find work are polled once per event of theirs (start, client requests), not on every tick.
        assertThat(polls.get()).as("one poll per event of a node").isPositive().isLessThanOrEqualTo(r.events());
    }

    @Test
    void aRegionRegisteredForEventsCallsOnRegionWriteForEachPushInOrder() {
        io.tandem.testing.RegionEventsProtocol events = new io.tandem.testing.RegionEventsProtocol(5);
        SimResult r = new Simulation(new TestProtocol(events::createEngine, List.of(), List.of()), quiet(5)).run();
        assertThat(r.passed()).as(r.failure().map(SimFailure::summary).orElse("")).isTrue();
        for (String n : List.of("n2", "n3")) {
            // The bytes are in memory when the event runs; one event per push, in push order.
            assertThat(events.seen.get(NodeId.of(n))).as(n).containsExactly("n1:events@0+8=1", "n1:events@0+8=2", "n1:events@0+8=3",
                    "n1:events@0+8=4", "n1:events@0+8=5");
        }
        assertThat(events.seen.get(NodeId.of("n1"))).isEmpty();
    }
}
