package io.tandem.protocols.vsync;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.protocols.Protocols;
import io.tandem.sim.Fault;
import io.tandem.sim.FaultSchedule;
import io.tandem.sim.SimFailure;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.SimTime;
import io.tandem.sim.Simulation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Virtual synchrony in the deterministic simulator (derecho.md §9.2–9.4): five members, clients
 * sending commands and reads to any member, and fault schedules of crashes with restarts (a
 * restarted process joins again with state transfer), pauses (a paused member is removed and, when
 * it wakes, finds itself excluded, shuts down and joins again) and partitions that cut a minority
 * off (the minority shuts itself down; it joins again after the heal). After every event the
 * invariants of {@link VirtualSynchronyProtocol#invariants()} hold (same view, same set; total
 * order; no delivery after wedge) plus the simulator's own state-machine safety (the same command at
 * the same index on every member, across crashes); the client history is linearizable.
 *
 * <p>The schedules respect Derecho's progress condition (derecho.md §5.12): one episode at a time,
 * never more than a minority out, and time to rejoin between episodes. Derecho stops by design when
 * a majority of the view is lost (no partitions allowed, and volatile state is gone after a total
 * failure), so the generic schedules of {@code ./tandem sim}, which may cut every member off from a
 * majority, end in a liveness failure for this protocol by design.
 *
 * <p>{@code -Dvsync.sim.seeds=N} runs more seeds (the default keeps the suite fast); replay one with
 * {@code -Dvsync.sim.first=SEED -Dvsync.sim.seeds=1}.
 */
class VsyncSimulationTest {
    private static final int SEEDS = Integer.getInteger("vsync.sim.seeds", 20);
    private static final long FIRST = Long.getLong("vsync.sim.first", 1);
    static final VsyncConfig SIM = VsyncConfig.DEFAULTS.withTimers(Duration.ofMillis(10), Duration.ofMillis(100), Duration.ofMillis(30), Duration.ofMillis(150));
    private static final List<NodeId> FIVE = List.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"), NodeId.of("n4"), NodeId.of("n5"));

    static SimOptions base() {
        SimOptions o = SimOptions.defaults();
        return o.withWorkload(5, o.clients(), o.ops());
    }

