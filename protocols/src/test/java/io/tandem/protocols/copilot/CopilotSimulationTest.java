package io.tandem.protocols.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.protocols.Protocols;
import io.tandem.protocols.failslow.SlownessDetector;
import io.tandem.sim.FaultKind;
import io.tandem.sim.Latency;
import io.tandem.sim.SimFailure;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.SimTime;
import io.tandem.sim.Simulation;
import io.tandem.engine.NodeId;
import java.util.Optional;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * Copilot in the deterministic simulator: every fault kind (partitions, crashes with lost unsynced
 * writes and torn records, pauses, clock jumps, slow nodes and links, loss bursts, duplication,
 * reordering), the Copilot invariants after every step ({@link CopilotInvariants} and the built-in
 * agreement of every replica on the combined order) and linearizability of every history.
 * {@code -Dcopilot.sim.seeds=N} runs more seeds per test; replay one seed with {@code -Dtandem.sim.seed=N}.
 */
class CopilotSimulationTest {
    private static final int SEEDS = Integer.getInteger("copilot.sim.seeds", 200);
    private static final int SMALL = Math.max(30, SEEDS / 4);

    private static String failures(SimRunner.Summary s) {
        StringBuilder b = new StringBuilder();
        for (SimResult r : s.failures()) b.append(SimRunner.describeFailure(r)).append('\n');
        return b.toString();
    }

    private static SimRunner.Summary run(CopilotProtocol p, SimOptions o, int seeds, String label) {
        SimRunner.Summary s = SimRunner.run(p, o, SimOptions.seeds(1, seeds), 3, null);
        System.out.println(label + ": " + s.line());
        return s;
    }

    /** Short timers, tiny batches and windows, so a five-second run goes through many takeovers and resends. */
    static CopilotConfig stress() {
        return CopilotConfig.DEFAULTS
                .withTimers(Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(1), Duration.ofMillis(20), Duration.ofMillis(20))
                .withLimits(4, 4, 8, 10_000);
    }

    @Test
    void defaultSettingsPassEverySeedWithAllFaults() {
        SimRunner.Summary s = SimRunner.run(Protocols.byName("copilot"), SimOptions.defaults(), SimOptions.seeds(1, SEEDS), 3, null);
        System.out.println("copilot: " + s.line());
        assertThat(s.failures()).as(failures(s)).isEmpty();
        assertThat(s.ops()).isGreaterThan((long) s.seeds() * SimOptions.defaults().ops() * 9 / 10);
    }

    /**
     * The seed mix of {@code ./tandem sim} (crash-heavy and slow-disk profiles), which the other tests do
     * not use. Seed 398 of it stalled log 0 before the pilot stood again when outranked: a candidate's
     * view reached only itself (84 % loss), it then became the other log's pilot and never stood again,
     * and it refused the old view's proposals for good, so every slot needed a takeover.
     */
    @Test
    void theSeedMixOfTheCommandLinePasses() {
        SimRunner.Summary stalled = SimRunner.run(new CopilotProtocol(), SimOptions.mix(), SimOptions.seeds(398, 1), 1, null);
        assertThat(stalled.failures()).as(failures(stalled)).isEmpty();
        SimRunner.Summary s = SimRunner.run(new CopilotProtocol(), SimOptions.mix(), SimOptions.seeds(1, MIX_SEEDS), 3, null);
        System.out.println("copilot (seed mix): " + s.line());
        assertThat(s.failures()).as(failures(s)).isEmpty();
        if (MIX_SEEDS > SMALL) { // the long run: as many seeds at 5 nodes
            SimOptions five = SimOptions.mix().withWorkload(5, SimOptions.mix().clients(), SimOptions.mix().ops());
            SimRunner.Summary f = SimRunner.run(new CopilotProtocol(), five, SimOptions.seeds(1, MIX_SEEDS), 3, null);
            System.out.println("copilot (seed mix, 5 nodes): " + f.line());
            assertThat(f.failures()).as(failures(f)).isEmpty();
        }
    }

    /** Seeds of the mix to run: {@code -Dcopilot.sim.mixSeeds=1000} for the long run (3 and 5 nodes). */
    private static final int MIX_SEEDS = Integer.getInteger("copilot.sim.mixSeeds", SMALL);

