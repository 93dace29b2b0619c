package io.tandem.protocols;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.HostSettings;
import io.tandem.engine.NodeId;
import io.tandem.protocols.copilot.CopilotProtocol;
import io.tandem.protocols.multipaxos.MultiPaxosProtocol;
import io.tandem.protocols.raft.RaftProtocol;
import io.tandem.protocols.vsync.VirtualSynchronyProtocol;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every registered protocol applies the host settings it declares, in its own config, and refuses the rest. */
class ProtocolHostSettingsTest {
    private static final HostSettings ALL = new HostSettings(Duration.ofMillis(300), Duration.ofMillis(700), 77L,
            Set.of(NodeId.of("n1"), NodeId.of("n2")), Duration.ofMillis(1500));

    @Test
    void raftAppliesEachSettingToItsConfig() {
        RaftProtocol raft = ((RaftProtocol) Protocols.byName("raft")).withHostSettings(ALL);
        assertThat(raft.config().electionTimeoutMin()).isEqualTo(Duration.ofMillis(300));
        assertThat(raft.config().electionTimeoutMax()).isEqualTo(Duration.ofMillis(700));
        assertThat(raft.config().snapshotThreshold()).isEqualTo(77);
        assertThat(raft.config().initialVoters()).containsExactlyInAnyOrder(NodeId.of("n1"), NodeId.of("n2"));
    }

    @Test
    void multiPaxosAppliesTheElectionTimeoutAndSnapshotThresholdAndRefusesInitialVoters() {
        MultiPaxosProtocol paxos = (MultiPaxosProtocol) Protocols.byName("multipaxos");
        MultiPaxosProtocol tuned = paxos.withHostSettings(ALL.withInitialVoters(Set.of()));
        assertThat(tuned.config().electionTimeoutMin()).isEqualTo(Duration.ofMillis(300));
        assertThat(tuned.config().electionTimeoutMax()).isEqualTo(Duration.ofMillis(700));
        assertThat(tuned.config().snapshotThreshold()).isEqualTo(77);
        assertThat(tuned.config().deployment()).isEqualTo(paxos.config().deployment());
        assertThatThrownBy(() -> paxos.withHostSettings(ALL)).hasMessageStartingWith("multipaxos has no initial-voters setting");
        HostSettings onlyMin = new HostSettings(Duration.ofMillis(300), null, null, Set.of(), null);
        assertThat(paxos.withHostSettings(onlyMin).config().electionTimeoutMax()).as("the unset bound is the protocol's own")
                .isEqualTo(paxos.config().electionTimeoutMax());
    }

    @Test
    void copilotTakesTheSnapshotThresholdOnly() {
        CopilotProtocol copilot = (CopilotProtocol) Protocols.byName("copilot");
        assertThat(copilot.withHostSettings(HostSettings.NONE.withSnapshotThreshold(77)).config().snapshotThreshold()).isEqualTo(77);
        assertThatThrownBy(() -> copilot.withHostSettings(HostSettings.NONE.withElectionTimeout(Duration.ofMillis(300), Duration.ofMillis(700))))
                .hasMessageStartingWith("copilot has no election-timeout setting");
    }

    @Test
    void virtualSynchronyTakesTheRestartDelayAsItsRejoinAndRefusesTheRest() {
        VirtualSynchronyProtocol vsync = (VirtualSynchronyProtocol) Protocols.byName("virtual-synchrony");
        assertThat(vsync.config().rejoinNanos()).as("by default a supervisor restarts the process").isZero();
        assertThat(vsync.withHostSettings(HostSettings.NONE.withRestartAfterShutdown(Duration.ofMillis(1500))).config().rejoinNanos())
                .isEqualTo(Duration.ofMillis(1500).toNanos());
        assertThatThrownBy(() -> vsync.withHostSettings(HostSettings.NONE.withSnapshotThreshold(5))).hasMessageStartingWith("virtual-synchrony has no snapshot-threshold setting");
    }

    @Test
    void everyRegisteredProtocolRunsUnchangedWithNothingSetAndRefusesWhatItDoesNotDeclare() {
        for (String name : Protocols.names()) {
            var p = Protocols.byName(name);
            assertThat(p.withHostSettings(HostSettings.NONE).name()).isEqualTo(name);
            for (HostSettings.Kind kind : HostSettings.Kind.values()) {
                if (p.hostSettings().contains(kind)) continue;
                HostSettings one = switch (kind) {
                    case ELECTION_TIMEOUT -> HostSettings.NONE.withElectionTimeout(Duration.ofMillis(300), Duration.ofMillis(700));
                    case SNAPSHOT_THRESHOLD -> HostSettings.NONE.withSnapshotThreshold(77);
                    case INITIAL_VOTERS -> HostSettings.NONE.withInitialVoters(Set.of(NodeId.of("n1")));
                };
                assertThatThrownBy(() -> p.withHostSettings(one)).as("%s with %s", name, kind).hasMessageContaining(kind.settingName());
            }
        }
    }
}
