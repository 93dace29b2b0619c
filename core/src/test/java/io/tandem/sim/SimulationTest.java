package io.tandem.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.history.Keyword;
import io.tandem.history.Op;
import io.tandem.sim.TestProtocol.Ping;
import io.tandem.sim.TestProtocol.Recorder;
import io.tandem.sim.TestProtocol.Seen;
import io.tandem.storage.LogEntry;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.StorageEvent;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SimulationTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final NodeId N2 = NodeId.of("n2");
    private static final long MS = SimTime.MILLIS;

    record Tick() implements TimerKey {}

    /** Pings every other member every 10 ms and records its ticks and the pings it receives. */
    static class Pinger implements Engine {
        final Recorder recorder;
        final NodeId self;
        final List<NodeId> members;
        EngineContext ctx;
        long seq;

        Pinger(Recorder recorder, NodeId self, List<NodeId> members) {
            this.recorder = recorder;
            this.self = self;
            this.members = members;
        }

        @Override
        public void start(EngineContext context) {
            ctx = context;
            recorder.add(self, "start", ctx.log().lastIndex());
            ctx.schedule(10 * MS, new Tick());
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {
            recorder.add(self, "ping-from-" + from, ((Ping) message).seq());
        }

        @Override
        public void onTimer(TimerKey key) {
            recorder.add(self, "tick", ctx.nowNanos());
            seq++;
            for (NodeId m : members) if (!m.equals(self)) ctx.send(m, new Ping(seq, 0));
            ctx.schedule(10 * MS, new Tick());
        }

        @Override
        public void onClientRequest(ClientRequest request) {
            ctx.reject(request.requestId(), new Rejection.Unavailable("test engine"));
        }
    }

    /** Options for a quiet run without clients or random faults: fixed latencies, no loss, an explicit schedule. */
    private static SimOptions quiet(long durationNanos, String schedule) {
        return SimOptions.defaults()
                .withWorkload(2, 1, 0)
                .withTiming(durationNanos, SimTime.seconds(1), SimTime.seconds(2), 0)
                .withNetwork(new Latency.Fixed(MS), 0, 0, 0, false)
                .withDisk(new Latency.Fixed(MS), false, 0)
                .withFaults(EnumSet.noneOf(FaultKind.class))
                .withSchedule(FaultSchedule.parse(schedule))
                .toBuilder().clockDriftPpm(0).build(); // exact virtual times below
    }

    private static SimResult run(TestProtocol protocol, Recorder recorder, SimOptions options) {
        Simulation sim = new Simulation(protocol, options);
        recorder.cluster = sim;
        return sim.run();
    }

    @Test
    void aPausedNodeGetsItsMessagesAndTimersOnResume() {
        Recorder rec = new Recorder();
        TestProtocol protocol = new TestProtocol((self, members) -> new Pinger(rec, self, members));
        SimResult r = run(protocol, rec, quiet(SimTime.seconds(1), "200ms=pause:n2;500ms=resume:n2"));

        assertThat(r.passed()).as(r.failure().map(SimFailure::summary).orElse("")).isTrue();
        List<Seen> ticks = rec.of(N2, "tick");
        assertThat(ticks).noneMatch(t -> t.atNanos() > 200 * MS && t.atNanos() < 500 * MS);
        assertThat(ticks).anyMatch(t -> t.atNanos() == 500 * MS); // the timer that fell due in the pause fires late
        List<Seen> pings = rec.of(N2, "ping-from-n1");
        assertThat(pings).noneMatch(p -> p.atNanos() > 200 * MS && p.atNanos() < 500 * MS);
        assertThat(pings.stream().filter(p -> p.atNanos() == 500 * MS).count()).isGreaterThanOrEqualTo(25); // queued, delivered on resume
        assertThat(pings).extracting(Seen::value).isSorted().doesNotHaveDuplicates();
        assertThat(pings.getLast().value()).isEqualTo(rec.of(N1, "tick").size() - (pings.getLast().atNanos() < 1000 * MS ? 1 : 0));
    }

    /** Appends one log entry and saves a meta counter on every tick; records what it recovers at start. */
    static final class Writer extends Pinger {
        Writer(Recorder recorder, NodeId self, List<NodeId> members) {
            super(recorder, self, members);
        }

        @Override
        public void start(EngineContext context) {
            super.start(context);
            recorder.add(self, "recovered-meta", ctx.meta().get("ticks").map(b -> ByteBuffer.wrap(b).getLong()).orElse(0L));
        }

        @Override
        public void onTimer(TimerKey key) {
            super.onTimer(key);
            long index = ctx.log().lastIndex() + 1;
            ctx.log().append(new LogEntry(index, 1, new byte[] {(byte) index}));
            ctx.meta().put("ticks", ByteBuffer.allocate(8).putLong(index).array(), index);
        }
    }

    @Test
    void aCrashedNodeRestartsAsANewEngineFromWhatItsDiskKept() {
        Recorder rec = new Recorder();
        TestProtocol protocol = new TestProtocol((self, members) -> new Writer(rec, self, members));
        // n1 ticks at 10, 20, ... 300 ms: 30 entries, each flushed 1 ms later. It crashes at 305 ms
        // and restarts at 400 ms; n2's pings to n1 in between are lost.
        SimResult r = run(protocol, rec, quiet(SimTime.seconds(1), "305ms=crash:n1;400ms=restart:n1"));

        assertThat(r.passed()).as(r.failure().map(SimFailure::summary).orElse("")).isTrue();
        assertThat(rec.of(N1, "start")).extracting(Seen::value).containsExactly(0L, 30L);
        assertThat(rec.of(N1, "recovered-meta")).extracting(Seen::value).containsExactly(0L, 30L);
        assertThat(rec.of(N1, "tick")).noneMatch(t -> t.atNanos() > 305 * MS && t.atNanos() < 400 * MS);
        List<Seen> pings = rec.of(N1, "ping-from-n2");
        assertThat(pings).noneMatch(p -> p.atNanos() > 305 * MS && p.atNanos() < 400 * MS);
        assertThat(pings).extracting(Seen::value).doesNotContain(31L, 35L, 39L); // sent while n1 was down
        assertThat(r.stats()).containsEntry("nodes.crashes", 1L);
    }

    @Test
    void aCrashBeforeTheFlushLosesTheWrite() {
        Recorder rec = new Recorder();
        TestProtocol protocol = new TestProtocol((self, members) -> new Writer(rec, self, members));
        SimOptions options = quiet(SimTime.seconds(1), "300500us=crash:n1;400ms=restart:n1"); // 0.5 ms after the 30th append
        SimResult r = run(protocol, rec, options);
        assertThat(r.passed()).isTrue();
        assertThat(rec.of(N1, "start")).extracting(Seen::value).containsExactly(0L, 29L);
        assertThat(rec.of(N1, "recovered-meta")).extracting(Seen::value).containsExactly(0L, 29L);
    }

    record Alarm() implements TimerKey {}

    @Test
    void aClockJumpMakesArmedTimersFireEarly() {
        Recorder rec = new Recorder();
        TestProtocol protocol = alarmInOneSecond(rec);
        SimResult r = run(protocol, rec, quiet(SimTime.seconds(2), "100ms=clock:n1:600ms"));

        assertThat(r.passed()).isTrue();
        Seen n1 = rec.of(N1, "alarm").getFirst();
        Seen n2 = rec.of(N2, "alarm").getFirst();
        assertThat(n1.atNanos()).isEqualTo(400 * MS); // local deadline reached 600 ms early in virtual time
        assertThat(n2.atNanos()).isEqualTo(1000 * MS);
        // Both fired when their own clock said one second had passed.
        assertThat(n1.value() - rec.of(N1, "clock-at-start").getFirst().value()).isEqualTo(SimTime.seconds(1));
        assertThat(n2.value() - rec.of(N2, "clock-at-start").getFirst().value()).isEqualTo(SimTime.seconds(1));
    }

    @Test
    void clocksRunAtTheirOwnRateAndATimerFiresWhenItsOwnClockSaysSo() {
        Recorder rec = new Recorder();
        TestProtocol protocol = alarmInOneSecond(rec);
        SimOptions drifting = quiet(SimTime.seconds(2), "").toBuilder().clockDriftPpm(50_000).build();
        SimResult r = run(protocol, rec, drifting);
        assertThat(r.passed()).isTrue();
        java.util.Set<Long> virtualTimes = new java.util.TreeSet<>();
        for (NodeId n : List.of(N1, N2)) {
            Seen alarm = rec.of(n, "alarm").getFirst();
            // Each node's clock says one second passed (to within the integer rounding of a nanosecond per millisecond) ...
            assertThat(alarm.value() - rec.of(n, "clock-at-start").getFirst().value()).isBetween(SimTime.seconds(1) - 1_000, SimTime.seconds(1) + 1_000);
            // ... while virtual time passed within 5 % of it, at that node's own rate.
            assertThat(alarm.atNanos()).isBetween(SimTime.millis(950), SimTime.millis(1053));
            virtualTimes.add(alarm.atNanos());
        }
        assertThat(virtualTimes).as("two clocks with seeded rates").hasSize(2);
        assertThat(run(protocol, new Recorder(), drifting).traceHash()).as("replays exactly").isEqualTo(r.traceHash());
    }

    /** Each node arms a one-second timer at start and records its own clock then and when it fires. */
    private static TestProtocol alarmInOneSecond(Recorder rec) {
        return new TestProtocol((self, members) -> new Engine() {
            EngineContext ctx;

            @Override
            public void start(EngineContext context) {
                ctx = context;
                ctx.schedule(SimTime.seconds(1), new Alarm());
                rec.add(self, "clock-at-start", ctx.nowNanos());
            }

            @Override
            public void onMessage(NodeId from, ProtocolMessage message) {}

            @Override
            public void onTimer(TimerKey key) {
                rec.add(self, "alarm", ctx.nowNanos());
            }

            @Override
            public void onClientRequest(ClientRequest request) {}
        });
    }

    /** An engine that does one thing at start. */
    private static TestProtocol onStart(java.util.function.BiConsumer<NodeId, EngineContext> action) {
        return new TestProtocol((self, members) -> new Engine() {
            @Override
            public void start(EngineContext ctx) {
                action.accept(self, ctx);
            }

            @Override
            public void onMessage(NodeId from, ProtocolMessage message) {}

            @Override
            public void onTimer(TimerKey key) {}

            @Override
            public void onClientRequest(ClientRequest request) {}
        });
    }

    private static Committed command(long index, NodeId origin, long value) {
        return new Committed(index, origin, 1, new ClientRequest.Session(1, 1), KvRegisterMachine.write(7, value));
    }

    @Test
    void aGapInExecutionIsCaught() {
        SimResult r = Simulation.run(onStart((self, ctx) -> ctx.deliver(command(2, self, 1))), quiet(SimTime.seconds(1), ""));
        assertThat(r.failure()).hasValueSatisfying(f -> {
            assertThat(f.kind()).isEqualTo(SimFailure.Kind.SAFETY);
            assertThat(f.check()).isEqualTo("in-order-execution");
            assertThat(f.message()).contains("delivered index 2").contains("a gap");
        });
    }

    @Test
    void twoNodesApplyingDifferentCommandsAtOneIndexIsCaught() {
        SimResult r = Simulation.run(onStart((self, ctx) -> ctx.deliver(command(1, self, self.equals(N1) ? 1 : 2))), quiet(SimTime.seconds(1), ""));
        assertThat(r.failure()).hasValueSatisfying(f -> {
            assertThat(f.check()).isEqualTo("state-machine-safety");
            assertThat(f.message()).contains("index 1").contains("write(7, 1)").contains("write(7, 2)");
        });
        SimResult same = Simulation.run(onStart((self, ctx) -> ctx.deliver(command(1, N1, 1))), quiet(SimTime.seconds(1), ""));
        assertThat(same.passed()).isTrue();
    }

    @Test
    void anEngineThatThrowsFailsTheRun() {
        SimResult r = Simulation.run(onStart((self, ctx) -> {
            throw new IllegalStateException("boom in " + self);
        }), quiet(SimTime.seconds(1), ""));
        assertThat(r.failure()).hasValueSatisfying(f -> {
            assertThat(f.kind()).isEqualTo(SimFailure.Kind.ENGINE_ERROR);
            assertThat(f.message()).contains("boom in n1");
        });
    }

    @Test
    void anEngineThatNeverAnswersFailsTheLivenessPhase() {
        SimOptions options = quiet(SimTime.seconds(1), "").withWorkload(2, 2, 10).withTiming(SimTime.seconds(1), 200 * MS, SimTime.seconds(2), 1);
        SimResult r = Simulation.run(onStart((self, ctx) -> {}), options);
        assertThat(r.failure()).hasValueSatisfying(f -> {
            assertThat(f.kind()).isEqualTo(SimFailure.Kind.LIVENESS);
            assertThat(f.atNanos()).isEqualTo(SimTime.seconds(3));
            assertThat(f.message()).contains("client 0, client 1 did not get 1 definite answers"); // names who waits
        });
        // Every operation was recorded: reads that timed out fail, writes and cas are indeterminate.
        assertThat(r.history().ops()).filteredOn(o -> o.type() == Op.Type.OK).isEmpty();
        assertThat(r.history().ops()).filteredOn(o -> o.isClient() && o.type() != Op.Type.INVOKE).isNotEmpty()
                .allSatisfy(o -> assertThat(o.error()).isEqualTo(Keyword.of("timeout")));
    }

    @Test
    void aProtocolInvariantIsCheckedAfterEveryEvent() {
        Recorder rec = new Recorder();
        SimInvariant fewPings = SimInvariant.of("few-pings", c -> rec.of(N2, "ping-from-n1").size() > 3
                ? Optional.of("n2 got " + rec.of(N2, "ping-from-n1").size() + " pings") : Optional.empty());
        TestProtocol protocol = new TestProtocol((self, members) -> new Pinger(rec, self, members), List.of(Ping.class), List.of(fewPings));
        SimResult r = run(protocol, rec, quiet(SimTime.seconds(1), ""));
        assertThat(r.failure()).hasValueSatisfying(f -> {
            assertThat(f.check()).isEqualTo("few-pings");
            assertThat(f.message()).isEqualTo("n2 got 4 pings"); // caught at the first event that broke it
            assertThat(f.nodeStatus()).filteredOn(l -> l.startsWith("n")).hasSize(2).allSatisfy(l -> assertThat(l).contains("up"));
        });
    }

    @Test
    void messagesCanCrossTheCodec() {
        Recorder rec = new Recorder();
        TestProtocol protocol = new TestProtocol((self, members) -> new Pinger(rec, self, members));
        SimOptions options = quiet(SimTime.seconds(1), "").withNetwork(new Latency.Fixed(MS), 0, 0, 0, true);
        SimResult r = run(protocol, rec, options);
        assertThat(r.passed()).isTrue();
        assertThat(rec.of(N2, "ping-from-n1")).hasSizeGreaterThan(90);

        record Unregistered(long requestId) implements ProtocolMessage {}
        SimResult bad = Simulation.run(onStart((self, ctx) -> ctx.send(N2, new Unregistered(0))), options);
        assertThat(bad.failure()).hasValueSatisfying(f -> {
            assertThat(f.kind()).isEqualTo(SimFailure.Kind.ENGINE_ERROR);
            assertThat(f.message()).contains("Unregistered");
        });
    }

    record Chunk(SnapshotMeta meta, long offset, byte[] data, boolean last, long requestId) implements ProtocolMessage {}

    /**
     * n1 applies one command, snapshots it, then ships the snapshot to n2 in 8-byte chunks; both
     * record what their execution layer holds when they start.
     */
    static final class Shipper implements Engine {
        final Recorder rec;
        final NodeId self;
        EngineContext ctx;

        Shipper(Recorder rec, NodeId self) {
            this.rec = rec;
            this.self = self;
        }

        @Override
        public void start(EngineContext context) {
            ctx = context;
            rec.add(self, "start-applied", rec.cluster.appliedIndex(self));
            rec.add(self, "start-snapshot", ctx.snapshots().latest().map(SnapshotMeta::lastIncludedIndex).orElse(-1L));
            if (self.equals(N1) && ctx.snapshots().latest().isEmpty()) {
                ctx.deliver(new Committed(1, self, 1, new ClientRequest.Session(3, 1), KvRegisterMachine.write(5, 4)));
                ctx.takeSnapshot(77);
            }
        }

        @Override
        public void onStorageEvent(StorageEvent event) {
            switch (event) {
                case StorageEvent.SnapshotTaken t -> {
                    rec.add(self, "taken", t.snapshot().lastIncludedIndex());
                    ctx.snapshots().readChunk(t.snapshot(), 0, 8, 1);
                }
                case StorageEvent.SnapshotChunkRead c -> {
                    ctx.send(N2, new Chunk(c.snapshot(), c.offset(), c.data(), c.last(), 0));
                    if (!c.last()) ctx.snapshots().readChunk(c.snapshot(), c.offset() + c.data().length, 8, 1);
                }
                case StorageEvent.SnapshotInstalled i -> rec.add(self, "installed", rec.cluster.appliedIndex(self));
                default -> {}
            }
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {
            Chunk c = (Chunk) message;
            ctx.snapshots().writeChunk(c.meta(), c.offset(), c.data(), c.last(), 2);
        }

        @Override
        public void onTimer(TimerKey key) {}

        @Override
        public void onClientRequest(ClientRequest request) {}
    }

    @Test
    void snapshotsAreTakenShippedInstalledAndSurviveACrash() {
        Recorder rec = new Recorder();
        TestProtocol protocol = new TestProtocol((self, members) -> new Shipper(rec, self), List.of(Chunk.class), List.of());
        SimResult r = run(protocol, rec, quiet(SimTime.seconds(1), "500ms=crash:n1;600ms=restart:n1;700ms=crash:n2;800ms=restart:n2"));

        assertThat(r.passed()).as(r.failure().map(SimFailure::summary).orElse("")).isTrue();
        assertThat(rec.of(N1, "taken")).extracting(Seen::value).containsExactly(1L);
        assertThat(rec.of(N2, "installed")).extracting(Seen::value).containsExactly(1L);
        // After their crashes both restart with the execution layer restored from the snapshot.
        assertThat(rec.of(N1, "start-applied")).extracting(Seen::value).containsExactly(0L, 1L);
        assertThat(rec.of(N1, "start-snapshot")).extracting(Seen::value).containsExactly(-1L, 1L);
        assertThat(rec.of(N2, "start-applied")).extracting(Seen::value).containsExactly(0L, 1L);
    }
}
