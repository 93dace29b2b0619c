package io.tandem.protocols.vsync;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.protocols.vsync.DurableVsyncSimulationTest.DurableTraffic;
import io.tandem.protocols.vsync.ShardSimulation.Receiver;
import io.tandem.protocols.vsync.ShardSimulation.Recorder;
import io.tandem.protocols.vsync.layout.DeliveryMode;
import io.tandem.protocols.vsync.layout.LayoutFunction;
import io.tandem.protocols.vsync.layout.ShardAllocator;
import io.tandem.protocols.vsync.layout.SubgroupPolicy;
import io.tandem.sim.Fault;
import io.tandem.sim.FaultSchedule;
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
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A durable shard that loses every member while the group lives (derecho.md §5.10, §9.3): six
 * members, a durable subgroup {@code kv} of three shards of exactly two members ({n1,n2}, {n3,n4},
 * {n5,n6}: the allocator keeps members in place, so a static schedule can name a whole shard). Both
 * members of one shard crash (at one instant, or one after the other), the other four live on (four
 * of six: the group keeps its majority) and wait, wedged: the next view cannot fill the shard, and
 * nobody alive has its history. The two come back one after the other; the leader takes the first
 * one back in with its seat's removal (a rejoin) and refills the shard from its log, or waits for the
 * second if the first's log does not hold the history. Between those episodes one member sometimes
 * crashes and restarts alone (a rejoin into a shard that kept its other member).
 *
 * <p>Checked: {@link Recorder}'s {@code vsync-durable-survives} (nothing reported persisted is lost
 * or reordered: every member holding a shard's history that delivers past a persisted version
 * delivered it, with its payload), the engine's own invariants (view agreement, per-shard total
 * order, same view same set, layout agreement), and progress: every shard reports new messages
 * persisted after the last member came back, and the whole-shard kills were refilled.
 *
 * <p>Default build: 4 seeds; {@code -Dvsync.refill.seeds=N -Dvsync.refill.first=F} more.
 */
class ShardRefillSimulationTest {
    private static final int SEEDS = Integer.getInteger("vsync.refill.seeds", 4);
    private static final long FIRST = Long.getLong("vsync.refill.first", 1);
    static final List<NodeId> SIX = List.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"), NodeId.of("n4"), NodeId.of("n5"), NodeId.of("n6"));

    static LayoutFunction layout() {
        return new ShardAllocator(List.of(new SubgroupPolicy("kv", 3, 2, 2, DeliveryMode.DURABLE)));
    }

