package io.tandem.protocols.multipaxos;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** The binary form of a {@link Value} in the acceptor journal, and a digest for the simulator's invariants. */
final class ValueCodec {
    private ValueCodec() {}

    private static final byte NOOP_TAG = 0;
    private static final byte COMMAND_TAG = 1;
    private static final byte READ_TAG = 2;
    /** A command whose session carries the client's low watermark (replaces COMMAND_TAG on write). */
    private static final byte COMMAND_WITH_WATERMARK_TAG = 3;

    static int encodedSize(Value v) {
        return switch (v) {
            case Value.Noop n -> 1;
            case Value.Command c -> 1 + 2 + c.origin().value().length() + 8 + 24 + 4 + c.payload().length;
            case Value.LogRead r -> 1 + 2 + r.origin().value().length() + 8;
        };
    }

    static void encode(Value v, ByteBuffer out) {
        switch (v) {
            case Value.Noop n -> out.put(NOOP_TAG);
            case Value.Command c -> {
                out.put(COMMAND_WITH_WATERMARK_TAG);
                putNode(out, c.origin());
                out.putLong(c.requestId()).putLong(c.session().clientId()).putLong(c.session().sequence()).putLong(c.session().lowWatermark());
                out.putInt(c.payload().length).put(c.payload());
            }
            case Value.LogRead r -> {
                out.put(READ_TAG);
                putNode(out, r.origin());
                out.putLong(r.requestId());
            }
        }
    }

    static Value decode(ByteBuffer in) {
        byte tag = in.get();
        return switch (tag) {
            case NOOP_TAG -> Value.NOOP;
            case COMMAND_TAG, COMMAND_WITH_WATERMARK_TAG -> {
                NodeId origin = getNode(in);
                long requestId = in.getLong();
                ClientRequest.Session session = tag == COMMAND_TAG
                        ? new ClientRequest.Session(in.getLong(), in.getLong())
                        : new ClientRequest.Session(in.getLong(), in.getLong(), in.getLong());
                int length = in.getInt();
                if (length < 0 || length > in.remaining()) throw new IllegalArgumentException("command length " + length + " exceeds the record");
                byte[] payload = new byte[length];
                in.get(payload);
                yield new Value.Command(origin, requestId, session, payload);
            }
            case READ_TAG -> new Value.LogRead(getNode(in), in.getLong());
            default -> throw new IllegalArgumentException("unknown value tag " + tag);
        };
    }

    static byte[] toBytes(Value v) {
        ByteBuffer out = ByteBuffer.allocate(encodedSize(v));
        encode(v, out);
        return out.array();
    }

    /**
     * A 64-bit digest of the value's encoding (FNV-1a), so the simulator's invariants can compare
     * values across nodes without keeping payloads alive.
     */
    static long digest(Value v) {
        long h = 0xcbf29ce484222325L;
        for (byte b : toBytes(v)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /**
     * The node's name as a length and its ASCII bytes, written char by char: {@code getBytes} allocated an array per
     * value (12 % of a follower's loop allocation, session 20). The same bytes: {@link NodeId} names are ASCII
     * letters, digits, '.', '_' and '-' (its pattern), one byte per char, which {@link #encodedSize} already counts on.
     */
    private static void putNode(ByteBuffer out, NodeId node) {
        String name = node.value();
        out.putShort((short) name.length());
        for (int i = 0; i < name.length(); i++) out.put((byte) name.charAt(i));
    }

    private static NodeId getNode(ByteBuffer in) {
        int length = in.getShort();
        if (length <= 0 || length > in.remaining()) throw new IllegalArgumentException("node name length " + length + " exceeds the record");
        byte[] name = new byte[length];
        in.get(name);
        return NodeId.of(new String(name, StandardCharsets.US_ASCII));
    }
}
