package io.tandem.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.GroupView;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.sim.TestProtocol.Ping;
import io.tandem.sim.TestProtocol.Recorder;
import io.tandem.sim.TestProtocol.Seen;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Views in the simulator: recorded per node, checked for agreement, and they connect and disconnect the simulated network. */
class SimViewsTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final NodeId N3 = NodeId.of("n3");
    private static final long MS = SimTime.MILLIS;

    record Tick() implements TimerKey {}

    /** Pings every member every 10 ms; at the given times installs the given views. */
    static final class Viewer implements Engine {
        private final Recorder recorder;
        private final NodeId self;
        private final List<NodeId> members;
        private final Map<Long, GroupView> viewsAt;
        private EngineContext ctx;
        private long seq;

        Viewer(Recorder recorder, NodeId self, List<NodeId> members, Map<Long, GroupView> viewsAt) {
            this.recorder = recorder;
            this.self = self;
            this.members = members;
            this.viewsAt = viewsAt;
        }

        @Override
        public void start(EngineContext context) {
            ctx = context;
            ctx.schedule(10 * MS, new Tick());
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {
            recorder.add(self, "ping-from-" + from, ((Ping) message).seq());
        }

        @Override
        public void onTimer(TimerKey key) {
            seq++;
            GroupView v = viewsAt.get(seq * 10);
            if (v != null) ctx.installView(v);
            for (NodeId m : members) if (!m.equals(self)) ctx.send(m, new Ping(seq, 0));
            ctx.schedule(10 * MS, new Tick());
        }

        @Override
        public void onClientRequest(ClientRequest request) {
            ctx.reject(request.requestId(), new Rejection.Unavailable("test engine"));
        }
    }

    private static SimOptions quiet() {
        return SimOptions.defaults()
                .withWorkload(3, 1, 0)
                .withTiming(SimTime.seconds(1), SimTime.seconds(1), SimTime.seconds(2), 0)
                .withNetwork(new Latency.Fixed(MS), 0, 0, 0, false)
                .withDisk(new Latency.Fixed(MS), false, 0)
                .withFaults(EnumSet.noneOf(FaultKind.class))
                .withSchedule(FaultSchedule.parse(""));
    }

    @Test
    void aViewThatDropsAMemberCutsItOffUntilAViewBringsItBack() {
        Recorder rec = new Recorder();
        GroupView without = new GroupView(2, List.of(N1, N2));
        GroupView back = new GroupView(3, List.of(N1, N2, N3));
        Map<Long, GroupView> atN1AndN2 = Map.of(100L, without, 200L, back);
        Simulation sim = new Simulation(new TestProtocol((self, members) ->
                new Viewer(rec, self, members, self.equals(N3) ? Map.of() : atN1AndN2)), quiet());
        rec.cluster = sim;
        SimResult r = sim.run();

        assertThat(r.passed()).as(r.failure().map(SimFailure::summary).orElse("")).isTrue();
        assertThat(sim.views(N1)).containsExactly(new GroupView(1, List.of(N1, N2, N3)), without, back);
        assertThat(sim.views(N3)).containsExactly(new GroupView(1, List.of(N1, N2, N3)));
        List<Seen> fromN3 = rec.of(N1, "ping-from-n3");
        assertThat(fromN3).anyMatch(s -> s.atNanos() < 100 * MS).anyMatch(s -> s.atNanos() > 200 * MS);
        assertThat(fromN3).as("n3's pings are refused while n1's view leaves it out").noneMatch(s -> s.atNanos() > 101 * MS && s.atNanos() < 200 * MS);
        assertThat(rec.of(N3, "ping-from-n1")).as("n1 does not send to a member outside its view").noneMatch(s -> s.atNanos() > 101 * MS && s.atNanos() < 200 * MS);
        assertThat(rec.of(N1, "ping-from-n2")).anyMatch(s -> s.atNanos() > 101 * MS && s.atNanos() < 200 * MS);
        assertThat(r.stats()).containsKey("messages.refused");
    }

    @Test
    void twoMembersInstallingDifferentViewsUnderOneIdIsASafetyViolation() {
        Recorder rec = new Recorder();
        Simulation sim = new Simulation(new TestProtocol((self, members) -> new Viewer(rec, self, members,
                Map.of(100L, new GroupView(2, self.equals(N1) ? List.of(N1, N2) : List.of(N1, N3))))), quiet());
        rec.cluster = sim;
        SimResult r = sim.run();
        assertThat(r.failure()).hasValueSatisfying(f -> {
            assertThat(f.check()).isEqualTo("view-agreement");
            assertThat(f.message()).contains("view 2");
        });
    }
}
