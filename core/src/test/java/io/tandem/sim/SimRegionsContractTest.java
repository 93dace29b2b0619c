package io.tandem.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Regions;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.transport.RegionsContract;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The memory-region contract in the simulator, plus what only the simulator can stage exactly: a
 * push across a partition, and the volatile memory of a node that crashes and restarts. The test
 * runs the events itself ({@link Simulation#step}); observers run after every event.
 */
class SimRegionsContractTest extends RegionsContract {
    private static final long MS = SimTime.MILLIS;

    /** An engine that does nothing by itself: the test reaches its context. */
    static final class Host implements Engine {
        private final Map<NodeId, EngineContext> contexts;
        private final NodeId self;

        Host(Map<NodeId, EngineContext> contexts, NodeId self) {
            this.contexts = contexts;
            this.self = self;
        }

        @Override
        public void start(EngineContext ctx) {
            contexts.put(self, ctx);
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {}

        @Override
        public void onTimer(TimerKey key) {}

        @Override
        public void onClientRequest(ClientRequest request) {
            contexts.get(self).reject(request.requestId(), new Rejection.Unavailable("test engine"));
        }
    }

    static final class SimFixture implements Fixture {
        final Map<NodeId, EngineContext> contexts = new HashMap<>();
        final Simulation sim;
        private Runnable observer;

        SimFixture(long seed) {
            SimOptions options = SimOptions.defaults().withSeed(seed)
                    .withWorkload(3, 1, 0)
                    .withNetwork(new Latency.Uniform(MS / 10, 2 * MS), 0, 0, 0, false)
                    .withFaults(EnumSet.noneOf(FaultKind.class))
                    .withSchedule(FaultSchedule.parse(""));
            sim = new Simulation(new TestProtocol((self, members) -> new Host(contexts, self)), options);
            sim.begin();
            awaitUntil("every node started", () -> contexts.size() == 3);
        }

        @Override
        public Regions regions(NodeId node) {
            return contexts.get(node).regions();
        }

        private boolean step() {
            boolean ran = sim.step();
            if (ran && observer != null) observer.run();
            return ran;
        }

        @Override
        public void awaitUntil(String what, BooleanSupplier condition) {
            for (int i = 0; i < 1_000_000 && !condition.getAsBoolean(); i++) {
                if (!step()) {
                    if (condition.getAsBoolean()) return;
                    throw new AssertionError("the simulation went quiet before: " + what);
                }
            }
            if (!condition.getAsBoolean()) throw new AssertionError("not within a million events: " + what);
        }

        @Override
        public void letTravel() {
            for (int i = 0; i < 5 && step(); i++) {
                // a few events, so pushes overlap in flight
            }
        }

        @Override
        public void observe(Runnable check) {
            observer = check;
        }

        @Override
        public void stopObserving() {
            observer = null;
        }

        @Override
        public void crash(NodeId node) {
            sim.simNode(node).crash();
        }

        @Override
        public int rounds() {
            return 300;
        }

        @Override
        public void close() {}
    }

    @Override
    protected Fixture start() {
        return new SimFixture(7);
    }

    private SimFixture sim() {
        return (SimFixture) f;
    }

    @Test
    void aShortCutHoldsPushesAndDeliversThemInOrderWhenTheLinkHeals() {
        // A reliable connection retransmits across a short cut: TCP delivers after the heal, and so does the simulator.
        sim().sim.applyFault(new Fault.Partition("n1-x-n3", Set.of(new Fault.Link(N1, N3))));
        sst(N1).setLong(0, 9);
        long first = sst(N1).pushWithCompletion(0, 8, List.of(N2, N3));
        sst(N1).setLong(0, 10);
        long second = sst(N1).pushWithCompletion(0, 8, List.of(N3));
        assertThat(awaitCompletion(N1, first, N2).applied()).isTrue();
        long cutAt = sim().sim.now();
        f.awaitUntil("both pushes reached the cut", () -> sim().sim.counter("region.writes.held") == 2);
        assertThat(sst(N3).getLong(N1, 0)).as("nothing lands across the cut").isZero();

        sim().sim.applyFault(new Fault.Heal());
        assertThat(awaitCompletion(N1, first, N3).applied()).isTrue();
        assertThat(awaitCompletion(N1, second, N3).applied()).isTrue();
        assertThat(sst(N3).getLong(N1, 0)).as("applied in push order").isEqualTo(10);
        assertThat(sim().sim.now() - cutAt).isLessThan(Simulation.REGION_LINK_TIMEOUT);
    }

    @Test
    void aCutThatOutlastsTheConnectionLosesWhatItHeldAndCompletesItAsNotApplied() {
        sim().sim.applyFault(new Fault.Partition("n1-x-n3", Set.of(new Fault.Link(N1, N3))));
        sst(N1).setLong(0, 9);
        long push = sst(N1).pushWithCompletion(0, 8, List.of(N2, N3));
        assertThat(awaitCompletion(N1, push, N2).applied()).isTrue();
        assertThat(awaitCompletion(N1, push, N3).applied()).as("the connection broke after the cut outlasted it").isFalse();
        assertThat(sst(N3).getLong(N1, 0)).isZero();

        sim().sim.applyFault(new Fault.Heal());
        for (int i = 0; i < 100; i++) f.letTravel();
        assertThat(sst(N3).getLong(N1, 0)).as("a broken connection's writes are gone, not replayed").isZero();
        long again = sst(N1).pushWithCompletion(0, 8, List.of(N3));
        assertThat(awaitCompletion(N1, again, N3).applied()).isTrue();
        assertThat(sst(N3).getLong(N1, 0)).isEqualTo(9);
    }

    @Test
    void aRestartedNodesRegionsAreZeroAndWritesMeantForItsOldIncarnationAreLost() {
        sst(N1).setLong(0, 3);
        long push = sst(N1).pushWithCompletion(0, 8, List.of(N2));
        assertThat(awaitCompletion(N1, push, N2).applied()).isTrue();
        sst(N2).setLong(0, 4);
        sst(N2).push(0, 8, List.of(N1)); // in flight when n1 crashes

        f.crash(N1);
        sim().sim.simNode(N1).start(); // a new process at once: the write in flight was meant for the old one
        f.awaitUntil("n1 restarted", () -> sim().sim.simNode(N1).isUp() && sim().contexts.get(N1) != null && !isRegistered(N1));
        f.regions(N1).register("sst", REGION_BYTES, Regions.Notice.POLL);
        assertThat(sst(N1).getLong(N1, 0)).as("volatile memory: lost with the process").isZero();
        for (int i = 0; i < 100; i++) f.letTravel(); // every write in flight arrives, or is dropped
        assertThat(sst(N1).getLong(N2, 0)).as("n2's write was meant for n1's old incarnation").isZero();
        assertThat(sst(N2).getLong(N1, 0)).as("n2 keeps what n1 pushed before it crashed").isEqualTo(3);
    }

    private boolean isRegistered(NodeId node) {
        try {
            f.regions(node).region("sst");
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
