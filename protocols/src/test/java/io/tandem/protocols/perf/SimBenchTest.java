package io.tandem.protocols.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.Protocol;
import io.tandem.protocols.Protocols;
import io.tandem.protocols.testing.BrokenProtocols;
import io.tandem.sim.SimBench;
import io.tandem.sim.SimTime;
import io.tandem.sim.cost.CostModel;
import io.tandem.sim.cost.CostTable;
import io.tandem.sim.cost.Slowdown;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The performance simulator end to end on the real engines (issue 18), with a fixed cost table of
 * this test (so the assertions do not move when the machine's table is recalibrated). Everything
 * asserted is virtual time of a deterministic model, never wall time.
 */
class SimBenchTest {
    static final CostTable TABLE = CostTable.of(Map.ofEntries(
            Map.entry("loop.default.ns", "3000"), Map.entry("loop.message.default.ns", "5000"), Map.entry("loop.client-request.ns", "4000"),
            Map.entry("transport.send.ns", "8000"), Map.entry("transport.receive.ns", "8000"), Map.entry("codec.encode.ns", "1000"),
            Map.entry("codec.decode.ns", "1000"), Map.entry("client.request.ns", "10000"), Map.entry("client.reply.ns", "8000"),
            Map.entry("client.op.ns", "20000"), Map.entry("apply.ns", "5000"), Map.entry("workload.commandBytes", "100"), Map.entry("wakeup.ns", "2000"),
            Map.entry("disk.fsync", "0:500000,0.5:1000000,0.99:3000000,1:5000000"), Map.entry("disk.bytesPerSecond", "200000000"),
            Map.entry("net.oneway", "0:20000,0.5:30000,1:100000")));

    private static SimBench.Result run(Protocol protocol, String slow) {
        SimBench.Config c = SimBench.Config.of(3, 16).withTimeline(SimTime.seconds(2), SimTime.millis(500), SimTime.seconds(1))
                .withSlow(slow == null ? List.of() : List.of(Slowdown.parse(slow)));
        return SimBench.run(protocol, c, TABLE);
    }

    @Test
    void aRunIsAFunctionOfItsInputs() {
        SimBench.Result a = run(Protocols.raft(), "follower:cpu=5%");
        SimBench.Result b = run(Protocols.raft(), "follower:cpu=5%");
        assertThat(a.ops()).isPositive().isEqualTo(b.ops());
        assertThat(a.p99Micros()).isEqualTo(b.p99Micros());
        assertThat(a.events()).isEqualTo(b.events());
        assertThat(a.leader()).isNotNull();
        assertThat(a.slowNodes()).hasSize(1).doesNotContain(a.leader());
    }

    @Test
    void aDelayedFollowerCostsRaftLittleButStallsTheTwinThatWaitsForAll() {
        SimBench.Result healthy = run(Protocols.raft(), null);
        SimBench.Result delayed = run(Protocols.raft(), "follower:net=+400ms");
        Protocol broken = BrokenProtocols.byName("raft-broken-wait-for-all-followers");
        SimBench.Result brokenHealthy = run(broken, null);
        SimBench.Result brokenDelayed = run(BrokenProtocols.byName("raft-broken-wait-for-all-followers"), "follower:net=+400ms");
        // Raft commits with the leader and the healthy follower: losing the faster of two followers costs some throughput, not most.
        assertThat(delayed.throughput()).isGreaterThan(0.6 * healthy.throughput());
        // Waiting on every follower puts the +400 ms on every commit.
        assertThat(brokenHealthy.throughput()).isGreaterThan(0.6 * healthy.throughput());
        assertThat(brokenDelayed.throughput()).isLessThan(0.1 * brokenHealthy.throughput());
        assertThat(brokenDelayed.p50Micros()).isGreaterThan(400_000);
    }

    /**
     * DepFast's question of a correct engine (issue 18): does anything wait on the slow follower? A slowed follower
     * may cost Raft what losing it costs (its commits then wait for the one remaining follower: the quorum's order
     * statistic) but not more: the leader neither waits for its acknowledgements nor spends its CPU on a queue for it.
     * The 3 % allowance is sampling, not cost: the slowed and the stopped run draw different disk and link samples.
     */
    @Test
    void aSlowedFollowerCostsRaftNoMoreThanAStoppedOne() {
        SimBench.Result stopped = run(Protocols.raft(), "follower:stop");
        for (String slow : List.of("follower:net=+400ms", "follower:cpu=5%", "follower:disk=512KiB/s", "follower:disk+=20ms")) {
            SimBench.Result r = run(Protocols.raft(), slow);
            System.out.printf("%s: %.0f ops/s, p99 %.0f us (stopped: %.0f ops/s, p99 %.0f us)%n", slow, r.throughput(), r.p99Micros(), stopped.throughput(), stopped.p99Micros());
            assertThat(r.throughput()).as(slow).isGreaterThanOrEqualTo(0.97 * stopped.throughput());
        }
    }

    /**
     * The per-peer outbox behind a connection window (issue 18, session 12): with a window small enough to fill (16 KiB,
     * a test value; the VM's measured one is 5.7 MB), a follower paused half of every second makes the unbounded-queue
     * twin leave more bytes on the leader's heap than the correct engine, whose in-flight window bounds what it puts on
     * the connection. Without a window in the table nothing ever waits in an outbox.
     */
    @Test
    void aPausedFollowerFillsTheTwinsOutboxMoreThanRaftsOnceTheWindowIsFull() {
        SimBench.Config c = SimBench.Config.of(3, 16).withTimeline(SimTime.seconds(2), SimTime.millis(500), SimTime.seconds(2))
                .withSlow(List.of(Slowdown.parse("follower:pause=500ms/1s")));
        CostTable windowed = TABLE.with("net.windowBytes", "16384");
        SimBench.Result raft = SimBench.run(Protocols.raft(), c, windowed);
        SimBench.Result twin = SimBench.run(BrokenProtocols.byName("raft-broken-unbounded-follower-queue"), c, windowed);
        System.out.printf("leader outbox max: raft %d B, unbounded-queue twin %d B%n", raft.leaderOutboxMax(), twin.leaderOutboxMax());
        assertThat(twin.leaderOutboxMax()).isGreaterThan(raft.leaderOutboxMax());
        assertThat(SimBench.run(Protocols.raft(), c, TABLE).leaderOutboxMax()).isZero();
    }

    @Test
    void sharedCoresBoundTheCpuTheWholeGroupCanUse() {
        // Not "shared is slower": with batching by drain, the queueing that sharing causes makes bigger
        // batches, and the model may then complete more operations (it did once Raft batched by drain).
        // What sharing must do is cap the core time of every node and the load generator at the cores.
        SimBench.Config dedicated = SimBench.Config.of(3, 64).withTimeline(SimTime.seconds(2), SimTime.millis(500), SimTime.seconds(1));
        SimBench.Result own = SimBench.run(Protocols.raft(), dedicated, TABLE);
        SimBench.Result shared = SimBench.run(Protocols.raft(), dedicated.withResources(CostModel.Resources.shared(2)), TABLE);
        System.out.printf("dedicated: %.0f ops/s, %.1f core-us/op; shared(2): %.0f ops/s, %.1f core-us/op%n",
                own.throughput(), own.cpuMicrosPerOp(), shared.throughput(), shared.cpuMicrosPerOp());
        assertThat(shared.leaderCpu()).isGreaterThan(0).isLessThanOrEqualTo(2.0);
        assertThat(shared.cpuMicrosPerOp() * shared.throughput()).as("core-microseconds per second on 2 shared cores").isLessThanOrEqualTo(2_000_000 * 1.001);
    }

    /**
     * The leader's utilisation and memory (issue 18, session 15): the wake-up turns are a part of the busy time, per stage, and
     * the leader's engine reports what it holds for replication over the window. With a stopped follower the correct engine's
     * in-flight bytes stay within its window (maxInflight per follower), while the unbounded-queue twin keeps sending
     * to it until its progress fallback (probe mode) stops it, so its in-flight bytes are at least as large.
     */
    @Test
    void theLeadersTurnsAndHeldMemoryAreReportedOverTheWindow() {
        SimBench.Result healthy = run(Protocols.raft(), null);
        String leader = healthy.leader();
        double busy = 0;
        double turns = 0;
        for (String stage : List.of("IO", "LOOP", "EXEC", "DISK")) {
            busy += healthy.stageCores().getOrDefault(leader + "/" + stage, 0.0);
            turns += healthy.stageTurnCores().getOrDefault(leader + "/" + stage, 0.0);
        }
        assertThat(busy).as("the leader's stages add up to its machine's busy time").isCloseTo(healthy.leaderCpu(), org.assertj.core.data.Offset.offset(0.01));
        double allKeys = healthy.stageCores().entrySet().stream().filter(e -> e.getKey().startsWith(leader + "/")).mapToDouble(java.util.Map.Entry::getValue).sum();
        assertThat(allKeys).as("stageCores holds core time only (no per-operation counters), so any sum over a machine's keys is its busy time")
                .isCloseTo(healthy.leaderCpu(), org.assertj.core.data.Offset.offset(0.01));
        assertThat(turns).isPositive().isLessThan(busy);
        assertThat(healthy.leaderHeldStart().logEntries()).isPositive();
        assertThat(healthy.leaderHeldMax().logEntries()).isGreaterThanOrEqualTo(healthy.leaderHeldEnd().logEntries());
        SimBench.Result stopped = run(Protocols.raft(), "follower:stop");
        assertThat(stopped.leaderHeldMax().inflightBytes()).as("bounded by the window").isLessThanOrEqualTo(2L * ((4 << 20) + (256 << 10)));
        assertThat(SimBench.run(Protocols.multiPaxos(), SimBench.Config.of(3, 16).withTimeline(SimTime.seconds(2), SimTime.millis(500), SimTime.seconds(1)), TABLE)
                .leaderHeldMax()).as("an engine that does not account").isEqualTo(io.tandem.sim.MemoryAccounting.Held.NONE);
    }
}