    /**
     * Episodes one at a time: a crash and restart, a pause and resume, or a partition that isolates
     * one or two of the five from the rest, then a gap long enough to rejoin.
     */
    static FaultSchedule minorityFaults(long seed, long durationNanos) {
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 7);
        List<Fault.Scheduled> events = new ArrayList<>();
        long t = SimTime.millis(50) + random.nextLong(SimTime.millis(300));
        while (t < durationNanos - SimTime.millis(300)) {
            long length = SimTime.millis(20) + random.nextLong(SimTime.millis(600));
            NodeId node = FIVE.get(random.nextInt(FIVE.size()));
            switch (random.nextInt(4)) {
                case 0 -> {
                    events.add(new Fault.Scheduled(t, new Fault.Crash(node)));
                    events.add(new Fault.Scheduled(t + length, new Fault.Restart(node)));
                }
                case 1 -> {
                    events.add(new Fault.Scheduled(t, new Fault.Pause(node)));
                    events.add(new Fault.Scheduled(t + length, new Fault.Resume(node)));
                }
                default -> {
                    Set<NodeId> cut = new HashSet<>();
                    cut.add(node);
                    if (random.nextBoolean()) cut.add(FIVE.get(random.nextInt(FIVE.size())));
                    Set<Fault.Link> blocked = new HashSet<>();
                    for (NodeId a : cut) {
                        for (NodeId b : FIVE) {
                            if (cut.contains(b)) continue;
                            blocked.add(new Fault.Link(a, b));
                            blocked.add(new Fault.Link(b, a));
                        }
                    }
                    events.add(new Fault.Scheduled(t, new Fault.Partition("minority", blocked)));
                    events.add(new Fault.Scheduled(t + length, new Fault.Heal()));
                }
            }
            t += length + SimTime.millis(400) + random.nextLong(SimTime.millis(500));
        }
        return new FaultSchedule(events);
    }

    record Outcome(int seeds, List<SimResult> failures, long ops) {}

    static Outcome run(VirtualSynchronyProtocol protocol, SimOptions base, long first, int seeds, int maxFailures) {
        List<SimResult> failures = new ArrayList<>();
        long ops = 0;
        int ran = 0;
        for (long seed = first; seed < first + seeds && failures.size() < maxFailures; seed++) {
            SimOptions o = base.withSeed(seed).withSchedule(minorityFaults(seed, base.durationNanos()));
            SimResult r = Simulation.run(protocol, o);
            ran++;
            ops += r.completedOps();
            if (!r.passed()) failures.add(r);
        }
        System.out.println(protocol.name() + ": seeds=" + ran + " failures=" + failures.size() + " ops=" + ops);
        return new Outcome(ran, failures, ops);
    }

    private static String describe(Outcome o) {
        StringBuilder b = new StringBuilder();
        for (SimResult r : o.failures()) b.append(SimRunner.describeFailure(r)).append('\n');
        return b.toString();
    }

    @Test
    void everySeedKeepsVirtualSynchronyThroughCrashesJoinsPausesAndMinorityPartitions() {
        Outcome o = run(new VirtualSynchronyProtocol(SIM), base(), FIRST, SEEDS, 3);
        assertThat(o.failures()).as(describe(o)).isEmpty();
        assertThat(o.ops()).isGreaterThan((long) o.seeds() * base().ops() / 2);
    }

    @Test
    void throughTheCodecWithThreeMembersAndCrashesOnly() {
        SimOptions o = SimOptions.defaults().withFaults(java.util.EnumSet.of(io.tandem.sim.FaultKind.CRASH)).withFaultRate(0.5, SimTime.millis(300));
        o = o.withNetwork(o.networkLatency(), o.lossRate(), o.duplicateRate(), o.reorderRate(), true);
        // Generic schedules here: crashes of three members overlap only rarely at this rate.
        SimRunner.Summary s = SimRunner.run(new VirtualSynchronyProtocol(SIM), o, SimOptions.seeds(1, Math.max(10, SEEDS / 4)), 3, null);
        System.out.println("virtual-synchrony (3 members, codec, crashes): " + s.line());
        List<SimResult> unexpected = s.failures().stream().filter(r -> r.failure().orElseThrow().kind() != SimFailure.Kind.LIVENESS).toList();
        assertThat(unexpected).as(s.failures().stream().map(SimRunner::describeFailure).reduce("", String::concat)).isEmpty();
    }

    @Test
    void theRegistryOffersItByName() {
        assertThat(Protocols.byName(VirtualSynchronyProtocol.NAME)).isInstanceOf(VirtualSynchronyProtocol.class);
        assertThat(Protocols.virtualSynchrony()).isInstanceOf(VirtualSynchronyProtocol.class);
    }

    /**
     * {@code tandem sim --window W} (issue 22): every seed keeps W while its timers are still drawn as without it
     * (the same draws from the same seed), sharded or not, and the name carries the flag for the replay line.
     */
    @Test
    void aSimulatedWindowIsKeptThroughEveryDrawAndNamedForTheReplay() {
        VirtualSynchronyProtocol drawnOnly = new VirtualSynchronyProtocol().withRandomConfig(new SplittableRandom(7), 5);
        VirtualSynchronyProtocol kept = new VirtualSynchronyProtocol().withSimulatedWindow(1024).withRandomConfig(new SplittableRandom(7), 5);
        assertThat(kept.config().window()).isEqualTo(1024);
        assertThat(kept.config().withWindow(drawnOnly.config().window(), drawnOnly.config().slotBytes())).isEqualTo(drawnOnly.config());
        assertThat(kept.name()).isEqualTo("virtual-synchrony --window 1024");
        assertThat(kept.withRandomConfig(new SplittableRandom(8), 5).config().window()).as("a second draw keeps it too").isEqualTo(1024);
        assertThat(drawnOnly.name()).isEqualTo(VirtualSynchronyProtocol.NAME);

        ShardSimulation sharded = ShardSimulation.over(new VirtualSynchronyProtocol(), 2, false, 5);
        VirtualSynchronyProtocol shardedKept = sharded.withSimulatedWindow(512).withRandomConfig(new SplittableRandom(7), 5);
        assertThat(shardedKept).isInstanceOf(ShardSimulation.class);
        assertThat(shardedKept.config().window()).isEqualTo(512);
        assertThat(shardedKept.name()).isEqualTo("virtual-synchrony --shards 2 --window 512");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new VirtualSynchronyProtocol().withSimulatedWindow(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--window must be >= 1, was 0");
    }

    // ---- directed leader failures (derecho.md §9.3 S5, S6) ----

    /** n5 crashes at 300 ms; n1, the leader, then pushes its proposal (or its trim) to n2 only and falls silent. */
    private static Simulation leaderFailsDuring(String step) {
        FaultSchedule schedule = new FaultSchedule(List.of(new Fault.Scheduled(SimTime.millis(300), new Fault.Crash(NodeId.of("n5")))));
        VirtualSynchronyProtocol p = VsyncTwins.leaderStopsAfter(SIM, NodeId.of("n1"), step, 1);
        SimOptions o = base().withSeed(11).withSchedule(schedule).withTiming(SimTime.seconds(2), SimTime.seconds(1), SimTime.seconds(10), 2);
        return new Simulation(p, o);
    }

    private static void survivorsMovedOnWithoutTheLeader(Simulation sim, SimResult r) {
        assertThat(r.failure()).as(() -> SimRunner.describeFailure(r)).isEmpty();
        for (String n : List.of("n2", "n3", "n4")) {
            assertThat(sim.views(NodeId.of(n))).as(n + "'s views").anyMatch(v -> !v.contains(NodeId.of("n1")) && !v.contains(NodeId.of("n5")));
        }
    }

    @Test
    void aLeaderThatFailsMidProposalIsReplacedAndEveryoneAgrees() {
        Simulation sim = leaderFailsDuring("proposal");
        SimResult r = sim.run();
        survivorsMovedOnWithoutTheLeader(sim, r);
    }

    @Test
    void aLeaderThatFailsMidTrimHasItsTrimReusedByTheNextLeader() {
        Simulation sim = leaderFailsDuring("trim");
        SimResult r = sim.run();
        survivorsMovedOnWithoutTheLeader(sim, r);
        // n2 alone got n1's trim and echoed it; n2, the next leader, reused it (V5) instead of computing its own.
        assertThat(sim.engine(NodeId.of("n2"), VsyncEngine.class).orElseThrow().trimsAdopted() + sim.engine(NodeId.of("n3"), VsyncEngine.class).orElseThrow().trimsAdopted())
                .isPositive();
    }

    // ---- the command line's seed mix, under the protocol's own fault model ----

    /**
     * {@code ./tandem sim --protocol virtual-synchrony}: random engine configurations, the mixed
     * profiles, and schedules of {@link VirtualSynchronyProtocol#faultModel} (a minority out at a time,
     * failed members back as new members). Every check is strict here, liveness included. Seed 23
     * crashed n3 0.3 ms in, before it recorded that it had started: its restart installed the initial
     * view again while the others had removed it, and it waited there (fixed by ViewProbe/Moved).
     */
    @Test
    void theCommandLinesMixPassesEveryCheckUnderTheMinorityModel() {
        SimRunner.Summary bootstrapCrash = SimRunner.run(new VirtualSynchronyProtocol(), SimOptions.mix(), SimOptions.seeds(23, 1), 1, null);
        assertThat(bootstrapCrash.failures()).as(bootstrapCrash.failures().stream().map(SimRunner::describeFailure).reduce("", String::concat)).isEmpty();
        // Seeds 579 and 2233: a partition of a few milliseconds isolated one member, whose failed pushes made it
        // suspect a member of the majority; after the heal the others adopted that suspicion (derecho.md §5.2) and removed
        // the healthy member, which shut down. The fault model's supervisor then restarted the member it had isolated, by
        // name: half of the two-member view, so the last one shut down as a minority. The supervisor now restarts whichever
        // members stopped (Fault.Supervise). Seed 1099: a 6 ms partition of n3 ended in every member shut down, because
        // the simulator failed a region push at once across any cut, where TCP (and RDMA, until its retry count runs
        // out) delivers it after a short cut; the simulator now holds pushes across a cut until the link heals or the
        // cut outlasts the connection (Simulation.REGION_LINK_TIMEOUT). Seed 1948, found by that change: n1, cut off
        // for 688 ms (suspicion 660 ms), suspected n3 a beat before n2 and published it; the held write reached n2
        // after the heal, before n2 suspected n1, and n2 removed n3 on n1's word: every member shut down. A member
        // now publishes no suspicion while the members still on their way to the limit would make a majority with it.
        for (long seed : new long[] {579, 1099, 1948, 2233}) {
            SimRunner.Summary s = SimRunner.run(new VirtualSynchronyProtocol(), SimOptions.mix(), SimOptions.seeds(seed, 1), 1, null);
            assertThat(s.failures()).as("seed %d: %s", seed, s.failures().stream().map(SimRunner::describeFailure).reduce("", String::concat)).isEmpty();
        }
        SimRunner.Summary s = SimRunner.run(new VirtualSynchronyProtocol(), SimOptions.mix(), SimOptions.seeds(FIRST, SEEDS), 3, null);
        System.out.println("virtual-synchrony (command-line mix, minority model): " + s.line());
        assertThat(s.failures()).as(s.failures().stream().map(SimRunner::describeFailure).reduce("", String::concat)).isEmpty();
    }

    // ---- seed 18 of ./tandem sim: a second copy of the state restored over the first ----

    /**
     * The case of seed 18 of {@code ./tandem sim --protocol virtual-synchrony} (slow-disk profile): n3
     * crashes and restarts, joins, and n1 sends it the state again (on n3's repeated join request)
     * while n3's slow disk still holds the first copy. Store writes complete in any order; before the
     * fix n3 took the view on whichever copy completed first, applied the view's first commands on
     * top, and the other copy's completion rewound its state machine ("n3 delivered index 49 but its
     * next index to apply is 44"). Directed here (a crash, then n3's disk 40 times slower while it
     * joins) so that the case is reached whatever the engine's other messages shift in the run.
     */
    static SimOptions slowJoiner(long seed) {
        FaultSchedule schedule = FaultSchedule.parse("300ms=crash:n3;400ms=restart:n3;401ms=slow:n3:40;2500ms=unslow:n3");
        SimOptions o = SimOptions.defaults().toBuilder().diskLatency(new io.tandem.sim.Latency.Uniform(SimTime.millis(2), SimTime.millis(25))).build();
        return o.withSeed(seed).withSchedule(schedule);
    }

    private static final int SLOW_JOINER_SEEDS = 12;

    @Test
    void aJoinerRestoresOneCopyOfTheStateEvenWhenItIsSentTwiceOverASlowDisk() {
        long ignored = 0;
        for (long seed = 1; seed <= SLOW_JOINER_SEEDS; seed++) {
            Simulation sim = new Simulation(new VirtualSynchronyProtocol(SIM), slowJoiner(seed));
            SimResult r = sim.run();
            assertThat(r.failure()).as(() -> SimRunner.describeFailure(r)).isEmpty();
            ignored += sim.engine(NodeId.of("n3"), VsyncEngine.class).orElseThrow().stateCopiesIgnored();
        }
        // The runs did reach the case: second copies came while the first was with the store.
        assertThat(ignored).isPositive();
    }

    @Test
    void aJoinerThatWritesEveryCopyOfTheStateIsCaught() {
        List<SimFailure> failures = new ArrayList<>();
        for (long seed = 1; seed <= SLOW_JOINER_SEEDS && failures.isEmpty(); seed++) {
            Simulation.run(VsyncTwins.stateWrittenTwice(SIM), slowJoiner(seed)).failure().ifPresent(failures::add);
        }
        assertThat(failures).as("the state-written-twice twin survived %d slow joins", SLOW_JOINER_SEEDS).isNotEmpty();
        assertThat(failures.getFirst().kind()).isEqualTo(SimFailure.Kind.SAFETY);
        System.out.println("state-written-twice caught: " + failures.getFirst().check() + ": " + failures.getFirst().message());
    }

    // ---- broken twins (test code only) must be caught ----

    private static SimResult caught(VirtualSynchronyProtocol broken, int seeds) {
        Outcome o = run(broken, base(), 1, seeds, 1);
        assertThat(o.failures()).as("%s survived %d seeds", broken.name(), o.seeds()).isNotEmpty();
        SimResult r = o.failures().getFirst();
        SimFailure f = r.failure().orElseThrow();
        System.out.println(broken.name() + " caught at seed " + r.seed() + ": " + f.check() + ": " + f.message());
        assertThat(f.kind()).isNotEqualTo(SimFailure.Kind.LIVENESS);
        assertThat(Simulation.run(broken, r.options()).failure()).isEqualTo(r.failure()); // it replays exactly
        return r;
    }

    @Test
    void aTrimWithoutTheMinimumIsCaught() {
        caught(VsyncTwins.trimWithoutMinimum(SIM), 100);
    }

    @Test
    void deliveryBeforeStabilityIsCaught() {
        caught(VsyncTwins.deliveryBeforeStability(SIM), 100);
    }
}
