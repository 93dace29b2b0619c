package io.tandem.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.testing.TestMessages;
import io.tandem.testing.TestMessages.Batch;
import io.tandem.testing.TestMessages.Ping;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class KryoCodecTest {
    private final KryoCodec codec = TestMessages.codec();

    @Test
    void theRuntimesForwardingMessagesAreCoreTypesOfEveryCodec() {
        var forward = new io.tandem.runtime.RuntimeMessage.Forward(9, ClientRequest.Kind.READ, ClientRequest.Session.NONE, new byte[] {1},
                io.tandem.engine.ReadPolicy.stale(3));
        var decoded = (io.tandem.runtime.RuntimeMessage.Forward) codec.decode(codec.encode(forward));
        assertThat(decoded.requestId()).isEqualTo(9);
        assertThat(decoded.readPolicy()).isEqualTo(io.tandem.engine.ReadPolicy.stale(3));
        assertThat(decoded.payload()).containsExactly(1);
        var command = new io.tandem.runtime.RuntimeMessage.Forward(10, ClientRequest.Kind.COMMAND, new ClientRequest.Session(5, 9, 4), new byte[0], null);
        assertThat(((io.tandem.runtime.RuntimeMessage.Forward) codec.decode(codec.encode(command))).session()).isEqualTo(new ClientRequest.Session(5, 9, 4));
        var refusal = new io.tandem.runtime.RuntimeMessage.Refusal(9, io.tandem.runtime.RuntimeMessage.Reason.REDIRECT, "try n2", List.of(NodeId.of("n2"), NodeId.of("n3")));
        assertThat(codec.decode(codec.encode(refusal))).isEqualTo(refusal);
        assertThatThrownBy(() -> new io.tandem.runtime.RuntimeMessage.Forward(1, ClientRequest.Kind.READ, ClientRequest.Session.NONE, new byte[0], null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read policy");
    }

    @Test
    void roundTripsRegisteredRecordsWithArraysAndLists() {
        Ping ping = new Ping(7, 42, new byte[] {1, 2, 3});
        Ping decoded = codec.decode(codec.encode(ping), Ping.class);
        assertThat(decoded.requestId()).isEqualTo(7);
        assertThat(decoded.sequence()).isEqualTo(42);
        assertThat(decoded.payload()).containsExactly(1, 2, 3);

        Batch batch = new Batch(1, List.of("a", "b", "c"), new long[] {Long.MIN_VALUE, 0, Long.MAX_VALUE});
        Batch b = codec.decode(codec.encode(batch), Batch.class);
        assertThat(b.items()).containsExactly("a", "b", "c");
        assertThat(b.numbers()).containsExactly(Long.MIN_VALUE, 0, Long.MAX_VALUE);

        Batch withArrayList = new Batch(2, new ArrayList<>(List.of("x")), null);
        assertThat(codec.decode(codec.encode(withArrayList), Batch.class).numbers()).isNull();
    }

    @Test
    void roundTripsCoreTypes() {
        assertThat(codec.decode(codec.encode(NodeId.of("n-1")))).isEqualTo(NodeId.of("n-1"));
        assertThat(codec.decode(codec.encode(new ClientRequest.Session(5, 9)))).isEqualTo(new ClientRequest.Session(5, 9));
    }

    @Test
    void refusesToEncodeAnUnregisteredType() {
        assertThatThrownBy(() -> codec.encode(new TestMessages.Unregistered(1)))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("Unregistered");
    }

    @Test
    void refusesToDecodeAnUnknownClassId() {
        byte[] bytes = codec.encode(new Ping(1, 1, new byte[0]));
        bytes[0] = (byte) 0x7F; // a class id nobody registered
        assertThatThrownBy(() -> codec.decode(bytes)).isInstanceOf(CodecException.class);
    }

    @Test
    void rejectsTrailingAndTruncatedBytes() {
        byte[] bytes = codec.encode(new Ping(1, 1, new byte[] {9, 9}));
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThatThrownBy(() -> codec.decode(longer)).isInstanceOf(CodecException.class).hasMessageContaining("trailing");
        byte[] shorter = Arrays.copyOf(bytes, bytes.length - 1);
        assertThatThrownBy(() -> codec.decode(shorter)).isInstanceOf(CodecException.class);
    }

    @Test
    void aHostileArrayLengthIsRejectedBeforeAllocation() {
        // A byte[] encodes as: class id varint, (length + 1) varint, bytes. Claim 2^31-2 bytes in a tiny body.
        byte[] honest = codec.encode(new byte[] {5});
        int lengthAt = honest.length - 2;
        ByteBuffer hostile = ByteBuffer.allocate(lengthAt + 6);
        hostile.put(honest, 0, lengthAt);
        hostile.put(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07}); // varint 2^31-1
        hostile.put((byte) 5);
        assertThatThrownBy(() -> codec.decode(hostile.array()))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("declared length");
    }

    @Test
    void duplicateIdsAreAConfigurationError() {
        KryoCodec.Builder b = KryoCodec.builder();
        b.register(Ping.class, CodecIds.TEST_FIRST);
        assertThatThrownBy(() -> b.register(Batch.class, CodecIds.TEST_FIRST)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("taken by");
    }
}
