package io.tandem.protocols.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.protocols.Protocols;
import io.tandem.protocols.raft.RaftProtocol;
import io.tandem.protocols.raft.RaftConfig;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A few seeds of the simulator for Raft and MultiPaxos, short enough to be the simulation part of
 * PIT's killing suite (profile {@code pit-sim}, issue 16): each surviving mutant runs every test that
 * covers it, so the long seed runs ({@code RaftSimulationTest}, {@code MultiPaxosSimulationTest}) would
 * make a run over the engine packages take hours. Three seeds of the default mix each, plus Raft with
 * snapshots every few entries so that the snapshot path is covered in every run, and Raft with the
 * operator's admin commands (leader transfers, remove/add/promote) so that the membership and transfer
 * paths are too.
 */
class ShortSimulationSeedsTest {
    private static final int SEEDS = 3;

    private static void passes(SimRunner.Summary s) {
        StringBuilder b = new StringBuilder();
        for (SimResult r : s.failures()) b.append(SimRunner.describeFailure(r)).append('\n');
        assertThat(s.failures()).as(b.toString()).isEmpty();
        assertThat(s.ops()).as("operations completed").isPositive();
    }

    @Test
    void raftPassesAFewSeedsOfTheMix() {
        passes(SimRunner.run(Protocols.byName("raft"), SimOptions.mix(), SimOptions.seeds(1, SEEDS), 1, null));
    }

    @Test
    void raftWithFrequentSnapshotsPassesAFewSeeds() {
        RaftConfig config = RaftConfig.builder()
                .electionTimeout(Duration.ofMillis(150), Duration.ofMillis(300))
                .heartbeatInterval(Duration.ofMillis(30))
                .snapshotThreshold(8)
                .logRetentionEntries(0)
                .snapshotChunkBytes(64)
                .build();
        passes(SimRunner.run(new RaftProtocol(config), SimOptions.defaults(), SimOptions.seeds(1, SEEDS), 1, null));
    }

    @Test
    void raftWithAdminCommandsPassesAFewSeedsOfTheMix() {
        passes(SimRunner.run(Protocols.byName("raft"), SimOptions.mix().toBuilder().admin(true).build(),
                SimOptions.seeds(1, SEEDS), 1, null));
    }

    @Test
    void multiPaxosPassesAFewSeedsOfTheMix() {
        passes(SimRunner.run(Protocols.byName("multipaxos"), SimOptions.mix(), SimOptions.seeds(1, SEEDS), 1, null));
    }
}
