package io.tandem.protocols.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.protocols.Protocols;
import io.tandem.protocols.failslow.SlownessDetector;
import io.tandem.sim.SimFailure;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.SimTime;
import io.tandem.sim.Simulation;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Raft in the deterministic simulator (io.tandem.sim): every fault kind (partitions, crashes with
 * lost unsynced writes and torn records, pauses, clock jumps, slow nodes and links, loss bursts,
 * duplication, reordering), Raft's invariants after every step and linearizability at the end.
 * {@code -Draft.sim.seeds=N} runs more seeds per test; replay one seed with {@code -Dtandem.sim.seed=N}.
 */
class RaftSimulationTest {
    private static final int SEEDS = Integer.getInteger("raft.sim.seeds", 200);
    private static final int DETECTOR_SEEDS = Math.max(30, SEEDS / 5);

    /**
     * Short timeouts and tiny snapshot and window settings, so that a five-second run goes through
     * many elections, snapshots (in several chunks), compactions and full windows.
     */
    static RaftConfig stress() {
        return RaftConfig.builder()
                .electionTimeout(Duration.ofMillis(150), Duration.ofMillis(300))
                .heartbeatInterval(Duration.ofMillis(30))
                .resendInterval(Duration.ofMillis(60))
                .maxClockDrift(Duration.ofMillis(20))
                .maxInflight(4, 64 << 10)
                .maxBatch(8, 16 << 10)
                .snapshotThreshold(25)
                .logRetentionEntries(5)
                .snapshotChunkBytes(128)
                .build();
    }

    private static String failures(SimRunner.Summary s) {
        StringBuilder b = new StringBuilder();
        for (SimResult r : s.failures()) b.append(SimRunner.describeFailure(r)).append('\n');
        return b.toString();
    }

    @Test
    void raftWithDefaultSettingsPassesEverySeedWithAllFaults() {
        SimRunner.Summary s = SimRunner.run(Protocols.byName("raft"), SimOptions.defaults(), SimOptions.seeds(1, SEEDS), 3, null);
        System.out.println("raft: " + s.line());
        assertThat(s.failures()).as(failures(s)).isEmpty();
        assertThat(s.ops()).isGreaterThan((long) s.seeds() * SimOptions.defaults().ops() * 9 / 10);
    }

    @Test
    void raftUnderStressSettingsPassesEverySeedWithAllFaults() {
        SimRunner.Summary s = SimRunner.run(new RaftProtocol(stress()), SimOptions.defaults(), SimOptions.seeds(1, SEEDS), 3, null);
        System.out.println("raft (stress settings): " + s.line());
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }

    /** The seed mix of {@code tandem sim} (issue 16): a configuration drawn per seed, crash-heavy and slow-disk seeds among the rest. */
    @Test
    void raftPassesTheSeedMixWithRandomConfigurationsAndFaultProfiles() {
        SimRunner.Summary s = SimRunner.run(Protocols.byName("raft"), SimOptions.mix(), SimOptions.seeds(1, Math.max(40, SEEDS / 5)), 3, null);
        System.out.println("raft (seed mix): " + s.line());
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }

    /** The seed mix with an operator who transfers leadership and removes, re-adds and promotes members (opt-in: {@code --admin true}). */
    @Test
    void raftPassesTheSeedMixWithLeaderTransfersAndMembershipChanges() {
        SimOptions o = SimOptions.mix().toBuilder().admin(true).build();
        SimRunner.Summary s = SimRunner.run(Protocols.byName("raft"), o, SimOptions.seeds(1, Math.max(40, SEEDS / 5)), 3, null);
        System.out.println("raft (seed mix, admin): " + s.line());
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }

    @Test
    void fiveNodesThroughTheCodecPass() {
        SimOptions o = SimOptions.defaults();
        o = o.withWorkload(5, o.clients(), o.ops()).withNetwork(o.networkLatency(), o.lossRate(), o.duplicateRate(), o.reorderRate(), true);
        SimRunner.Summary s = SimRunner.run(new RaftProtocol(stress()), o, SimOptions.seeds(1, SEEDS / 2), 3, null);
        System.out.println("raft (5 nodes, codec, stress settings): " + s.line());
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }

    @Test
    void committingWithoutAQuorumIsCaught() {
        RaftProtocol broken = new BrokenRaft(BrokenRaft.Bug.COMMIT_WITHOUT_QUORUM, stress());
        SimRunner.Summary s = SimRunner.run(broken, SimOptions.defaults(), SimOptions.seeds(1, 100), 1, null);
        assertThat(s.failures()).as("survived %d seeds", s.seeds()).isNotEmpty();
        SimResult caught = s.failures().getFirst();
        System.out.println("raft-broken-commit-without-quorum caught at seed " + caught.seed() + ": " + caught.failure().orElseThrow());
        // It replays to the same failure.
        assertThat(Simulation.run(broken, caught.options()).failure()).isEqualTo(caught.failure());
    }

    @Test
    void committingWithoutAQuorumIsCaughtByLinearizabilityAlone() {
        RaftProtocol broken = new BrokenRaft(BrokenRaft.Bug.COMMIT_WITHOUT_QUORUM, stress());
        SimRunner.Summary s = SimRunner.run(broken, SimOptions.defaults().withInvariants(false), SimOptions.seeds(1, 200), 1, null);
        assertThat(s.failures()).as("survived %d seeds", s.seeds()).isNotEmpty();
        System.out.println("... by linearizability alone at seed " + s.failures().getFirst().seed() + ": " + s.failures().getFirst().failure().orElseThrow());
        assertThat(s.failures().getFirst().failure()).hasValueSatisfying(f -> assertThat(f.kind()).isEqualTo(SimFailure.Kind.LINEARIZABILITY));
    }