    /**
     * Seeds of the mix (all slow-disk: flushes of 2 to 25 ms) that stalled once pilot election landed,
     * each beyond the 10 s liveness bound. A new pilot (or a restarted one) recovered the slots it
     * inherited one log head at a time, and each takeover started over at a higher ballot whenever its
     * timer fired before the slow disks had answered, so forty inherited slots took about eight
     * seconds while nothing executed. Now the inherited slots are taken over at once
     * ({@link CopilotEngine#blockers}) and an unrefused takeover repeats its phase at the same ballot
     * ({@link Takeovers#onRetry}).
     */
    @Test
    void theSeedsThatStalledAfterPilotElectionPass() {
        SimOptions five = SimOptions.mix().withWorkload(5, SimOptions.mix().clients(), SimOptions.mix().ops());
        for (long seed : new long[] {235, 255, 366, 452}) {
            SimRunner.Summary s = SimRunner.run(new CopilotProtocol(), five, SimOptions.seeds(seed, 1), 1, null);
            assertThat(s.failures()).as("5 nodes, seed %d: %s", seed, failures(s)).isEmpty();
        }
        for (long seed : new long[] {615, 631, 791, 1028, 1045}) {
            SimRunner.Summary s = SimRunner.run(new CopilotProtocol(), SimOptions.mix(), SimOptions.seeds(seed, 1), 1, null);
            assertThat(s.failures()).as("3 nodes, seed %d: %s", seed, failures(s)).isEmpty();
        }
    }

    /**
     * Seed 2191 of the mix (crash-heavy, snapshots every 64 slots, none retained): a replica needed two
     * slots of the other log that its peers had compacted, and their snapshot held no more commands than
     * it had delivered (the slots were no-ops), so it never installed it and stalled.
     */
    @Test
    void aSnapshotAheadInTheLogsButNotInCommandsIsInstalled() {
        SimRunner.Summary s = SimRunner.run(new CopilotProtocol(), SimOptions.mix(), SimOptions.seeds(2191, 1), 1, null);
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }

    /**
     * Seeds 3788 and 2641 of the mix (issue 19, with copilot9's ping-pong timing): null-dependency
     * elimination let replicas run the two logs in different interleavings, so a stalled replica's
     * cursors were behind its peers' current ones but not behind their newest snapshot (3788: it at
     * (184, 137), its peers at (235, 140) with a snapshot at (180, 140)); the slots it needed were
     * compacted at both peers, it refused their snapshot, and no new one came. A peer asked about a
     * compacted slot now snapshots at its current cursors. 2641 stalled with both sides' current
     * cursors incomparable (one replica at (169, 176) with log 0 compacted below 167, the only commits
     * of 133..166; its peers at (133, 202) with log 1 compacted below 200): compaction now keeps the
     * slots that ran ahead of the other log's snapshot cursor. Each change alone fixes one of the two
     * seeds (checked with the other one disabled).
     */
    @Test
    void aPeerAskedAboutACompactedSlotOffersAFreshSnapshot() {
        for (long seed : new long[] {3788, 2641}) {
            SimRunner.Summary s = SimRunner.run(new CopilotProtocol(), SimOptions.mix(), SimOptions.seeds(seed, 1), 1, null);
            assertThat(s.failures()).as("seed %d: %s", seed, failures(s)).isEmpty();
        }
    }

