package io.tandem.protocols.vsync;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.protocols.vsync.DurableVsyncSimulationTest.DurableTraffic;
import io.tandem.protocols.vsync.ShardSimulation.Receiver;
import io.tandem.protocols.vsync.ShardSimulation.Recorder;
import io.tandem.protocols.vsync.layout.DeliveryMode;
import io.tandem.protocols.vsync.layout.LayoutFunction;
import io.tandem.protocols.vsync.layout.ShardAllocator;
import io.tandem.protocols.vsync.layout.SubgroupPolicy;
import io.tandem.sim.Fault;
import io.tandem.sim.FaultSchedule;
import io.tandem.sim.SimFailure;
import io.tandem.sim.SimInvariant;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.SimTime;
import io.tandem.sim.Simulation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The §5.10 refill rule ({@link VsyncEngine#canRefill}) against its broken twin, in a directed
 * scenario (derecho.md §5.10, §9.3): seven members, a durable subgroup {@code kv} of three shards of
 * exactly two ({n1,n2}, {n3,n4}, {n5,n6}, n7 spare).
 *
 * <ol>
 *   <li>1.0 s: n2 crashes; the spare n7 moves into shard 0 beside n1 and starts copying the shard's
 *       history from n1. The network loses every history reply to n7 until it crashes, so n7 is still
 *       copying later (its log has nothing of the shard, no {@code Complete}).</li>
 *   <li>1.5 s: n2 restarts and joins as the spare.</li>
 *   <li>2.0 s: n1 and n7 crash: shard 0 has lost every member while the group (five of seven) lives.
 *       The next view cannot fill three shards of two without one of them back.</li>
 *   <li>2.5 s: n7 restarts first. Its log does not hold the shard's history: the real engine waits.
 *       The twin, which skips {@code canRefill} (any returning former member may refill), names n7
 *       the refill source: the shard goes on from n7's empty log, and everything persisted in it
 *       before is gone.</li>
 *   <li>3.0 s: n1 restarts; the real engine refills shard 0 from n1's log (it held the history as a
 *       member in the view that lost the shard).</li>
 * </ol>
 *
 * Checks: {@code vsync-durable-survives} (nothing reported persisted is lost or reordered) and the
 * engine's invariants, over seeds 1..{@value #SEEDS} (the network's delays and losses differ); the
 * real engine must also refill and report shard 0 persisted after n1 is back.
 */
class RefillTwinSimulationTest {
    static final int SEEDS = 5;
    static final List<NodeId> SEVEN = List.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"), NodeId.of("n4"), NodeId.of("n5"), NodeId.of("n6"), NodeId.of("n7"));
    static final NodeId N1 = SEVEN.get(0);
    static final NodeId N2 = SEVEN.get(1);
    static final NodeId N7 = SEVEN.get(6);
    static final ShardId KV0 = new ShardId("kv", 0);

    static LayoutFunction layout() {
        return new ShardAllocator(List.of(new SubgroupPolicy("kv", 3, 2, 2, DeliveryMode.DURABLE)));
    }

    static FaultSchedule schedule() {
        return new FaultSchedule(List.of(
                new Fault.Scheduled(SimTime.millis(1000), new Fault.Crash(N2)),
                new Fault.Scheduled(SimTime.millis(1500), new Fault.Restart(N2)),
                new Fault.Scheduled(SimTime.millis(2000), new Fault.Crash(N1)),
                new Fault.Scheduled(SimTime.millis(2000), new Fault.Crash(N7)),
                new Fault.Scheduled(SimTime.millis(2500), new Fault.Restart(N7)),
                new Fault.Scheduled(SimTime.millis(3000), new Fault.Restart(N1))));
    }

    /** The engine of a member: the real one, or the twin that lets any returning former member refill a shard. */
    interface Engines {
        VsyncEngine create(NodeId self, List<NodeId> members, VsyncConfig config, LayoutFunction layout, Receiver receiver, Simulation[] sim);
    }

    /** Test traffic, and n7's first incarnation never receives a history reply (the network loses them): it stays copying. */
    static class HeldCopy extends DurableTraffic {
        private final NodeId me;
        private final Simulation[] sim;
        long lostReplies;

        HeldCopy(NodeId self, List<NodeId> members, VsyncConfig config, LayoutFunction layout, Receiver receiver, Simulation[] sim) {
            super(self, members, config, layout, receiver);
            this.me = self;
            this.sim = sim;
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {
            if (me.equals(N7) && message instanceof VsyncMessage.HistoryReply reply && sim[0].nowNanos() < SimTime.millis(2000)) {
                if (reply.shard().equals(KV0)) lostReplies++;
                return;
            }
            super.onMessage(from, message);
        }
    }

