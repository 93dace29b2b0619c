package io.tandem.protocols.vsync;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.tandem.codec.KryoCodec;
import java.nio.charset.StandardCharsets;

/**
 * The wire form of {@link VsyncMessage.RdmcBlock}, written by hand so that a block goes from the
 * sender's message buffer to the frame in one copy: the slice is written as it is (no copied array),
 * and the size is known before writing ({@link #bodyBytes}), so the codec writes into an exact array
 * with no buffer growth. Fixed-width fields, then the subgroup's UTF-8 bytes and the block's bytes,
 * each after its length (a 4-byte int, -1 for no data); the block's bytes come last.
 *
 * <p>Reading checks each length against the bytes left in the frame. A block whose frame does not
 * hold what it declares is read as a block with no data (null), which {@link LargeMessages#onBlock}
 * refuses and counts: a bad block is rejected with a value, not a codec exception (that would close the
 * whole connection).
 *
 * <p>Copies per block (session 14): the transport sends the head ({@link KryoCodec#encodeHead}) and copies the
 * block from the message buffer straight into its send buffer; a receiver whose transport read the frame into
 * an array of its own ({@link KryoCodec#decodeOwned}) keeps the block as a slice of that array, and the session
 * copies it once into the receive buffer.
 */
final class RdmcBlockSerializer extends Serializer<VsyncMessage.RdmcBlock> {
    /** vid, index, requestId (8 each), shard, origin, step, block, the subgroup's length (4 each). */
    private static final int FIXED_BYTES = 3 * 8 + 5 * 4;

    static int bodyBytes(VsyncMessage.RdmcBlock m) {
        int name = m.subgroup().getBytes(StandardCharsets.UTF_8).length;
        int data = m.data() == null ? 0 : m.length();
        return FIXED_BYTES + name + 4 + data;
    }

    @Override
    public void write(Kryo kryo, Output out, VsyncMessage.RdmcBlock m) {
        out.writeLong(m.vid());
        out.writeLong(m.index());
        out.writeLong(m.requestId());
        out.writeInt(m.shard());
        out.writeInt(m.origin());
        out.writeInt(m.step());
        out.writeInt(m.block());
        byte[] name = m.subgroup().getBytes(StandardCharsets.UTF_8);
        out.writeInt(name.length);
        out.writeBytes(name);
        if (m.data() == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(m.length());
        KryoCodec.writeTrailing(kryo, out, m.data(), m.offset(), m.length()); // nothing when the transport copies them itself

    }

    @Override
    public VsyncMessage.RdmcBlock read(Kryo kryo, Input in, Class<? extends VsyncMessage.RdmcBlock> type) {
        if (remaining(in) < FIXED_BYTES) return refused(in, -1, "", 0, -1, -1, -1, -1, 0);
        long vid = in.readLong();
        long index = in.readLong();
        long requestId = in.readLong();
        int shard = in.readInt();
        int origin = in.readInt();
        int step = in.readInt();
        int block = in.readInt();
        int nameBytes = in.readInt();
        if (nameBytes < 0 || nameBytes > remaining(in)) return refused(in, vid, "", shard, origin, index, step, block, requestId);
        String subgroup = new String(in.readBytes(nameBytes), StandardCharsets.UTF_8);
        int length = remaining(in) >= 4 ? in.readInt() : -1;
        // -1 is a block written without data; a negative or too long length is one the frame cannot hold.
        if (length < 0 || length > remaining(in)) return refused(in, vid, subgroup, shard, origin, index, step, block, requestId);
        if (KryoCodec.ownsInput(kryo)) { // the frame's array is this message's own: keep the block as a slice of it
            int at = in.position();
            in.setPosition(at + length);
            return new VsyncMessage.RdmcBlock(vid, subgroup, shard, origin, index, step, block, in.getBuffer(), at, length, requestId);
        }
        return new VsyncMessage.RdmcBlock(vid, subgroup, shard, origin, index, step, block, in.readBytes(length), 0, length, requestId);
    }

    private static int remaining(Input in) {
        return in.limit() - in.position();
    }

    /** A block without data, the rest of the frame skipped (so the codec's trailing-bytes check passes). */
    private static VsyncMessage.RdmcBlock refused(Input in, long vid, String subgroup, int shard, int origin, long index, int step, int block, long requestId) {
        in.setPosition(in.limit());
        return new VsyncMessage.RdmcBlock(vid, subgroup, shard, origin, index, step, block, null, 0, 0, requestId);
    }
}
