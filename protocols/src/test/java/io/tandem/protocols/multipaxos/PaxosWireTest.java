package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.codec.BinarySerializer;
import io.tandem.codec.CodecException;
import io.tandem.codec.Decoded;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The hand-written phase-2 encodings: exact round trips, and malformed bytes rejected with a reason, never an exception. */
class PaxosWireTest {
    private static final NodeId N1 = NodeId.of("n1");
    private static final PaxosWire.AcceptSerializer ACCEPT = new PaxosWire.AcceptSerializer();
    private static final PaxosWire.ChosenSerializer CHOSEN = new PaxosWire.ChosenSerializer();
    private static final PaxosWire.AcceptedSerializer ACCEPTED = new PaxosWire.AcceptedSerializer();
    private static final PaxosWire.ProposeSerializer PROPOSE = new PaxosWire.ProposeSerializer();
    private static final PaxosWire.ProxyAcceptSerializer PROXY_ACCEPT = new PaxosWire.ProxyAcceptSerializer();
    private static final PaxosWire.ChosenThroughSerializer CHOSEN_THROUGH = new PaxosWire.ChosenThroughSerializer();

    private static List<Value> values(int n, int payloadBytes) {
        List<Value> values = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            values.add(switch (i % 5) {
                case 3 -> Value.NOOP;
                case 4 -> new Value.LogRead(NodeId.of("node-" + i), 1000 + i);
                default -> new Value.Command(N1, 42 + i, new ClientRequest.Session(-9 - i, 3 + i, 2), new byte[payloadBytes]);
            });
        }
        return values;
    }

    private static <T> T decoded(BinarySerializer<T> s, byte[] bytes) {
        Decoded<T> d = s.decode(bytes);
        assertThat(d).isInstanceOf(Decoded.Ok.class);
        return ((Decoded.Ok<T>) d).value();
    }

    private static String rejection(BinarySerializer<?> s, byte[] bytes) {
        Decoded<?> d = s.decode(bytes);
        assertThat(d).as("decoding %s", Arrays.toString(bytes)).isInstanceOf(Decoded.Rejected.class);
        return ((Decoded.Rejected<?>) d).reason();
    }

    @Test
    void phaseTwoMessagesRoundTripAtEverySize() {
        for (int[] shape : new int[][] {{0, 0}, {1, 64}, {5, 0}, {16, 64}, {10, 1024}}) {
            var accept = new MultiPaxosMessage.Accept(new Ballot(7, 2), 1_000 + shape[0], values(shape[0], shape[1]), 77, 990 + shape[0]);
            assertThat(decoded(ACCEPT, ACCEPT.encode(accept))).isEqualTo(accept); // records with lists of values: equal by content
            var chosen = new MultiPaxosMessage.Chosen(5, values(shape[0], shape[1]), 0);
            assertThat(decoded(CHOSEN, CHOSEN.encode(chosen))).isEqualTo(chosen);
            var proxyAccept = new MultiPaxosMessage.ProxyAccept(new Ballot(7, 2), 1_000 + shape[0], values(shape[0], shape[1]), 78);
            assertThat(decoded(PROXY_ACCEPT, PROXY_ACCEPT.encode(proxyAccept))).isEqualTo(proxyAccept);
        }
        for (Ballot b : List.of(Ballot.ZERO, new Ballot(1, 0), new Ballot(Long.MAX_VALUE, Integer.MAX_VALUE))) {
            var accepted = new MultiPaxosMessage.Accepted(b, 10, 25, 3, -5);
            assertThat(decoded(ACCEPTED, ACCEPTED.encode(accepted))).isEqualTo(accepted);
            for (long through : new long[] {0, 1, Long.MAX_VALUE}) {
                var claim = new MultiPaxosMessage.ChosenThrough(b, through, -3);
                assertThat(decoded(CHOSEN_THROUGH, CHOSEN_THROUGH.encode(claim))).isEqualTo(claim);
            }
        }
        var propose = new MultiPaxosMessage.Propose(12, new ClientRequest.Session(4, 9, 8), new byte[] {1, 2, 3});
        var back = decoded(PROPOSE, PROPOSE.encode(propose));
        assertThat(back.requestId()).isEqualTo(12);
        assertThat(back.session()).isEqualTo(propose.session());
        assertThat(back.payload()).containsExactly(1, 2, 3);
        assertThat(decoded(PROPOSE, PROPOSE.encode(new MultiPaxosMessage.Propose(1, ClientRequest.Session.NONE, new byte[0]))).session())
                .isSameAs(ClientRequest.Session.NONE);
    }

    @Test
    void everyTruncationIsRejectedWithAReason() {
        byte[] full = ACCEPT.encode(new MultiPaxosMessage.Accept(new Ballot(7, 2), 1_000, values(5, 8), 77, 999));
        for (int n = 0; n < full.length; n++) assertThat(rejection(ACCEPT, Arrays.copyOf(full, n))).startsWith("Accept: ");
        byte[] claim = CHOSEN_THROUGH.encode(new MultiPaxosMessage.ChosenThrough(new Ballot(7, 2), 999, 77));
        for (int n = 0; n < claim.length; n++) assertThat(rejection(CHOSEN_THROUGH, Arrays.copyOf(claim, n))).startsWith("ChosenThrough: ");
        byte[] proxyAccept = PROXY_ACCEPT.encode(new MultiPaxosMessage.ProxyAccept(new Ballot(7, 2), 1_000, values(5, 8), 77));
        for (int n = 0; n < proxyAccept.length; n++) assertThat(rejection(PROXY_ACCEPT, Arrays.copyOf(proxyAccept, n))).startsWith("ProxyAccept: ");
        byte[] accepted = ACCEPTED.encode(new MultiPaxosMessage.Accepted(new Ballot(7, 2), 10, 25, 3, -5));
        for (int n = 0; n < accepted.length; n++) assertThat(rejection(ACCEPTED, Arrays.copyOf(accepted, n))).startsWith("Accepted: ");
        byte[] propose = PROPOSE.encode(new MultiPaxosMessage.Propose(12, new ClientRequest.Session(4, 9, 8), new byte[] {1, 2, 3}));
        for (int n = 0; n < propose.length; n++) assertThat(rejection(PROPOSE, Arrays.copyOf(propose, n))).startsWith("Propose: ");
        assertThat(rejection(PROPOSE, Arrays.copyOf(propose, propose.length + 2))).contains("2 trailing bytes");
    }

    @Test
    void invalidFieldsAreRejectedWithTheirName() {
        // Chosen: firstSlot 1, request 0, one value with tag 9
        assertThat(rejection(CHOSEN, new byte[] {1, 0, 1, 9})).contains("unknown tag 9");
        // a command whose origin is not a valid node id ("n 1")
        assertThat(rejection(CHOSEN, new byte[] {1, 0, 1, 1, 3, 'n', ' ', '1', 0, 0, 0, 0, 0})).contains("invalid field").contains("invalid node id");
        // a command whose origin claims 100 bytes
        assertThat(rejection(CHOSEN, new byte[] {1, 0, 1, 1, 100, 'n'})).contains("value origin: node id of 100 bytes");
        // a session whose low watermark is above its sequence
        assertThat(rejection(PROPOSE, new byte[] {0, 2, 3, 5, 0})).contains("low watermark 5");
        // a ballot of round 0 that is not ZERO
        assertThat(rejection(ACCEPTED, new byte[] {0, 2, 0, 0, 0, 0})).contains("round 0 is only Ballot.ZERO");
        // a count of values that cannot fit
        assertThat(rejection(ACCEPT, new byte[] {1, 0, 1, 0, 0, (byte) 0xFF, (byte) 0xFF, 0x7F})).contains("values claims 2097151 items");
        // a ProxyAccept whose ballot's proposer is outside the int range
        assertThat(rejection(PROXY_ACCEPT, new byte[] {1, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0x7F, 0, 0, 0})).contains("ballot.proposer");
    }

    @Test
    void throughTheProtocolsKryoCodecTheSameBytesAreACodecException() {
        KryoCodec.Builder builder = KryoCodec.builder();
        new MultiPaxosProtocol().registerMessages(builder);
        KryoCodec codec = builder.build();
        var accept = new MultiPaxosMessage.Accept(new Ballot(3, 1), 9, values(7, 64), 5, 8);
        byte[] wire = codec.encode(accept);
        assertThat(codec.decode(wire)).isEqualTo(accept);
        assertThatThrownBy(() -> codec.decode(Arrays.copyOf(wire, wire.length - 1))).isInstanceOf(CodecException.class).hasMessageStartingWith("Accept: ");
        var proxyAccept = new MultiPaxosMessage.ProxyAccept(new Ballot(3, 1), 9, values(2, 64), 6);
        byte[] proxyWire = codec.encode(proxyAccept);
        assertThat(codec.decode(proxyWire)).isEqualTo(proxyAccept);
        assertThatThrownBy(() -> codec.decode(Arrays.copyOf(proxyWire, proxyWire.length - 1))).isInstanceOf(CodecException.class).hasMessageStartingWith("ProxyAccept: ");
        var prepare = new MultiPaxosMessage.Prepare(new Ballot(3, 1), 4); // still Kryo's record serializer
        assertThat(codec.decode(codec.encode(prepare))).isEqualTo(prepare);
    }
}