    /** Whole-shard kills and single crashes, one at a time; returns the schedule and the time of its last restart. */
    static FaultSchedule shardKills(long seed, long durationNanos, long[] lastRestart) {
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 23);
        List<Fault.Scheduled> events = new ArrayList<>();
        long t = SimTime.millis(300) + random.nextLong(SimTime.millis(300));
        while (t < durationNanos - SimTime.millis(2500)) {
            if (random.nextInt(3) == 0) {
                NodeId x = SIX.get(random.nextInt(SIX.size()));
                events.add(new Fault.Scheduled(t, new Fault.Crash(x)));
                t += SimTime.millis(50) + random.nextLong(SimTime.millis(300));
                events.add(new Fault.Scheduled(t, new Fault.Restart(x)));
                lastRestart[0] = t;
                t += SimTime.millis(600) + random.nextLong(SimTime.millis(300));
                continue;
            }
            int shard = random.nextInt(3);
            NodeId a = SIX.get(2 * shard);
            NodeId b = SIX.get(2 * shard + 1);
            if (random.nextBoolean()) {
                NodeId swap = a;
                a = b;
                b = swap;
            }
            // Half of the time both at one instant (what neither synced is gone), else the second up to 300 ms later.
            long second = random.nextBoolean() ? 0 : random.nextLong(SimTime.millis(300));
            events.add(new Fault.Scheduled(t, new Fault.Crash(a)));
            events.add(new Fault.Scheduled(t + second, new Fault.Crash(b)));
            t += second + SimTime.millis(100) + random.nextLong(SimTime.millis(400));
            // They come back one after the other: the first one alone may have to refill the shard.
            events.add(new Fault.Scheduled(t, new Fault.Restart(random.nextBoolean() ? a : b)));
            t += SimTime.millis(50) + random.nextLong(SimTime.millis(500));
            events.add(new Fault.Scheduled(t, new Fault.Restart(a)));
            events.add(new Fault.Scheduled(t, new Fault.Restart(b)));
            lastRestart[0] = t;
            t += SimTime.millis(800) + random.nextLong(SimTime.millis(400));
        }
        return new FaultSchedule(events);
    }

    record Stats(List<SimResult> failures, int seeds, long refills, long kills, long persisted, long replays) {}

    static Stats run(long first, int seeds) {
        List<SimResult> failures = new ArrayList<>();
        long refills = 0;
        long kills = 0;
        long persisted = 0;
        long replays = 0;
        int ran = 0;
        VsyncConfig config = VsyncSimulationTest.SIM;
        LayoutFunction layout = layout();
        SimOptions base = VsyncSimulationTest.base().withWorkload(6, 1, 0);
        base = base.withTiming(SimTime.seconds(8), base.opTimeoutNanos(), base.livenessNanos(), 0);
        for (long seed = first; seed < first + seeds && failures.size() < 3; seed++) {
            Recorder recorder = new Recorder();
            long[] lastRestart = {0};
            FaultSchedule schedule = shardKills(seed, base.durationNanos(), lastRestart);
            kills += schedule.events().stream().filter(e -> e.fault() instanceof Fault.Crash).count();
            Simulation[] sim = new Simulation[1];
            // Per shard, the last virtual time any member was told a message of it is persisted.
            Map<ShardId, Long> lastPersisted = new HashMap<>();
            Map<NodeId, Integer> incarnations = new HashMap<>();
            VirtualSynchronyProtocol protocol = new VirtualSynchronyProtocol(config, layout) {
                @Override
                public String name() {
                    return "vsync-shard-refill";
                }

                @Override
                protected VsyncEngine newEngine(NodeId self, List<NodeId> members) {
                    int n = incarnations.merge(self, 1, Integer::sum);
                    Receiver receiver = new Receiver(self, recorder, n == 1) {
                        @Override
                        public void persisted(ShardId shard, long version) {
                            super.persisted(shard, version);
                            lastPersisted.put(shard, sim[0].nowNanos());
                        }
                    };
                    return new DurableTraffic(self, members, config, layout, receiver);
                }

                @Override
                public List<SimInvariant> invariants() {
                    List<SimInvariant> all = new ArrayList<>(super.invariants());
                    all.add(SimInvariant.of("vsync-durable-survives", recorder::check));
                    return all;
                }
            };
            sim[0] = new Simulation(protocol, base.withSeed(seed).withSchedule(schedule));
            SimResult r = sim[0].run();
            ran++;
            if (!r.passed()) {
                failures.add(r);
                continue;
            }
            long seedRefills = 0;
            for (NodeId node : SIX) seedRefills += sim[0].engine(node, VsyncEngine.class).map(VsyncEngine::refills).orElse(0L);
            refills += seedRefills;
            for (int k = 0; k < 3; k++) {
                long at = lastPersisted.getOrDefault(new ShardId("kv", k), -1L);
                if (at <= lastRestart[0]) {
                    String states = SIX.stream().map(node -> node + ": " + sim[0].engine(node, VsyncEngine.class).map(VsyncEngine::inspect).orElse("down")).reduce("", (x, y) -> x + "\n  " + y);
                    throw new AssertionError("seed " + seed + ": shard kv/" + k + " reported nothing persisted after the last restart at " + SimTime.clock(lastRestart[0])
                            + " (last at " + (at < 0 ? "never" : SimTime.clock(at)) + ")" + states);
                }
            }
            persisted += recorder.persistedSignals;
            replays += recorder.replays;
        }
        System.out.println("vsync-shard-refill: seeds=" + ran + " failures=" + failures.size() + " crashes scheduled=" + kills + " refill views (last incarnations)=" + refills
                + " persisted upcalls=" + persisted + " replays=" + replays);
        return new Stats(failures, ran, refills, kills, persisted, replays);
    }

    @Test
    void aShardThatLostEveryMemberIsRefilledFromAFormerMembersLogAndNothingPersistedIsLost() {
        Stats s = run(FIRST, SEEDS);
        assertThat(s.failures()).as(s.failures().stream().map(SimRunner::describeFailure).reduce("", String::concat)).isEmpty();
        assertThat(s.refills()).as("views that refilled a shard from a former member's log").isPositive();
        assertThat(s.persisted()).isPositive();
    }

    /** The same failures without the refill rule (the old engine's wait) leave the group wedged: the test would notice. */
    @Test
    void scheduleKillsWholeShards() {
        long[] last = {0};
        FaultSchedule f = shardKills(1, SimTime.seconds(8), last);
        boolean whole = false;
        List<Fault.Scheduled> e = f.events();
        for (int i = 0; i + 1 < e.size(); i++) {
            if (e.get(i).fault() instanceof Fault.Crash(NodeId a) && e.get(i + 1).fault() instanceof Fault.Crash(NodeId b)) {
                int ia = SIX.indexOf(a);
                int ib = SIX.indexOf(b);
                whole |= ia / 2 == ib / 2 && ia != ib;
            }
        }
        assertThat(whole).as("seed 1 kills both members of a shard").isTrue();
        assertThat(last[0]).isPositive();
    }
}
