package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.protocols.Protocols;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MultiPaxosSimulationTest {
    private static final int SEEDS = Integer.getInteger("multipaxos.sim.seeds", 100);

    static MultiPaxosConfig stress() {
        return MultiPaxosConfig.builder()
                .electionTimeout(Duration.ofMillis(150), Duration.ofMillis(300))
                .heartbeatInterval(Duration.ofMillis(30))
                .resendInterval(Duration.ofMillis(60))
                .catchUpTimeout(Duration.ofMillis(100))
                .windowSlots(8)
                .maxInflight(4, 64 << 10)
                .maxBatch(8, 16 << 10)
                .snapshotThreshold(25)
                .logRetentionSlots(5)
                .snapshotChunkBytes(128)
                .maxReplicaLagSlots(16)
                .retainedChosenSlots(16)
                .build();
    }

    private static String failures(SimRunner.Summary s) {
        StringBuilder b = new StringBuilder();
        for (SimResult r : s.failures()) b.append(SimRunner.describeFailure(r)).append('\n');
        return b.toString();
    }

    @Test
    void defaultSettingsPassEverySeedWithAllFaults() {
        SimRunner.Summary s = SimRunner.run(Protocols.byName("multipaxos"), SimOptions.defaults(), SimOptions.seeds(1, SEEDS), 3, null);
        System.out.println("multipaxos: " + s.line());
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }

    @Test
    void stressSettingsPassEverySeedWithAllFaults() {
        SimRunner.Summary s = SimRunner.run(new MultiPaxosProtocol(stress()), SimOptions.defaults(), SimOptions.seeds(1, SEEDS), 3, null);
        System.out.println("multipaxos (stress settings): " + s.line());
        assertThat(s.failures()).as(failures(s)).isEmpty();
    }
}
