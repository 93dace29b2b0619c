package io.tandem.protocols.unreplicated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import io.tandem.protocols.Protocols;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure parts of the unreplicated engine: its entry encoding, its config, the single-member rule and the registry. */
class UnreplicatedEngineTest {
    private static final NodeId N1 = NodeId.of("n1");

    @Test
    void entriesRoundTripWithTheirSessionAndRequestId() {
        byte[] payload = EntryCodec.encode(42, new ClientRequest.Session(9, 3), new byte[] {1, 2, 3});
        assertThat(payload).hasSize(EntryCodec.HEADER_BYTES + 3);
        Committed c = EntryCodec.decode(7, N1, payload);
        assertThat(c).usingRecursiveComparison().isEqualTo(new Committed(7, N1, 42, new ClientRequest.Session(9, 3), new byte[] {1, 2, 3}));

        Committed noSession = EntryCodec.decode(1, N1, EntryCodec.encode(5, ClientRequest.Session.NONE, new byte[0]));
        assertThat(noSession.session().isNone()).isTrue();
        assertThat(noSession.command()).isEmpty();
        assertThat(noSession.isNoop()).isFalse();
    }

    @Test
    void entriesOfAnotherFormatAreRefused() {
        assertThatThrownBy(() -> EntryCodec.decode(3, N1, new byte[0])).isInstanceOf(IllegalStateException.class).hasMessageContaining("log entry 3");
        assertThatThrownBy(() -> EntryCodec.decode(3, N1, new byte[EntryCodec.HEADER_BYTES - 1])).isInstanceOf(IllegalStateException.class);
        byte[] otherVersion = EntryCodec.encode(1, ClientRequest.Session.NONE, new byte[] {7});
        otherVersion[0] = 9;
        assertThatThrownBy(() -> EntryCodec.decode(3, N1, otherVersion)).isInstanceOf(IllegalStateException.class).hasMessageContaining("version 9");
    }

    @Test
    void moreThanOneMemberIsRefusedWithAClearError() {
        var protocol = Protocols.byName("unreplicated");
        assertThatThrownBy(() -> protocol.createEngine(N1, List.of(N1, NodeId.of("n2"), NodeId.of("n3"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exactly one member").hasMessageContaining("3 members");
        assertThatThrownBy(() -> protocol.createEngine(N1, List.of(NodeId.of("n2")))).isInstanceOf(IllegalArgumentException.class);
        assertThat(protocol.createEngine(N1, List.of(N1))).isInstanceOf(UnreplicatedEngine.class);
    }

    @Test
    void configIsValidatedAndTheBrokenTwinHasItsOwnName() {
        assertThatThrownBy(() -> new UnreplicatedConfig(0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(UnreplicatedConfig.DEFAULTS.snapshotThreshold()).isEqualTo(10_000);
        assertThat(new AckBeforeDurable().name()).isEqualTo("unreplicated-broken-ack-before-durable");
    }

    @Test
    void theRegistryKnowsIt() {
        assertThat(Protocols.names()).contains("unreplicated");
        assertThat(Protocols.byName("unreplicated").name()).isEqualTo("unreplicated");
        assertThat(Protocols.unreplicated()).isInstanceOf(UnreplicatedProtocol.class);
    }
}
