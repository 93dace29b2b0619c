package io.tandem.codec;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A hand-written binary encoding of one hot message type, registered with {@link KryoCodec} in place
 * of Kryo's reflective record serializer (the class id still comes first, so hot and other messages
 * share one frame format). Kryo's record serializer looks up constructors, fields and class ids by
 * reflection for every message; on the replication path that was about 15 % of a Raft leader's engine
 * loop (jmh/README.md, "Where Tandem's time goes").
 *
 * <p>Every read is checked against the bytes that remain before anything is allocated, and every
 * field is validated (the records' own constructors run too): malformed input becomes a
 * {@link CodecException} naming the message and the field inside Kryo, which the transport turns into
 * a rejected frame, and a {@link Decoded.Rejected} from {@link #decode}, never another exception.
 *
 * <p>Integers are Kryo's variable-length encoding ({@code writeVarLong(v, true)}, 1-10 bytes) unless
 * said otherwise; byte strings are a var-int length and the bytes.
 */
public abstract class BinarySerializer<T> extends Serializer<T> {
    /** Node ids recently decoded, so a steady stream of messages from a few peers allocates none (copy on write). */
    private volatile Cached[] nodeIds = new Cached[0];
    private static final int NODE_ID_CACHE = 32;

    private record Cached(byte[] name, NodeId id) {}

    private final String messageName;

    protected BinarySerializer(String messageName) {
        super(false, true); // no nulls, immutable records: Kryo.copy may share them
        this.messageName = messageName;
    }

    /** Writes {@code value}'s fields. */
    protected abstract void writeBody(Output out, T value);

    /**
     * Reads the fields {@link #writeBody} wrote, checking each ({@link #reject} on bad input).
     */
    protected abstract T readBody(Input in);

    @Override
    public final void write(Kryo kryo, Output output, T value) {
        writeBody(output, value);
    }

    @Override
    public final T read(Kryo kryo, Input input, Class<? extends T> type) {
        try {
            return readBody(input);
        } catch (CodecException e) {
            throw e;
        } catch (KryoException e) { // a var-int running past the end
            throw new CodecException(messageName + ": truncated or malformed integer (" + e.getMessage() + ")");
        } catch (IllegalArgumentException | NullPointerException e) { // a record's constructor refused a decoded field
            throw new CodecException(messageName + ": invalid field: " + e.getMessage());
        }
    }

    /** The message alone (no class id), for tests and benchmarks. */
    public final byte[] encode(T value) {
        Output out = new Output(256, -1);
        writeBody(out, value);
        return out.toBytes();
    }

    /**
     * Decodes one message (no class id) that must fill {@code bytes[offset, offset+length)} exactly.
     * Never throws for bad input: a rejection names what is wrong.
     */
    public final Decoded<T> decode(byte[] bytes, int offset, int length) {
        try {
            Input in = new Input(bytes, offset, length);
            T value = read(null, in, null);
            int trailing = offset + length - in.position();
            if (trailing != 0) return new Decoded.Rejected<>(messageName + ": " + trailing + " trailing bytes");
            return new Decoded.Ok<>(value);
        } catch (CodecException e) {
            return new Decoded.Rejected<>(e.getMessage());
        } catch (RuntimeException e) { // a bug in a serializer, not the input: still no exception for the caller
            return new Decoded.Rejected<>(messageName + ": cannot decode: " + e);
        }
    }

    public final Decoded<T> decode(byte[] bytes) {
        return decode(bytes, 0, bytes.length);
    }

    // ---- checked reads ----

    /** A rejection of the input, to throw from {@link #readBody}. */
    protected final CodecException reject(String what) {
        return new CodecException(messageName + ": " + what);
    }

    private void need(Input in, int bytes, String field) {
        int remaining = in.limit() - in.position();
        if (remaining < bytes) throw reject("truncated at " + field + ": needs " + bytes + " bytes, " + remaining + " remain");
    }

    /** Bytes left in the message. */
    protected static int remaining(Input in) {
        return in.limit() - in.position();
    }

    /** A non-negative variable-length long (1-10 bytes). */
    protected final long readPositive(Input in, String field) {
        need(in, 1, field);
        long v = in.readVarLong(true);
        if (v < 0) throw reject(field + " is negative: " + v);
        return v;
    }

    protected static void writePositive(Output out, long v) {
        out.writeVarLong(v, true);
    }

    /** Any long, zig-zag encoded (1-10 bytes). */
    protected final long readSigned(Input in, String field) {
        need(in, 1, field);
        return in.readVarLong(false);
    }

    protected static void writeSigned(Output out, long v) {
        out.writeVarLong(v, false);
    }

    protected final boolean readBoolean(Input in, String field) {
        need(in, 1, field);
        byte b = in.readByte();
        if (b != 0 && b != 1) throw reject(field + " is " + b + ", not a boolean (0 or 1)");
        return b == 1;
    }

    /** A count of items, each at least {@code minBytesEach} long: more than the bytes left could hold is refused before allocating. */
    protected final int readCount(Input in, String field, int minBytesEach) {
        need(in, 1, field);
        int n = in.readVarInt(true);
        if (n < 0 || (long) n * minBytesEach > remaining(in)) {
            throw reject(field + " claims " + (n & 0xFFFFFFFFL) + " items of at least " + minBytesEach + " bytes, " + remaining(in) + " bytes remain");
        }
        return n;
    }

    protected static void writeCount(Output out, int n) {
        out.writeVarInt(n, true);
    }

    /** A var-int length and that many bytes; the length is checked against what remains. */
    protected final byte[] readByteString(Input in, String field) {
        need(in, 1, field);
        int n = in.readVarInt(true);
        if (n < 0 || n > remaining(in)) throw reject(field + " claims " + (n & 0xFFFFFFFFL) + " bytes, " + remaining(in) + " remain");
        return in.readBytes(n);
    }

    protected static void writeByteString(Output out, byte[] bytes) {
        out.writeVarInt(bytes.length, true);
        out.writeBytes(bytes);
    }

    /** A node id (var-int length, ASCII), or null when {@code nullable} and the length is 0. */
    protected final NodeId readNodeId(Input in, String field, boolean nullable) {
        need(in, 1, field);
        int n = in.readVarInt(true);
        if (n == 0 && nullable) return null;
        if (n <= 0 || n > 64 || n > remaining(in)) throw reject(field + ": node id of " + (n & 0xFFFFFFFFL) + " bytes (1-64 allowed, " + remaining(in) + " remain)");
        byte[] buffer = in.getBuffer();
        int at = in.position();
        for (Cached c : nodeIds) {
            if (c.name().length == n && Arrays.equals(c.name(), 0, n, buffer, at, at + n)) {
                in.setPosition(at + n);
                return c.id();
            }
        }
        byte[] name = in.readBytes(n);
        NodeId id = NodeId.of(new String(name, StandardCharsets.US_ASCII)); // validates: letters, digits, . _ -
        Cached[] old = nodeIds;
        if (old.length < NODE_ID_CACHE) { // a group has a handful of members; a flood of names is not cached
            Cached[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = new Cached(name, id);
            nodeIds = grown;
        }
        return id;
    }

    /** Writes a node id; null (only where the reader allows it) as length 0. */
    protected static void writeNodeId(Output out, NodeId id) {
        if (id == null) {
            out.writeVarInt(0, true);
            return;
        }
        String v = id.value(); // ASCII by NodeId's rule
        out.writeVarInt(v.length(), true);
        for (int i = 0; i < v.length(); i++) out.writeByte((byte) v.charAt(i));
    }

    /** A client session: client id (signed), sequence, low watermark; the record checks their relation. */
    protected final ClientRequest.Session readSession(Input in, String field) {
        long clientId = readSigned(in, field + ".clientId");
        long sequence = readPositive(in, field + ".sequence");
        long lowWatermark = readPositive(in, field + ".lowWatermark");
        if (clientId == 0 && sequence == 0 && lowWatermark == 0) return ClientRequest.Session.NONE;
        return new ClientRequest.Session(clientId, sequence, lowWatermark);
    }

    protected static void writeSession(Output out, ClientRequest.Session session) {
        writeSigned(out, session.clientId());
        writePositive(out, session.sequence());
        writePositive(out, session.lowWatermark());
    }
}