    /**
     * Seed 43 of the mix (3 nodes, crash-heavy, snapshots every 4 slots, nothing retained; found with
     * copilot12's ping-pong rule): replicas ran concurrent entries in different interleavings (n3 ran
     * 0.31-0.49 with 1.37 unknown to it; n1 and n2 ran a takeover's no-ops 1.37-1.66, dependency ⊥,
     * with 0.31 not known committed there), so their execution points were not nested: n3 at (50, 37),
     * n1 and n2 at (31, 68). With compaction keeping only the slots whose dependency ran ahead
     * (copilot10's rule, the broken twin {@code KEEP_ONLY_DEPENDENCY_RUN_AHEAD}) each side compacted
     * what the other needed, neither could install the other's snapshot, and the takeover of 0.31
     * could not finish without n3's vote: a liveness failure with every node up. Compaction now also
     * keeps a slot that ran ahead of an other-log head a peer may run first ({@link Slot#ranBefore}).
     *
     * <p>Seed 43's minimal fault schedule (its pilot n2 crashes, comes back and takes its lost slots
     * over as no-ops while n1 and n3 crash in turn) under the crash-heavy profile and the mix's drawn
     * configurations: the seeds below are the first five of 1-1000 on which the twin stalls (the standard engine
     * passes all 200 of 1-200: {@code ./tandem sim --protocol copilot --seeds 200 --profile crash-heavy
     * --schedule ...}). The probe checks that the runs do reach execution points that are not nested.
     * (Found again with {@code NonNestedTwinSeedProbe} after the Commit piggyback changed the timing, copilot17: the
     * twin then stalls on seed 103 of 1-200 and on 216, 218, 321, 424, 467, 675, 704, 807, 959 and 996 of 201-1000,
     * always LIVENESS, and the engine passes every one; before it stalled on 53, 87, 90, 103 and 163.)
     */
    @Test
    void membersWhoseExecutionPointsAreNotNestedKeepWhatTheOtherNeeds() {
        long[] nonNested = new long[1];
        io.tandem.sim.SimInvariant probe = io.tandem.sim.SimInvariant.of("copilot-non-nested-probe", c -> {
            java.util.List<CopilotEngine> es = new java.util.ArrayList<>();
            for (NodeId n : c.members()) c.engine(n, CopilotEngine.class).ifPresent(es::add);
            for (CopilotEngine a : es) {
                for (CopilotEngine b : es) {
                    if (a.cursor(0) > b.cursor(0) && a.cursor(1) < b.cursor(1)) nonNested[0]++;
                }
            }
            return Optional.empty();
        });
        SimOptions o = SimOptions.mix().toBuilder().profile(io.tandem.sim.FaultProfile.CRASH_HEAVY).build().withSchedule(io.tandem.sim.FaultSchedule.parse(
                "221360307ns=pause:n3;750681013ns=resume:n3;1165496112ns=crash:n2;1242634782ns=partition:halves:n1>n3,n2>n3,n3>n1,n3>n2;1352487305ns=heal;"
                        + "1389871349ns=crash:n1;1678988955ns=restart:n2;1683202551ns=crash:n3;2193887615ns=restart:n1;2346735442ns=restart:n3"));
        CopilotProtocol twin = (CopilotProtocol) Protocols.byName(BrokenCopilot.Bug.KEEP_ONLY_DEPENDENCY_RUN_AHEAD.protocolName());
        for (long seed : new long[] {103, 216, 218, 321, 424}) {
            SimResult fixed = Simulation.run(new Probed(new CopilotProtocol(), probe), o.withSeed(seed));
            assertThat(fixed.failure()).as("seed %d", seed).isEmpty();
            SimResult broken = Simulation.run(twin, o.withSeed(seed));
            assertThat(broken.failure()).as("the twin keeping only dependency run-ahead slots, seed %d", seed).isPresent();
            assertThat(broken.failure().orElseThrow().kind()).isEqualTo(SimFailure.Kind.LIVENESS);
        }
        System.out.println("steps with two members at execution points that are not nested: " + nonNested[0]);
        assertThat(nonNested[0]).isPositive();
    }

    /**
     * The slots a compaction keeps because they ran ahead of the other log's cursor (seed 2641's fix)
     * survive a restart of the replica holding them: compaction writes them into the durable log with
     * the snapshot's rewrite and a restart takes them back. Checked after every step of crash-heavy
     * runs with snapshots every 8 slots and nothing retained: every slot between a replica's
     * compaction point and its execution cursor is held there and committed (what an answer about a
     * slot relies on), and some restarts do take such slots back.
     */
    @Test
    void slotsKeptForPeersInAnotherInterleavingSurviveARestart() {
        java.util.Set<CopilotEngine> restored = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        Probed probe = new Probed(new CopilotProtocol(CopilotConfig.DEFAULTS.withSnapshots(8, 0, 64)), io.tandem.sim.SimInvariant.of("copilot-held-below-cursor", c -> {
            for (NodeId n : c.members()) {
                Optional<CopilotEngine> e = c.engine(n, CopilotEngine.class);
                if (e.isEmpty()) continue;
                if (e.get().restoredBelowCursorAtStart > 0) restored.add(e.get());
                for (int log = 0; log < 2; log++) {
                    for (long k = e.get().compactedBelow(log); k < e.get().cursor(log); k++) {
                        Slot slot = e.get().slotOrNull(log, k);
                        if (slot == null || !slot.committed()) {
                            return Optional.of(n + " holds " + slot + " for " + log + "." + k + ", between its compaction point " + e.get().compactedBelow(log)
                                    + " and its cursor " + e.get().cursor(log) + ": it ran there and must be held committed");
                        }
                    }
                }
            }
            return Optional.empty();
        }));
        SimOptions o = snapshotFaults().withFaults(EnumSet.of(FaultKind.CRASH, FaultKind.PARTITION, FaultKind.PAUSE)).withFaultRate(6.0, SimTime.millis(300));
        SimRunner.Summary s = SimRunner.run(probe, o, SimOptions.seeds(1, Integer.getInteger("copilot.restoreSeeds", 60)), 3, null);
        System.out.println("run-ahead slots across restarts: " + s.line() + ", restarts that took slots below their snapshot's cursor back: " + restored.size()
                + " (" + restored.stream().mapToLong(e -> e.restoredBelowCursorAtStart).sum() + " slots)");
        assertThat(s.failures()).as(failures(s)).isEmpty();
        assertThat(restored).isNotEmpty();
    }

