package io.tandem.protocols.toy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.codec.KryoCodec;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import io.tandem.protocols.Protocols;
import io.tandem.storage.LogEntry;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToyPrimaryBackupTest {
    @Test
    void entriesRoundTripThroughTheEngineEncoding() {
        Committed c = new Committed(7, NodeId.of("n2"), 42, new ClientRequest.Session(9, 3), new byte[] {1, 2, 3});
        Committed back = ToyPrimaryBackup.decode(7, ToyPrimaryBackup.encode(c));
        assertThat(back).usingRecursiveComparison().isEqualTo(c);
        assertThat(ToyPrimaryBackup.decode(8, ToyPrimaryBackup.encode(Committed.noop(8)))).usingRecursiveComparison().isEqualTo(Committed.noop(8));
    }

    @Test
    void messagesRoundTripThroughTheCodec() {
        KryoCodec.Builder builder = KryoCodec.builder();
        ToyProtocol.correct().registerMessages(builder);
        KryoCodec codec = builder.build();
        var append = new ToyMessage.Append(3, 4, 2, List.of(new LogEntry(5, 3, new byte[] {9})), 4, 17, 99);
        var decoded = (ToyMessage.Append) codec.decode(codec.encode(append));
        assertThat(decoded).usingRecursiveComparison().isEqualTo(append);
        for (Object m : List.of(new ToyMessage.AppendReply(3, true, 5, 6, 17, 99), new ToyMessage.RequestVote(4, 3, 5, 0), new ToyMessage.Vote(4, true, 0))) {
            assertThat(codec.decode(codec.encode(m))).isEqualTo(m);
        }
    }

    @Test
    void protocolsAreFoundByName() {
        assertThat(Protocols.names()).contains("toy-pb", "toy-pb-buggy");
        assertThat(Protocols.byName("toy-pb").name()).isEqualTo("toy-pb");
        assertThat(Protocols.byName("toy-pb-buggy")).isInstanceOf(BuggyToy.class);
        assertThatThrownBy(() -> Protocols.byName("paxos-by-carrier-pigeon")).hasMessageContaining("known: ");
    }

    @Test
    void configIsValidated() {
        assertThatThrownBy(() -> new ToyConfig(10, 5, 1)).hasMessageContaining("viewTimeoutNanos");
        assertThatThrownBy(() -> new ToyPrimaryBackup(NodeId.of("x"), List.of(NodeId.of("n1")), ToyConfig.DEFAULT)).hasMessageContaining("not among");
    }
}
