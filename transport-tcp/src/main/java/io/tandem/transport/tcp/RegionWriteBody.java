package io.tandem.transport.tcp;

/**
 * The body of a {@code TYPE_REGION_WRITE} frame, which emulates a one-sided write into the
 * receiver's copy of the sender's region:
 *
 * <pre>
 *   nameLength u16
 *   name       nameLength bytes, UTF-8
 *   offset     s32, a multiple of 8
 *   data       the rest of the body, a multiple of 8 bytes
 * </pre>
 */
final class RegionWriteBody {
    /** Bytes besides the name and the data. */
    static final int FIXED_BYTES = 6;
    /** Longest region name (UTF-8 bytes). */
    static final int MAX_NAME_BYTES = 255;

    private RegionWriteBody() {}

    /** The largest data chunk (a multiple of 8) that fits one frame of {@code maxFrameBytes} with this name. */
    static int maxChunk(int maxFrameBytes, byte[] name) {
        return (maxFrameBytes - FIXED_BYTES - name.length) / 8 * 8;
    }

    static byte[] encode(byte[] name, int offset, byte[] data, int from, int length) {
        byte[] body = withHeader(name, offset, length);
        System.arraycopy(data, from, body, dataOffset(name), length);
        return body;
    }

    /** A body of {@code length} data bytes with its name and offset written; the data go at {@link #dataOffset}. */
    static byte[] withHeader(byte[] name, int offset, int length) {
        byte[] body = new byte[FIXED_BYTES + name.length + length];
        body[0] = (byte) (name.length >>> 8);
        body[1] = (byte) name.length;
        System.arraycopy(name, 0, body, 2, name.length);
        int at = 2 + name.length;
        body[at] = (byte) (offset >>> 24);
        body[at + 1] = (byte) (offset >>> 16);
        body[at + 2] = (byte) (offset >>> 8);
        body[at + 3] = (byte) offset;
        return body;
    }

    /** Where the data start in a body for a region called {@code name}. */
    static int dataOffset(byte[] name) {
        return 2 + name.length + 4;
    }
}