    @Test
    void fiveNodesThroughTheCodecPass() {
        SimOptions o = SimOptions.defaults();
        o = o.withWorkload(5, o.clients(), o.ops()).withNetwork(o.networkLatency(), o.lossRate(), o.duplicateRate(), o.reorderRate(), true);
        SimRunner.Summary s = run(new CopilotProtocol(), o, SMALL, "copilot (5 nodes, codec)");
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }

    @Test
    void stressSettingsPassWithFiveNodes() {
        SimOptions o = SimOptions.defaults();
        SimRunner.Summary s = run(new CopilotProtocol(stress()), o.withWorkload(5, o.clients(), o.ops()), SMALL, "copilot (5 nodes, stress settings)");
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }

    @Test
    void withoutPingPongAndNullDependencyEliminationItStillPasses() {
        CopilotProtocol plain = new CopilotProtocol(CopilotConfig.DEFAULTS.withPingPong(false).withNullDepElimination(false));
        SimRunner.Summary s = run(plain, SimOptions.defaults(), SMALL, "copilot (no ping-pong, no null-dep elimination)");
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }

    @Test
    void aPipelinedClientsCommandsRunExactlyOnce() {
        SimRunner.Summary s = run(new CopilotProtocol(), SimOptions.defaults().withPipelinedCommands(6), SMALL, "copilot (pipelined client)");
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }

    /** Many crashes between a vote and its flush: slow disks, some unsynced writes surviving. */
    @Test
    void crashHeavyRunsPass() {
        SimOptions o = SimOptions.defaults().withFaults(EnumSet.of(FaultKind.CRASH, FaultKind.PARTITION)).withFaultRate(6.0, SimTime.millis(300));
        o = o.withDisk(new Latency.Uniform(SimTime.millis(5), SimTime.millis(20)), o.tornWrites(), 0.3);
        SimRunner.Summary s = run(new CopilotProtocol(stress()), o, SMALL, "copilot (crash heavy, slow disks)");
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }

    @Test
    void harshNetworksPass() {
        SimOptions o = SimOptions.defaults().withFaultRate(3.0, SimTime.millis(800));
        o = o.withNetwork(new Latency.Exponential(SimTime.micros(100), SimTime.millis(1)), 0.05, 0.02, 0.2, false);
        SimRunner.Summary s = run(new CopilotProtocol(stress()), o, SMALL, "copilot (exp latency, 5% loss, 3 faults/s)");
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }

    /** Only slow nodes and links, with enough load to keep the pilots busy: what the fail-slow rules are about. */
    private static SimOptions slowNodesUnderLoad() {
        SimOptions o = SimOptions.defaults().withFaults(EnumSet.of(FaultKind.SLOW)).withFaultRate(2.0, SimTime.millis(1500));
        return o.withWorkload(5, 20, 1500);
    }

    private static final CopilotConfig DETECTOR = CopilotConfig.DEFAULTS.withDetector(Duration.ofMillis(500), 64);

