package io.tandem.api;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.testing.SequencerProtocol;
import org.junit.jupiter.api.Test;

class NodeBuilderTest {
    @Test
    void missingSettingsAreNamed() {
        assertThatThrownBy(() -> Tandem.node().members("n1").protocol(new SequencerProtocol()).start())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("'stateMachine' is not set");
        assertThatThrownBy(() -> Tandem.channel().id("n1").connect(new Receiver() {}))
                .hasMessageContaining("'protocol' is not set");
    }

    @Test
    void badMemberListsAreExplained() {
        assertThatThrownBy(() -> Tandem.node().members("n1=localhost:7001", "n1=localhost:7002")).hasMessageContaining("listed twice");
        assertThatThrownBy(() -> Tandem.node().members("n1=localhost")).hasMessageContaining("not host:port");
        assertThatThrownBy(() -> Tandem.node().members("n1=localhost:99999")).hasMessageContaining("outside 1-65535");
        assertThatThrownBy(() -> Tandem.node().members("bad name=localhost:7001")).hasMessageContaining("invalid node id");
        assertThatThrownBy(() -> Tandem.node().id("")).hasMessageContaining("invalid node id");
    }
}
