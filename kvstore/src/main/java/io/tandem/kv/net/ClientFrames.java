package io.tandem.kv.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;

/**
 * The client protocol's framing (a 4-byte big-endian body length, then the body) and the body's decoding in one
 * step, read in place from the decoder's cumulation (hot24). It passes on the decoded message ({@link Request} or
 * {@link Response}) or, for a body that cannot be decoded, a {@link Bad}: never a buffer.
 *
 * <p>Why (issue 25, the leader's client I/O thread): Netty's {@code LengthFieldBasedFrameDecoder} hands each frame on as
 * a {@code retainedSlice} of the cumulation, which the next handler decoded and released: a slice object, an atomic
 * increment and decrement of the cumulation's count and a liveness check of the parent on every field read, per
 * request. In the window profile of main at 64 clients the release alone was 10 % of the leader's client I/O thread,
 * the liveness checks 7 %. Decoding here reads the body while the cumulation is certainly alive (inside
 * {@link #decode}) and keeps no reference to it: the decoded message owns copies of its variable-length fields
 * ({@link ClientWire}'s reader copies them out), so nothing handed on depends on the buffer's lifetime.
 *
 * <p>What is refused is refused as before: a body that cannot be decoded becomes a {@link Bad} with the request id read
 * from its header if it has one (the frames after it are decoded too; both endpoints close the connection on the first
 * bad one); a declared length above {@code maxFrameBytes} throws {@link TooLongFrameException} as soon as the length is
 * read (as the length-field decoder with {@code failFast} did) and every byte after it is dropped unread.
 */
public final class ClientFrames extends ByteToMessageDecoder {
    /** A frame body that could not be decoded: the id its header names (0 if too short to have one), and why. */
    public record Bad(long requestId, WireFormatException error) {}

    /** Reads one body of {@code buf} from its reader index to {@code end}; throws {@link WireFormatException} if invalid. */
    @FunctionalInterface
    public interface BodyReader {
        Object read(ByteBuf buf, int end);
    }

    private static final int LENGTH_BYTES = 4;

    private final int maxFrameBytes;
    private final BodyReader reader;
    /** Set once a frame was too long: everything after it is dropped. */
    private boolean tooLong;

    public ClientFrames(int maxFrameBytes, BodyReader reader) {
        if (maxFrameBytes < 1) throw new IllegalArgumentException("maxFrameBytes must be >= 1, was " + maxFrameBytes);
        this.maxFrameBytes = maxFrameBytes;
        this.reader = java.util.Objects.requireNonNull(reader, "reader");
    }

    /** Requests, as the server reads them. */
    public static ClientFrames requests(int maxFrameBytes) {
        return new ClientFrames(maxFrameBytes, ClientWire::readRequest);
    }

    /** Responses, as the client reads them. */
    public static ClientFrames responses(int maxFrameBytes) {
        return new ClientFrames(maxFrameBytes, ClientWire::readResponse);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (tooLong) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < LENGTH_BYTES) return;
        int start = in.readerIndex();
        long length = in.getUnsignedInt(start);
        if (length > maxFrameBytes) {
            tooLong = true;
            in.skipBytes(in.readableBytes());
            throw new TooLongFrameException("Adjusted frame length exceeds " + maxFrameBytes + ": " + length + " - discarded");
        }
        if (in.readableBytes() < LENGTH_BYTES + length) return; // the rest of the frame has not arrived
        int bodyStart = start + LENGTH_BYTES;
        int end = bodyStart + (int) length;
        in.readerIndex(bodyStart);
        try {
            out.add(reader.read(in, end));
        } catch (WireFormatException e) {
            out.add(new Bad(ClientWire.peekRequestId(in, bodyStart, end), e));
        } finally {
            in.readerIndex(end); // the next frame starts after this one, however much of it the reader read
        }
    }
}