    @Test
    void theSlownessDetectorIsSilentInHealthyRunsAndReportsNoBacklogOrSinglePeerWaitWithSlowNodes() {
        SimOptions healthy = SimOptions.defaults().withFaults(EnumSet.noneOf(FaultKind.class)).withWorkload(5, 20, 1500);
        int seeds = Math.max(10, SEEDS / 10);
        SimRunner.Summary calm = run(new CopilotProtocol(DETECTOR).checkingSlowness(), healthy, seeds, "copilot, healthy under load, no warning of any kind allowed");
        assertThat(calm.failures()).as(failures(calm)).isEmpty();
        SimRunner.Summary slow = run(new CopilotProtocol(DETECTOR).checkingSlowness(SlownessDetector.SAME_QUORUM, SlownessDetector.RESEND_STORM),
                slowNodesUnderLoad(), seeds, "copilot, slow nodes under load, no backlog or single-peer wait allowed");
        assertThat(slow.failures()).as(failures(slow)).isEmpty();
    }

    @Test
    void theSlownessDetectorCatchesAnEngineThatWaitsForEveryReplica() {
        CopilotProtocol broken = (CopilotProtocol) Protocols.byName(BrokenCopilot.Bug.WAIT_FOR_EVERY_REPLICA.protocolName());
        SimRunner.Summary s = SimRunner.run(broken, slowNodesUnderLoad(), SimOptions.seeds(1, 20), 1, null);
        assertThat(s.failures()).as("survived %d seeds", s.seeds()).isNotEmpty();
        SimFailure f = s.failures().getFirst().failure().orElseThrow();
        System.out.println("copilot-broken-wait-for-every-replica caught at seed " + s.failures().getFirst().seed() + ": " + f.check() + ": " + f.message());
        assertThat(f.check()).isEqualTo("copilot-no-slowness-warning");
        assertThat(f.message()).contains(SlownessDetector.SINGLE_PEER_WAIT);
    }

    private static SimResult caught(BrokenCopilot.Bug bug, SimOptions o, int seeds) {
        CopilotProtocol broken = (CopilotProtocol) Protocols.byName(bug.protocolName());
        SimRunner.Summary s = SimRunner.run(broken, o, SimOptions.seeds(1, seeds), 1, null);
        assertThat(s.failures()).as("%s survived %d seeds", bug, s.seeds()).isNotEmpty();
        SimResult r = s.failures().getFirst();
        System.out.println(bug.protocolName() + " caught at seed " + r.seed() + ": " + r.failure().orElseThrow());
        assertThat(Simulation.run(broken, r.options()).failure()).isEqualTo(r.failure()); // it replays exactly
        return r;
    }

    @Test
    void anExecutionRuleThatLooksPastTheDependenciesIsCaught() {
        SimResult r = caught(BrokenCopilot.Bug.EXECUTE_PAST_DEPENDENCIES, SimOptions.defaults(), 50);
        assertThat(r.failure().orElseThrow().kind()).isNotEqualTo(SimFailure.Kind.LIVENESS);
    }

    @Test
    void aFastPathBelowTheFastQuorumIsCaught() {
        SimOptions o = SimOptions.defaults();
        SimResult r = caught(BrokenCopilot.Bug.FAST_PATH_BELOW_FAST_QUORUM, o.withWorkload(5, o.clients(), o.ops()), 100);
        assertThat(r.failure().orElseThrow().kind()).isNotEqualTo(SimFailure.Kind.LIVENESS);
    }

    @Test
    void aTakeoverWithoutAHigherBallotIsCaught() {
        SimResult r = caught(BrokenCopilot.Bug.TAKEOVER_WITHOUT_HIGHER_BALLOT, SimOptions.defaults(), 200);
        assertThat(r.failure().orElseThrow().kind()).isNotEqualTo(SimFailure.Kind.LIVENESS);
    }

    // ---- snapshots and log compaction ----

    /** Snapshots every few slots with nothing retained, crashes and partitions: compaction, transfers and restarts from snapshots all the time. */
    private static SimOptions snapshotFaults() {
        SimOptions o = SimOptions.defaults().withFaults(EnumSet.of(FaultKind.CRASH, FaultKind.PARTITION, FaultKind.PAUSE)).withFaultRate(4.0, SimTime.millis(400));
        return o.withWorkload(5, o.clients(), o.ops());
    }

    private record SnapshotCounts(long taken, long installed, long resumed) {}