    @Test
    void servingReadsWithoutAReadIndexIsCaughtByLinearizabilityAlone() {
        // What the local Jepsen runner's planted bug does on real processes, here under the simulator.
        RaftProtocol broken = (RaftProtocol) Protocols.byName(BrokenRaft.Bug.STALE_READS.protocolName());
        assertThat(broken.name()).isEqualTo("raft-broken-stale-reads");
        SimRunner.Summary s = SimRunner.run(broken, SimOptions.defaults().withInvariants(false), SimOptions.seeds(1, 100), 1, null);
        assertThat(s.failures()).as("survived %d seeds", s.seeds()).isNotEmpty();
        System.out.println("raft-broken-stale-reads caught at seed " + s.failures().getFirst().seed() + ": "
                + s.failures().getFirst().failure().orElseThrow().message().lines().findFirst().orElse(""));
        assertThat(s.failures().getFirst().failure()).hasValueSatisfying(f -> assertThat(f.kind()).isEqualTo(SimFailure.Kind.LINEARIZABILITY));
    }

    @Test
    void grantingUnpersistedVotesIsCaught() {
        // Crashes must land between a vote and its flush: many crashes, slow disks, fast elections. A random
        // schedule does this rarely (about one seed in 300), so up to 3,000 seeds run; the first failure ends it.
        RaftProtocol broken = new BrokenRaft(BrokenRaft.Bug.VOTE_BEFORE_PERSIST, stress());
        SimOptions o = SimOptions.defaults().withFaults(java.util.EnumSet.of(io.tandem.sim.FaultKind.CRASH, io.tandem.sim.FaultKind.PARTITION))
                .withFaultRate(6.0, SimTime.millis(300));
        o = o.withDisk(new io.tandem.sim.Latency.Uniform(SimTime.millis(5), SimTime.millis(20)), o.tornWrites(), 0.0);
        SimRunner.Summary s = SimRunner.run(broken, o, SimOptions.seeds(1, 3000), 1, null);
        assertThat(s.failures()).as("survived %d seeds", s.seeds()).isNotEmpty();
        System.out.println("raft-broken-vote-before-persist caught at seed " + s.failures().getFirst().seed() + " of " + s.seeds() + ": "
                + s.failures().getFirst().failure().orElseThrow());
        // The correct engine passes the same harsher runs.
        SimRunner.Summary correct = SimRunner.run(new RaftProtocol(stress()), o, SimOptions.seeds(1, 50), 1, null);
        assertThat(correct.failures()).as(failures(correct)).isEmpty();
    }

    /** Only slow nodes and links, with enough load to fill windows: what the fail-slow rules are about. */
    private static SimOptions slowNodesUnderLoad() {
        SimOptions o = SimOptions.defaults().withFaults(java.util.EnumSet.of(io.tandem.sim.FaultKind.SLOW)).withFaultRate(2.0, SimTime.millis(1500));
        return o.withWorkload(3, 20, 1500);
    }

    private static RaftConfig detectorSettings() {
        return RaftConfig.builder().maxInflight(4, 1 << 20).detector(Duration.ofMillis(500), 64).build();
    }

    @Test
    void theSlownessDetectorIsSilentInHealthyRunsAndReportsNoBacklogOrSinglePeerWaitWithSlowNodes() {
        RaftProtocol correct = new RaftProtocol(detectorSettings());
        SimOptions healthy = SimOptions.defaults().withFaults(java.util.EnumSet.noneOf(io.tandem.sim.FaultKind.class)).withWorkload(3, 20, 1500);
        SimRunner.Summary calm = SimRunner.run(correct.checkingSlowness(), healthy, SimOptions.seeds(1, DETECTOR_SEEDS), 1, null);
        System.out.println("raft, healthy under load, no warning of any kind allowed: " + calm.line());
        assertThat(calm.failures()).as(failures(calm)).isEmpty();
        // A slow minority is expected to show up as same-quorum; a link jammed for seconds as a few resends.
        SimRunner.Summary slow = SimRunner.run(correct.checkingSlowness(SlownessDetector.SAME_QUORUM, SlownessDetector.RESEND_STORM),
                slowNodesUnderLoad(), SimOptions.seeds(1, DETECTOR_SEEDS), 1, null);
        System.out.println("raft, slow nodes under load, no backlog or single-peer wait allowed: " + slow.line());
        assertThat(slow.failures()).as(failures(slow)).isEmpty();
    }

    @Test
    void theSlownessDetectorCatchesTheBrokenFailSlowEngines() {
        for (BrokenRaft.Bug v : new BrokenRaft.Bug[] {BrokenRaft.Bug.UNBOUNDED_FOLLOWER_QUEUE, BrokenRaft.Bug.WAIT_FOR_ALL_FOLLOWERS}) {
            RaftProtocol broken = new BrokenRaft(v, detectorSettings()).checkingSlowness(SlownessDetector.SAME_QUORUM, SlownessDetector.RESEND_STORM);
            SimRunner.Summary s = SimRunner.run(broken, slowNodesUnderLoad(), SimOptions.seeds(1, 30), 1, null);
            assertThat(s.failures()).as("%s survived %d seeds", v, s.seeds()).isNotEmpty();
            SimFailure f = s.failures().getFirst().failure().orElseThrow();
            System.out.println(v + " caught at seed " + s.failures().getFirst().seed() + ": " + f.check() + ": " + f.message().lines().findFirst().orElse(""));
            assertThat(f.check()).isEqualTo("raft-no-slowness-warning");
        }
    }
}
