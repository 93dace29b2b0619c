package io.tandem.protocols.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.protocols.Protocols;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.Simulation;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client keeps 32 commands in flight on one session (copilot.md §3.8) while the simulator crashes,
 * pauses and partitions nodes, so leaders change under it; it retries each command with the same
 * sequence until answered. Each adds 1 to a counter: the simulator checks that every replica that
 * applied everything holds exactly 32 (none applied twice, none acknowledged and lost), with the
 * shipped executor, beside the usual invariants and linearizability check.
 */
class PipelinedSessionSimulationTest {
    private static final int SEEDS = Integer.getInteger("tandem.pipelined.seeds", 40);

    @ParameterizedTest
    @ValueSource(strings = {"raft", "multipaxos", "toy-pb"})
    void everyCommandOfAPipelinedSessionIsAppliedExactlyOnceAcrossLeaderChanges(String protocol) {
        long retries = 0;
        long crashes = 0;
        for (long seed : SimOptions.seeds(1, SEEDS)) {
            SimOptions options = SimOptions.defaults().withSeed(seed).withPipelinedCommands(32);
            SimResult r = Simulation.run(Protocols.byName(protocol), options);
            assertThat(r.failure()).as("%s seed %d: %s", protocol, seed, r.failure().map(Object::toString).orElse("")).isEmpty();
            assertThat(r.stats()).containsEntry("pipelined.commands", 32L);
            retries += r.stats().getOrDefault("pipelined.retries", 0L);
            crashes += r.stats().getOrDefault("nodes.crashes", 0L);
        }
        // The runs did exercise retries across failures, not only a quiet cluster.
        assertThat(retries).as("pipelined retries over %d seeds", SEEDS).isGreaterThan(0);
        assertThat(crashes).as("crashes over %d seeds", SEEDS).isGreaterThan(0);
    }
}
