package io.tandem.protocols.unreplicated;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.sim.FaultKind;
import io.tandem.sim.SimFailure;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.SimTime;
import io.tandem.sim.Simulation;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * The unreplicated engine in the deterministic simulator: one node, every fault kind that applies to one node
 * (crashes that lose unsynced writes and tear the first unsynced record, pauses, clock jumps, a slow disk, lossy
 * client links), linearizability of the client history at the end, so no acknowledged write may be lost across
 * a crash. Replay one seed with {@code -Dtandem.sim.seed=N}; {@code -Dunreplicated.sim.seeds=N} runs more.
 */
class UnreplicatedSimulationTest {
    private static final int SEEDS = Integer.getInteger("unreplicated.sim.seeds", 200);

    private static final SimOptions ONE_NODE = SimOptions.defaults().withWorkload(1, 5, 200);

    /** Crashes only, several a second, with snapshots every 10 entries: restarts from snapshot plus log, again and again. */
    private static final SimOptions CRASHES = ONE_NODE.withFaults(EnumSet.of(FaultKind.CRASH)).withFaultRate(3.0, SimTime.millis(300));

    private static final UnreplicatedProtocol SMALL_SNAPSHOTS = new UnreplicatedProtocol(UnreplicatedConfig.DEFAULTS.withSnapshotThreshold(10));

    private static String failures(SimRunner.Summary s) {
        StringBuilder b = new StringBuilder();
        for (SimResult r : s.failures()) b.append(SimRunner.describeFailure(r)).append('\n');
        return b.toString();
    }

    @Test
    void everySeedWithAllFaultsIsLinearizable() {
        SimRunner.Summary s = SimRunner.run(new UnreplicatedProtocol(), ONE_NODE, SimOptions.seeds(1, SEEDS), 3, null);
        System.out.println("unreplicated: " + s.line());
        assertThat(s.failures()).as(failures(s)).isEmpty();
        assertThat(s.ops()).isGreaterThan((long) s.seeds() * ONE_NODE.ops() * 9 / 10);
    }

    @Test
    void repeatedCrashesWithSnapshotsLoseNothingAcknowledged() {
        SimRunner.Summary s = SimRunner.run(SMALL_SNAPSHOTS, CRASHES, SimOptions.seeds(1, SEEDS), 3, null);
        System.out.println("unreplicated (crashes, snapshots every 10 entries): " + s.line());
        assertThat(s.failures()).as(failures(s)).isEmpty();
        // The runs did crash and restart the node, with entries committed before and after.
        SimResult one = Simulation.run(SMALL_SNAPSHOTS, CRASHES.withSeed(7));
        assertThat(one.stats().get("nodes.crashes")).isGreaterThanOrEqualTo(5);
        assertThat(one.history().ops().stream().filter(o -> o.isClient() && o.type() == io.tandem.history.Op.Type.OK).count()).isGreaterThan(100);
    }

    @Test
    void fsyncOffSemanticsSurvivingUnsyncedWritesAreStillLinearizable() {
        // A crash keeps a random prefix of the unsynced writes (the OS flushed them): recovered entries that were never
        // acknowledged are committed after the restart, which is allowed for writes whose outcome the client does not know.
        SimOptions survival = CRASHES.withDisk(CRASHES.diskLatency(), true, 0.5);
        SimRunner.Summary s = SimRunner.run(SMALL_SNAPSHOTS, survival, SimOptions.seeds(1, SEEDS / 2), 3, null);
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }

    @Test
    void acknowledgingBeforeTheLogIsDurableIsCaughtByLinearizabilityAlone() {
        UnreplicatedProtocol broken = new AckBeforeDurable();
        SimRunner.Summary s = SimRunner.run(broken, CRASHES.withInvariants(false), SimOptions.seeds(1, 200), 1, null);
        assertThat(s.failures()).as("the ack-before-durable twin survived %d seeds", s.seeds()).isNotEmpty();
        SimResult caught = s.failures().getFirst();
        System.out.println("unreplicated-broken-ack-before-durable caught at seed " + caught.seed() + ": " + caught.failure().orElseThrow());
        assertThat(caught.failure()).hasValueSatisfying(f -> assertThat(f.kind()).isEqualTo(SimFailure.Kind.LINEARIZABILITY));
        // With invariants on, the engine's own invariant names the cause at the moment it happens.
        SimResult withInvariant = Simulation.run(broken, CRASHES.withSeed(caught.seed()));
        assertThat(withInvariant.failure()).hasValueSatisfying(f -> assertThat(f.toString()).contains("unreplicated-commit-only-durable"));
    }

    @Test
    void theSameSeedGivesTheSameRun() {
        SimResult a = Simulation.run(SMALL_SNAPSHOTS, CRASHES.withSeed(99));
        SimResult b = Simulation.run(SMALL_SNAPSHOTS, CRASHES.withSeed(99));
        assertThat(b.traceHash()).isEqualTo(a.traceHash());
        assertThat(b.history()).isEqualTo(a.history());
    }
}
