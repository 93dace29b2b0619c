package io.tandem.codec;

import java.nio.ByteBuffer;

/**
 * The frame every transport puts on a byte stream (DESIGN §5):
 *
 * <pre>
 *   magic   u16  0x7D4E
 *   version u8   1
 *   type    u8   {@link #TYPE_HANDSHAKE}, {@link #TYPE_MESSAGE}, {@link #TYPE_REGION_WRITE},
 *                {@link #TYPE_REGION_FENCE}, {@link #TYPE_REGION_ACK}
 *   length  s32  body length in bytes, 0..maxFrameBytes
 *   body    length bytes
 * </pre>
 *
 * The header is validated before the body is read or allocated, so garbage or an oversized length
 * is rejected after at most {@link #HEADER_BYTES} bytes.
 */
public final class FrameFormat {
    public static final short MAGIC = 0x7D4E;
    public static final byte VERSION = 1;
    public static final byte TYPE_HANDSHAKE = 1;
    public static final byte TYPE_MESSAGE = 2;
    public static final byte TYPE_REGION_WRITE = 3;
    /** Asks the receiver to acknowledge every region write before it (body: push id, s64). */
    public static final byte TYPE_REGION_FENCE = 4;
    /** Answers a fence: every region write before it was handled (body: push id, s64). */
    public static final byte TYPE_REGION_ACK = 5;
    public static final int HEADER_BYTES = 8;
    /** Default maximum body size: 16 MiB. Snapshots move in chunks well below it. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

    private FrameFormat() {}

    /** A validated frame header. */
    public record Header(byte type, int length) {}

    /**
     * Reads and validates the header at the buffer's position (which advances by
     * {@link #HEADER_BYTES}).
     *
     * @throws MalformedFrameException naming what is wrong
     */
    public static Header readHeader(ByteBuffer in, int maxFrameBytes) {
        if (in.remaining() < HEADER_BYTES) throw new MalformedFrameException("truncated header: " + in.remaining() + " bytes");
        short magic = in.getShort();
        if (magic != MAGIC) throw new MalformedFrameException(String.format("bad magic 0x%04X (expected 0x%04X): not a Tandem peer", magic & 0xFFFF, MAGIC));
        byte version = in.get();
        if (version != VERSION) throw new MalformedFrameException("unsupported frame version " + version + " (this node speaks " + VERSION + ")");
        byte type = in.get();
        if (type < TYPE_HANDSHAKE || type > TYPE_REGION_ACK) throw new MalformedFrameException("unknown frame type " + type);
        int length = in.getInt();
        if (length < 0 || length > maxFrameBytes) throw new OversizedFrameException(length, maxFrameBytes);
        return new Header(type, length);
    }

    public static void writeHeader(ByteBuffer out, byte type, int length) {
        out.putShort(MAGIC).put(VERSION).put(type).putInt(length);
    }

    /** Thrown for a frame that is not a valid Tandem frame. */
    public static class MalformedFrameException extends CodecException {
        public MalformedFrameException(String message) {
            super(message);
        }
    }

    /** Thrown for a frame whose declared length exceeds the maximum. */
    public static final class OversizedFrameException extends MalformedFrameException {
        public OversizedFrameException(int length, int max) {
            super("frame length " + length + " exceeds the maximum of " + max + " bytes");
        }
    }
}
