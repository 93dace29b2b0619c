package io.tandem.kv;

import io.tandem.kv.KvException.Reason;
import java.nio.charset.StandardCharsets;

/**
 * The primitives of the KV encoding: bytes, unsigned LEB128 varints (canonical, at most 5 bytes,
 * at most 2^31-1) and length-prefixed byte strings. Writers are sized exactly up front; readers
 * check every length against the bytes that remain before allocating anything.
 */
final class Wire {
    private Wire() {}

    static int varintSize(int value) {
        int size = 1;
        while ((value & ~0x7F) != 0) {
            value >>>= 7;
            size++;
        }
        return size;
    }

    static int sizeOf(byte[] bytes) {
        return varintSize(bytes.length) + bytes.length;
    }

    static final class Writer {
        private final byte[] buffer;
        private int position;

        Writer(int exactSize) {
            buffer = new byte[exactSize];
        }

        Writer writeByte(int b) {
            buffer[position++] = (byte) b;
            return this;
        }

        Writer writeVarint(int value) {
            while ((value & ~0x7F) != 0) {
                buffer[position++] = (byte) ((value & 0x7F) | 0x80);
                value >>>= 7;
            }
            buffer[position++] = (byte) value;
            return this;
        }

        Writer writeBytes(byte[] bytes) {
            writeVarint(bytes.length);
            System.arraycopy(bytes, 0, buffer, position, bytes.length);
            position += bytes.length;
            return this;
        }

        byte[] finish() {
            if (position != buffer.length) throw new IllegalStateException("encoded " + position + " of " + buffer.length + " bytes");
            return buffer;
        }
    }

    static final class Reader {
        private final byte[] buffer;
        private int position;
        /** Where the encoding ends in {@code buffer} (exclusive): it may be a range of a larger array. */
        private final int end;

        Reader(byte[] buffer) {
            this(buffer, 0, buffer.length);
        }

        /** Reads the encoding in {@code buffer[offset, offset + length)}; the caller checked the range. */
        Reader(byte[] buffer, int offset, int length) {
            this.buffer = buffer;
            this.position = offset;
            this.end = offset + length;
        }

        int position() {
            return position;
        }

        int remaining() {
            return end - position;
        }

        int readByte(String field) {
            if (position >= end) throw malformed("truncated before " + field);
            return buffer[position++] & 0xFF;
        }

        int readVarint(String field) {
            int value = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                int b = readByte(field);
                if (shift == 28 && (b & 0xF8) != 0) throw malformed(field + " exceeds 2^31-1");
                value |= (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    // One encoding per value: a final zero byte after the first would be padding.
                    if (b == 0 && shift > 0) throw malformed(field + " has a non-canonical varint encoding");
                    return value;
                }
            }
            throw malformed(field + " varint is longer than 5 bytes");
        }

        /** A length-prefixed byte string; a declared length above {@code max} is refused with {@code tooLarge}. */
        byte[] readBytes(String field, int max, Reason tooLarge) {
            int length = readVarint(field + " length");
            if (length > max) throw new KvException(tooLarge, field + " is " + length + " bytes; the limit is " + max);
            if (length > remaining()) throw malformed(field + " declares " + length + " bytes but only " + remaining() + " remain");
            byte[] bytes = new byte[length];
            System.arraycopy(buffer, position, bytes, 0, length);
            position += length;
            return bytes;
        }

        /** {@link #readBytes} without the copy: checks the string and steps over it; returns its length. */
        int skipBytes(String field, int max, Reason tooLarge) {
            int length = readVarint(field + " length");
            if (length > max) throw new KvException(tooLarge, field + " is " + length + " bytes; the limit is " + max);
            if (length > remaining()) throw malformed(field + " declares " + length + " bytes but only " + remaining() + " remain");
            position += length;
            return length;
        }

        String readString(String field) {
            return new String(readBytes(field, Integer.MAX_VALUE, Reason.MALFORMED), StandardCharsets.UTF_8);
        }

        void expectEnd() {
            if (remaining() != 0) throw malformed(remaining() + " unexpected bytes after the end");
        }

        static KvException malformed(String problem) {
            return new KvException(Reason.MALFORMED, "malformed KV encoding: " + problem);
        }
    }
}
