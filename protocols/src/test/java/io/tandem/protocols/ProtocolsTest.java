package io.tandem.protocols;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.NodeId;
import io.tandem.protocols.raft.RaftConfig;
import io.tandem.protocols.raft.RaftEngine;
import io.tandem.protocols.raft.RaftProtocol;
import io.tandem.protocols.testing.BrokenProtocols;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The registry: shipped protocols, and the test-jar's broken ones found through {@link ProtocolProvider}. */
class ProtocolsTest {
    @Test
    void theShippedProtocolsAreFoundByName() {
        assertThat(Protocols.names()).contains("toy-pb", "raft", "multipaxos", "copilot", "unreplicated");
        for (String name : new String[] {"toy-pb", "raft", "multipaxos", "copilot", "unreplicated"}) {
            assertThat(Protocols.byName(name).name()).isEqualTo(name);
        }
        assertThat(Protocols.byName("raft")).as("a fresh instance each time").isNotSameAs(Protocols.byName("raft"));
        assertThatThrownBy(() -> Protocols.byName("paxos-by-carrier-pigeon")).hasMessageContaining("known: ").hasMessageContaining("raft");
    }

    @Test
    void aTestClassPathAlsoFindsEveryBrokenEngineUnderItsOwnName() {
        assertThat(BrokenProtocols.names()).contains("toy-pb-buggy", "raft-broken-commit-without-quorum", "raft-broken-stale-reads",
                "multipaxos-unsafe", "multipaxos-slow-wait-for-all-acceptors", "unreplicated-broken-ack-before-durable");
        assertThat(Protocols.names()).containsAll(BrokenProtocols.names());
        for (String name : BrokenProtocols.names()) {
            assertThat(Protocols.byName(name).name()).as(name).isEqualTo(name);
            assertThat(BrokenProtocols.byName(name).getClass()).as(name).isEqualTo(Protocols.byName(name).getClass());
        }
        assertThat(BrokenProtocols.isBroken("raft")).isFalse();
        assertThatThrownBy(() -> BrokenProtocols.byName("raft")).hasMessageContaining("unknown broken protocol");
    }

    @Test
    void aRaftAskedForByNameKeepsItsKindWhenAServerChangesItsSettings() {
        // What KvServer does with its election timeouts: the broken engine must stay broken.
        RaftConfig serverSettings = RaftConfig.builder().electionTimeout(Duration.ofMillis(300), Duration.ofMillis(600)).build();
        RaftProtocol stale = ((RaftProtocol) Protocols.byName("raft-broken-stale-reads")).withConfig(serverSettings);
        assertThat(stale.name()).isEqualTo("raft-broken-stale-reads");
        assertThat(stale.config()).isEqualTo(serverSettings);
        assertThat(stale.createEngine(NodeId.of("n1"), List.of(NodeId.of("n1")))).isNotExactlyInstanceOf(RaftEngine.class);
        RaftProtocol correct = new RaftProtocol().withConfig(serverSettings);
        assertThat(correct.name()).isEqualTo("raft");
        assertThat(correct.createEngine(NodeId.of("n1"), List.of(NodeId.of("n1")))).isExactlyInstanceOf(RaftEngine.class);
    }
}
