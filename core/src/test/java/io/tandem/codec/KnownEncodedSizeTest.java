package io.tandem.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** A large message that knows its size is written into an exact array; a wrong size only costs a copy. */
class KnownEncodedSizeTest {
    /** {@code count} bytes of {@code data} from {@code from}, declaring {@code declared} extra bytes beyond the truth. */
    record Slice(byte[] data, int from, int count, int declaredError) implements KnownEncodedSize {
        @Override
        public int encodedBodyBytes() {
            return 4 + count + declaredError;
        }
    }

    static final class SliceSerializer extends Serializer<Slice> {
        @Override
        public void write(Kryo kryo, Output out, Slice s) {
            out.writeInt(s.count());
            out.writeBytes(s.data(), s.from(), s.count());
        }

        @Override
        public Slice read(Kryo kryo, Input in, Class<? extends Slice> type) {
            int count = in.readInt();
            return new Slice(in.readBytes(count), 0, count, 0);
        }
    }

    private static KryoCodec codec(int max) {
        KryoCodec.Builder b = KryoCodec.builder();
        b.register(Slice.class, new SliceSerializer(), 1000);
        return b.maxEncodedBytes(max).build();
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (i * 31 + 7);
        return b;
    }

    @Test
    void aLargeMessageIsWrittenIntoAnArrayOfExactlyItsSize() {
        KryoCodec codec = codec(32 << 20);
        byte[] message = bytes(3 << 20);
        int from = 1 << 20;
        int count = 1 << 20;
        byte[] wire = codec.encode(new Slice(message, from, count, 0));
        // The class id (1000 + 2 as a varint: 2 bytes), the count, the block's bytes: nothing more.
        assertThat(wire).hasSize(2 + 4 + count);
        Slice back = (Slice) codec.decode(wire);
        assertThat(back.data()).isEqualTo(Arrays.copyOfRange(message, from, from + count));
    }

    @Test
    void aWrongDeclaredSizeStillEncodesCorrectly() {
        KryoCodec codec = codec(32 << 20);
        byte[] message = bytes(200_000);
        for (int error : new int[] {-1000, -1, 1, 5000}) {
            byte[] wire = codec.encode(new Slice(message, 7, 150_000, error));
            assertThat(wire).hasSize(2 + 4 + 150_000);
            assertThat(((Slice) codec.decode(wire)).data()).isEqualTo(Arrays.copyOfRange(message, 7, 150_007));
        }
        // Small messages take the pooled buffer, also when they declare a size.
        assertThat(((Slice) codec.decode(codec.encode(new Slice(message, 3, 10, 0)))).data()).isEqualTo(Arrays.copyOfRange(message, 3, 13));
    }

    @Test
    void aSizeOverTheLimitIsRefusedAsOtherEncodings() {
        KryoCodec codec = codec(1 << 20);
        byte[] message = bytes(2 << 20);
        assertThatThrownBy(() -> codec.encode(new Slice(message, 0, 1 << 20, 0))).isInstanceOf(CodecException.class).hasMessageContaining("limit");
        // A size declared too small does not get around the limit either.
        assertThatThrownBy(() -> codec.encode(new Slice(message, 0, (1 << 20) + 10, -20_000))).isInstanceOf(CodecException.class);
    }
}
