package io.tandem.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** A head encoding plus the trailing run is the plain encoding; a decoding of an owned array may keep slices of it. */
class TrailingBytesTest {
    record Run(long id, byte[] data, int from, int count) implements TrailingBytes {
        @Override
        public byte[] trailingArray() {
            return data;
        }

        @Override
        public int trailingOffset() {
            return from;
        }

        @Override
        public int trailingLength() {
            return count;
        }
    }

    static final class RunSerializer extends Serializer<Run> {
        @Override
        public void write(Kryo kryo, Output out, Run r) {
            out.writeLong(r.id());
            out.writeInt(r.count());
            KryoCodec.writeTrailing(kryo, out, r.data(), r.from(), r.count());
        }

        @Override
        public Run read(Kryo kryo, Input in, Class<? extends Run> type) {
            long id = in.readLong();
            int count = in.readInt();
            if (KryoCodec.ownsInput(kryo)) {
                int at = in.position();
                in.setPosition(at + count);
                return new Run(id, in.getBuffer(), at, count);
            }
            return new Run(id, in.readBytes(count), 0, count);
        }
    }

    private static KryoCodec codec() {
        KryoCodec.Builder b = KryoCodec.builder();
        b.register(Run.class, new RunSerializer(), 1000);
        return b.maxEncodedBytes(8 << 20).build();
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (i * 31 + 7);
        return b;
    }

    @Test
    void theHeadFollowedByTheRunIsThePlainEncoding() {
        KryoCodec codec = codec();
        byte[] data = bytes(300_000);
        for (int[] slice : new int[][] {{0, 0}, {5, 1}, {17, 100_000}, {0, 300_000}}) {
            Run run = new Run(42, data, slice[0], slice[1]);
            KryoCodec.Head head = codec.encodeHead(run);
            assertThat(head.tail()).isSameAs(data);
            assertThat(head.offset()).isEqualTo(slice[0]);
            assertThat(head.length()).isEqualTo(slice[1]);
            byte[] joined = Arrays.copyOf(head.head(), (int) head.totalBytes());
            System.arraycopy(data, slice[0], joined, head.head().length, slice[1]);
            assertThat(joined).isEqualTo(codec.encode(run));
            // The flag is per encoding: the next plain encoding on the same pooled Kryo writes the run again.
            assertThat(codec.encode(run)).hasSize((int) head.totalBytes());
        }
    }

    @Test
    void anOwnedArrayMayBeKeptAndAnyOtherIsCopied() {
        KryoCodec codec = codec();
        byte[] data = bytes(100_000);
        byte[] wire = codec.encode(new Run(1, data, 10, 90_000));
        Run owned = (Run) codec.decodeOwned(wire, 0, wire.length);
        assertThat(owned.data()).isSameAs(wire);
        assertThat(Arrays.copyOfRange(owned.data(), owned.from(), owned.from() + owned.count())).isEqualTo(Arrays.copyOfRange(data, 10, 90_010));
        Run copied = (Run) codec.decode(wire, 0, wire.length);
        assertThat(copied.data()).isNotSameAs(wire).isEqualTo(Arrays.copyOfRange(data, 10, 90_010));
        // After an owned decoding the pooled Kryo forgets the flag.
        for (int i = 0; i < 20; i++) assertThat(((Run) codec.decode(wire)).data()).isNotSameAs(wire);
    }
}
