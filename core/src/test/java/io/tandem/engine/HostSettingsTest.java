package io.tandem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HostSettingsTest {
    private static final Duration S1 = Duration.ofSeconds(1);
    private static final Duration S2 = Duration.ofSeconds(2);

    @Test
    void nothingSetIsGivenNothingAndEveryProtocolTakesIt() {
        assertThat(HostSettings.NONE.given()).isEmpty();
        HostSettings.NONE.requireOnly("p", Set.of());
        assertThat(HostSettings.NONE.withRestartAfterShutdown(S1).given()).as("restart is never refused").isEmpty();
    }

    @Test
    void eachSetSettingIsGivenAndOneTheProtocolLacksIsRefusedByName() {
        HostSettings s = HostSettings.NONE.withSnapshotThreshold(50).withInitialVoters(Set.of(NodeId.of("n1")));
        assertThat(s.given()).containsExactlyInAnyOrder(HostSettings.Kind.SNAPSHOT_THRESHOLD, HostSettings.Kind.INITIAL_VOTERS);
        s.requireOnly("raft", EnumSet.allOf(HostSettings.Kind.class));
        assertThatThrownBy(() -> s.requireOnly("multipaxos", Set.of(HostSettings.Kind.SNAPSHOT_THRESHOLD, HostSettings.Kind.ELECTION_TIMEOUT)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("multipaxos has no initial-voters setting (of the host settings it takes election-timeout, snapshot-threshold)");
        assertThatThrownBy(() -> s.requireOnly("toy", Set.of())).hasMessage("toy has no snapshot-threshold, initial-voters setting (of the host settings it takes none of them)");
    }

    @Test
    void anElectionTimeoutBoundLeftUnsetIsTheProtocolsOwnAndAnEmptyRangeIsRefused() {
        assertThat(HostSettings.NONE.electionTimeout(S1, S2)).isNull();
        HostSettings min = new HostSettings(Duration.ofMillis(300), null, null, Set.of(), null);
        assertThat(min.given()).containsExactly(HostSettings.Kind.ELECTION_TIMEOUT);
        assertThat(min.electionTimeout(S1, S2)).isEqualTo(new HostSettings.TimeoutRange(Duration.ofMillis(300), S2));
        HostSettings tooHigh = new HostSettings(Duration.ofMillis(2500), null, null, Set.of(), null);
        assertThatThrownBy(() -> tooHigh.electionTimeout(S1, S2)).hasMessage("election-timeout-max (2s) must be above election-timeout-min (2.5s)");
        assertThatThrownBy(() -> HostSettings.NONE.withElectionTimeout(S2, S1)).hasMessage("election-timeout-max (1s) must be above election-timeout-min (2s)");
    }

    @Test
    void valuesOutsideTheirRangeAreRefused() {
        assertThatThrownBy(() -> HostSettings.NONE.withSnapshotThreshold(0)).hasMessage("snapshot-threshold must be at least 1, was 0");
        assertThatThrownBy(() -> HostSettings.NONE.withElectionTimeout(Duration.ZERO, S1)).hasMessageContaining("election-timeout-min must be positive");
        assertThatThrownBy(() -> HostSettings.NONE.withRestartAfterShutdown(Duration.ofMillis(-1))).hasMessageContaining("restart-after-shutdown must be positive");
    }

    @Test
    void aProtocolWithoutHostSettingsRunsAsItIsAndRefusesTheBindingOnes() {
        Protocol none = new Protocol() {
            @Override public String name() { return "plain"; }
            @Override public Engine createEngine(NodeId self, List<NodeId> members) { throw new UnsupportedOperationException(); }
            @Override public void registerMessages(io.tandem.codec.MessageRegistry registry) {}
        };
        assertThat(none.withHostSettings(HostSettings.NONE.withRestartAfterShutdown(S1))).isSameAs(none);
        assertThatThrownBy(() -> none.withHostSettings(HostSettings.NONE.withSnapshotThreshold(10))).hasMessageStartingWith("plain has no snapshot-threshold setting");
    }
}
