package io.tandem.codec;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.ArrayList;
import java.util.List;

/**
 * Serializers for containers whose length comes from the wire. Kryo's defaults allocate whatever
 * length a peer claims; these check the claim against the bytes actually left in the frame.
 */
final class SafeSerializers {
    private SafeSerializers() {}

    static int checkedLength(Input in, int length, int minBytesPerElement) {
        if (length < 0) throw new KryoException("negative length " + length);
        long needed = (long) length * minBytesPerElement;
        int remaining = in.limit() - in.position();
        if (needed > remaining) throw new KryoException("declared length " + length + " needs " + needed + " bytes but only " + remaining + " remain");
        return length;
    }

    static final class ByteArraySerializer extends Serializer<byte[]> {
        ByteArraySerializer() {
            setAcceptsNull(true);
        }

        @Override
        public void write(Kryo kryo, Output out, byte[] value) {
            if (value == null) {
                out.writeVarInt(0, true);
                return;
            }
            out.writeVarInt(value.length + 1, true);
            out.writeBytes(value);
        }

        @Override
        public byte[] read(Kryo kryo, Input in, Class<? extends byte[]> type) {
            int lengthPlusOne = in.readVarInt(true);
            if (lengthPlusOne == 0) return null;
            return in.readBytes(checkedLength(in, lengthPlusOne - 1, 1));
        }
    }

    static final class LongArraySerializer extends Serializer<long[]> {
        LongArraySerializer() {
            setAcceptsNull(true);
        }

        @Override
        public void write(Kryo kryo, Output out, long[] value) {
            if (value == null) {
                out.writeVarInt(0, true);
                return;
            }
            out.writeVarInt(value.length + 1, true);
            out.writeLongs(value, 0, value.length, false);
        }

        @Override
        public long[] read(Kryo kryo, Input in, Class<? extends long[]> type) {
            int lengthPlusOne = in.readVarInt(true);
            if (lengthPlusOne == 0) return null;
            return in.readLongs(checkedLength(in, lengthPlusOne - 1, 1), false);
        }
    }

    /** Any {@link List}; always read back as an {@link ArrayList}. Elements are written with their class. */
    static final class ListSerializer extends Serializer<Object> {
        @Override
        public void write(Kryo kryo, Output out, Object value) {
            List<?> list = (List<?>) value;
            out.writeVarInt(list.size(), true);
            for (Object element : list) kryo.writeClassAndObject(out, element);
        }

        @Override
        public Object read(Kryo kryo, Input in, Class<?> type) {
            int size = checkedLength(in, in.readVarInt(true), 1);
            List<Object> list = new ArrayList<>(size);
            for (int i = 0; i < size; i++) list.add(kryo.readClassAndObject(in));
            return list;
        }
    }
}