    /** Runs one seed and adds up what the final engines did with snapshots. */
    private static SnapshotCounts snapshotsOf(CopilotProtocol p, SimOptions o) {
        Simulation sim = new Simulation(p, o);
        SimResult r = sim.run();
        assertThat(r.failure()).as("seed %d", o.seed()).isEmpty();
        long taken = 0, installed = 0, resumed = 0;
        for (NodeId n : sim.members()) {
            Optional<CopilotEngine> e = sim.engine(n, CopilotEngine.class);
            if (e.isEmpty()) continue;
            taken += e.get().snapshots.taken();
            installed += e.get().snapshots.installed();
            if (e.get().resumedFromSnapshot) resumed++;
        }
        return new SnapshotCounts(taken, installed, resumed);
    }

    /**
     * With small snapshot thresholds, replicas snapshot and compact, lagging ones install a peer's
     * snapshot (state transfer), restarted ones resume from their snapshot and the log suffix; every
     * invariant and linearizability hold throughout.
     */
    @Test
    void smallSnapshotsAreTakenInstalledAndResumedFromUnderFaults() {
        CopilotProtocol p = new CopilotProtocol(CopilotConfig.DEFAULTS.withSnapshots(8, 0, 64));
        SimRunner.Summary s = run(p, snapshotFaults(), SMALL, "copilot (snapshots every 8 slots, nothing retained, crashes and partitions)");
        assertThat(s.failures()).as(failures(s)).isEmpty();
        long taken = 0, installed = 0, resumed = 0;
        for (long seed = 1; seed <= 6; seed++) {
            SnapshotCounts c = snapshotsOf(p, snapshotFaults().withSeed(seed));
            taken += c.taken();
            installed += c.installed();
            resumed += c.resumed();
        }
        System.out.println("copilot snapshots over seeds 1-6: taken " + taken + ", installed from a peer " + installed + ", restarts from a snapshot " + resumed);
        assertThat(taken).isPositive();
        assertThat(installed).isPositive();
        assertThat(resumed).isPositive();
    }

    /**
     * Under steady load without faults, what a replica retains stays bounded by the snapshot settings
     * (the engine's own accounting: slots held in memory, records in its durable log), however many
     * slots the run executes.
     */
    @Test
    void retainedLogEntriesStayBoundedUnderSteadyLoad() {
        CopilotConfig config = CopilotConfig.DEFAULTS.withSnapshots(100, 20, 64 << 10);
        SimOptions o = SimOptions.defaults().withFaults(EnumSet.noneOf(FaultKind.class)).withWorkload(3, 20, 4000);
        Simulation sim = new Simulation(new CopilotProtocol(config), o);
        SimResult r = sim.run();
        assertThat(r.failure()).isEmpty();
        // Between two compactions: the threshold of slots run and what ran while the snapshot was being
        // written, the retention behind the snapshot in each log, and per pilot its own in-flight window
        // and the other log's slots seen and not yet runnable. Nothing that grows with the run's length.
        long bound = 2 * config.snapshotThreshold() + 2 * config.logRetentionSlots() + 4L * config.maxInflightSlots();
        for (NodeId n : sim.members()) {
            CopilotEngine e = sim.engine(n, CopilotEngine.class).orElseThrow();
            long ran = e.cursor(0) + e.cursor(1);
            System.out.println(n + ": ran " + ran + " slots, " + e.snapshots.taken() + " snapshots, peak retained " + e.peakRetainedSlots + " slots and "
                    + e.peakRetainedRecords + " log records");
            assertThat(ran).as("the run must execute many times the bound").isGreaterThan(5 * bound);
            assertThat(e.snapshots.taken()).isGreaterThan(5);
            assertThat(e.peakRetainedSlots).isLessThanOrEqualTo(bound);
            assertThat(e.peakRetainedRecords).isLessThanOrEqualTo(3 * bound);
            assertThat(e.compactedBelow(0) + e.compactedBelow(1)).isGreaterThan(ran - bound);
        }
    }

    @Test
    void compactingSlotsThatDidNotRunIsCaught() {
        caught(BrokenCopilot.Bug.COMPACT_UNEXECUTED, snapshotFaults(), 50);
    }

    @Test
    void resumingFromASnapshotWithoutItsSessionTableIsCaught() {
        SimResult r = caught(BrokenCopilot.Bug.INSTALL_WITHOUT_SESSIONS, snapshotFaults(), 50);
        assertThat(r.failure().orElseThrow().kind()).isNotEqualTo(SimFailure.Kind.LIVENESS);
    }
}