    record Outcome(SimResult result, long refills, long kv0PersistedAt, boolean n7Copying) {}

    static Outcome run(long seed, String name, Engines engines) {
        VsyncConfig config = VsyncSimulationTest.SIM;
        LayoutFunction layout = layout();
        Recorder recorder = new Recorder();
        Simulation[] sim = new Simulation[1];
        Map<NodeId, Integer> incarnations = new HashMap<>();
        long[] kv0PersistedAt = {-1};
        boolean[] n7Copying = {false};
        VirtualSynchronyProtocol protocol = new VirtualSynchronyProtocol(config, layout) {
            @Override
            public String name() {
                return name;
            }

            @Override
            protected VsyncEngine newEngine(NodeId self, List<NodeId> members) {
                int n = incarnations.merge(self, 1, Integer::sum);
                Receiver receiver = new Receiver(self, recorder, n == 1) {
                    @Override
                    public void persisted(ShardId shard, long version) {
                        super.persisted(shard, version);
                        if (shard.equals(KV0)) kv0PersistedAt[0] = sim[0].nowNanos();
                    }
                };
                return engines.create(self, members, config, layout, receiver, sim);
            }

            @Override
            public List<SimInvariant> invariants() {
                List<SimInvariant> all = new ArrayList<>(super.invariants());
                all.add(SimInvariant.of("vsync-durable-survives", recorder::check));
                // The scenario's premise: just before the shard is killed, n7 serves kv/0 and has lost the history's reply.
                all.add(SimInvariant.of("scenario-n7-copying", c -> {
                    long now = sim[0].nowNanos();
                    if (now >= SimTime.millis(1900) && now < SimTime.millis(2000) && !n7Copying[0]) {
                        sim[0].engine(N7, HeldCopy.class).ifPresent(e -> n7Copying[0] = e.myShards().contains(KV0) && e.lostReplies > 0 && e.historiesCopied() == 0);
                    }
                    return java.util.Optional.empty();
                }));
                return all;
            }
        };
        SimOptions base = VsyncSimulationTest.base().withWorkload(7, 1, 0);
        base = base.withTiming(SimTime.seconds(5), base.opTimeoutNanos(), base.livenessNanos(), 0);
        sim[0] = new Simulation(protocol, base.withSeed(seed).withSchedule(schedule()));
        SimResult r = sim[0].run();
        long refills = 0;
        for (NodeId node : SEVEN) refills += sim[0].engine(node, VsyncEngine.class).map(VsyncEngine::refills).orElse(0L);
        return new Outcome(r, refills, kv0PersistedAt[0], n7Copying[0]);
    }

    @Test
    void theRealEngineWaitsForAFormerMemberThatHoldsTheHistoryAndLosesNothing() {
        for (long seed = 1; seed <= SEEDS; seed++) {
            Outcome o = run(seed, "vsync-refill-directed", HeldCopy::new);
            assertThat(o.result().passed()).as(o.result().passed() ? "" : SimRunner.describeFailure(o.result())).isTrue();
            assertThat(o.n7Copying()).as("seed %d: n7 served kv/0 without its history before the kill", seed).isTrue();
            assertThat(o.refills()).as("seed %d: shard kv/0 refilled", seed).isPositive();
            assertThat(o.kv0PersistedAt()).as("seed %d: kv/0 reports messages persisted after n1 is back", seed).isGreaterThan(SimTime.millis(3000));
            System.out.println("vsync-refill-directed seed " + seed + ": passed, refills=" + o.refills() + ", kv/0 last persisted at " + SimTime.clock(o.kv0PersistedAt()));
        }
    }

    /** The twin refills from a returning former member whose log does not hold the history: the persisted messages are lost, and the checker says so. */
    @Test
    void aTwinThatRefillsFromALogWithoutTheHistoryIsCaught() {
        Engines twin = (self, members, config, layout, receiver, sim) -> new HeldCopy(self, members, config, layout, receiver, sim) {
            @Override
            boolean canRefill(ShardId s, NodeId node, VsyncMessage.JoinRequest log) {
                return true;
            }
        };
        for (long seed = 1; seed <= SEEDS; seed++) {
            Outcome o = run(seed, "vsync-broken-refill-without-history", twin);
            assertThat(o.result().passed()).as("seed %d: the twin survived", seed).isFalse();
            SimFailure f = o.result().failure().orElseThrow();
            System.out.println("vsync-broken-refill-without-history caught at seed " + seed + ": " + f.check() + ": " + f.message());
            assertThat(f.check()).isEqualTo("vsync-durable-survives");
        }
    }
}
