package io.tandem.protocols.raft;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import io.tandem.engine.RequestIds;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a Raft log entry carries, in the engine's own binary encoding (the log stores opaque
 * bytes). Every kind names the node and request that caused it, so execution completes the right
 * client future on the origin node ({@link Committed#origin()}).
 */
sealed interface EntryPayload {
    byte COMMAND = 1;
    byte NOOP = 2;
    byte CONFIG = 3;
    /** A command whose session carries the client's low watermark (format 2 of COMMAND). */
    byte COMMAND_WITH_WATERMARK = 4;

    /** A client command for the state machine. */
    record Command(NodeId origin, long requestId, ClientRequest.Session session, byte[] command) implements EntryPayload {}

    /**
     * The entry a new leader appends to commit the entries of earlier terms (Raft §5.4.2, §8). After
     * a leadership transfer it carries the transfer request, which is answered when it commits.
     */
    record Noop(NodeId origin, long requestId) implements EntryPayload {}

    /** A membership change, effective on every node as soon as it is appended (Raft thesis §4.1). */
    record ConfigChange(NodeId origin, long requestId, Configuration configuration) implements EntryPayload {}

    NodeId origin();

    long requestId();

    static byte[] encode(EntryPayload payload) {
        if (payload instanceof Command c) return encodeCommand(c);
        var bytes = new ByteArrayOutputStream(payload instanceof Command c ? c.command().length + 48 : 64);
        try (var out = new DataOutputStream(bytes)) {
            switch (payload) {
                case Command c -> {
                    out.writeByte(COMMAND_WITH_WATERMARK);
                    writeOrigin(out, c.origin(), c.requestId());
                    out.writeLong(c.session().clientId());
                    out.writeLong(c.session().sequence());
                    out.writeLong(c.session().lowWatermark());
                    out.write(c.command());
                }
                case Noop n -> {
                    out.writeByte(NOOP);
                    writeOrigin(out, n.origin(), n.requestId());
                }
                case ConfigChange cc -> {
                    out.writeByte(CONFIG);
                    writeOrigin(out, cc.origin(), cc.requestId());
                    writeNodes(out, cc.configuration().voters());
                    writeNodes(out, cc.configuration().learners());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static EntryPayload decode(byte[] data) {
        if (data.length > 0 && data[0] == COMMAND_WITH_WATERMARK) {
            Command c = decodeCommand(data);
            if (c != null) return c;
        }
        try (var in = new DataInputStream(new ByteArrayInputStream(data))) {
            byte kind = in.readByte();
            NodeId origin = readOrigin(in);
            long requestId = in.readLong();
            return switch (kind) {
                case COMMAND, COMMAND_WITH_WATERMARK -> {
                    var session = kind == COMMAND
                            ? new ClientRequest.Session(in.readLong(), in.readLong()) // written before sessions had watermarks
                            : new ClientRequest.Session(in.readLong(), in.readLong(), in.readLong());
                    // Exactly the bytes left: readAllBytes() on a DataInputStream falls back to InputStream's
                    // generic copy loop, which allocates a 16 KiB buffer per call, for every committed entry.
                    yield new Command(origin, requestId, session, in.readNBytes(in.available()));
                }
                case NOOP -> new Noop(origin, requestId);
                case CONFIG -> new ConfigChange(origin, requestId, new Configuration(readNodes(in), readNodes(in)));
                default -> throw new IllegalStateException("unknown Raft entry kind " + kind + ": the log holds data this build cannot read");
            };
        } catch (IOException e) {
            throw new IllegalStateException("corrupt Raft entry payload of " + data.length + " bytes", e);
        }
    }

    /**
     * A command, the one kind every write appends (and every replica decodes to execute), written
     * straight into an array of its exact size: the same bytes {@link DataOutputStream} writes
     * ({@code writeUTF} of an ASCII node id is its length as u16 and its bytes; longs big-endian),
     * without the stream's buffer and copy.
     */
    private static byte[] encodeCommand(Command c) {
        return encodeCommand(c.origin(), c.requestId(), c.session(), c.command());
    }

    /** {@link #encodeCommand(Command)} of a command's fields, for a leader that appends a request without building a {@link Command}. */
    static byte[] encodeCommand(NodeId originId, long requestId, ClientRequest.Session session, byte[] command) {
        String origin = originId == null ? "" : originId.value(); // node ids are ASCII
        int n = origin.length();
        byte[] out = new byte[1 + 2 + n + 8 + 24 + command.length];
        out[0] = COMMAND_WITH_WATERMARK;
        out[1] = (byte) (n >>> 8);
        out[2] = (byte) n;
        for (int i = 0; i < n; i++) out[3 + i] = (byte) origin.charAt(i);
        int at = 3 + n;
        at = putLong(out, at, requestId);
        at = putLong(out, at, session.clientId());
        at = putLong(out, at, session.sequence());
        at = putLong(out, at, session.lowWatermark());
        System.arraycopy(command, 0, out, at, command.length);
        return out;
    }

    /** The inverse of {@link #encodeCommand}, or null if the bytes are not a well-formed command (the stream decoder then names the problem). */
    private static Command decodeCommand(byte[] data) {
        if (data.length < 3) return null;
        int n = ((data[1] & 0xff) << 8) | (data[2] & 0xff);
        int at = 3 + n;
        if (data.length < at + 32) return null;
        NodeId origin = n == 0 ? null : Origins.of(data, 3, n);
        if (origin == null && n != 0) return null;
        long requestId = getLong(data, at);
        var session = new ClientRequest.Session(getLong(data, at + 8), getLong(data, at + 16), getLong(data, at + 24));
        at += 32;
        return new Command(origin, requestId, session, java.util.Arrays.copyOfRange(data, at, data.length));
    }

    /**
     * The committed entry of a command written by {@link #encodeCommand}, with the command left inside
     * {@code data} as a range (issue 25: decoding it into a {@link Command} copied the command out of the
     * entry on every replica, once more before the state machine's own decode copies what it keeps). The
     * log never writes into an entry's bytes, and execution only reads them. Null if {@code data} is not a
     * well-formed command of that format: the caller decodes it the general way, which names the problem.
     */
    static Committed committedCommand(long index, byte[] data) {
        if (data.length < 3 || data[0] != COMMAND_WITH_WATERMARK) return null;
        int n = ((data[1] & 0xff) << 8) | (data[2] & 0xff);
        int at = 3 + n;
        if (data.length < at + 32) return null;
        NodeId origin = n == 0 ? null : Origins.of(data, 3, n);
        if (origin == null && n != 0) return null;
        long requestId = getLong(data, at);
        // The session as its numbers (issue 25: no session object per committed entry); Committed checks them.
        long clientId = getLong(data, at + 8), sequence = getLong(data, at + 16), lowWatermark = getLong(data, at + 24);
        at += 32;
        return new Committed(index, origin, requestId, clientId, sequence, lowWatermark, data, at, data.length - at);
    }

    /** The committed entry of the log's {@code data} at {@code index}: a command as a range of it, anything else decoded. */
    static Committed committed(long index, byte[] data) {
        Committed c = committedCommand(index, data);
        return c != null ? c : toCommitted(index, decode(data));
    }

    private static int putLong(byte[] out, int at, long v) {
        for (int i = 7; i >= 0; i--) out[at++] = (byte) (v >>> (8 * i));
        return at;
    }

    private static long getLong(byte[] in, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) v = (v << 8) | (in[at + i] & 0xff);
        return v;
    }

    /**
     * The origins of decoded commands: a group has a handful of members, so each name is parsed and
     * validated once, not for every committed entry on every replica (copy on write; a racing
     * addition may be lost, which only costs a parse).
     */
    final class Origins {
        private record Known(byte[] name, NodeId id) {}

        private static final int MAX = 64;
        private static volatile Known[] known = new Known[0];

        private Origins() {}

        /** The node id in {@code data[from, from+length)}, or null if it is not a valid one. */
        static NodeId of(byte[] data, int from, int length) {
            for (Known k : known) {
                if (java.util.Arrays.equals(k.name(), 0, k.name().length, data, from, from + length)) return k.id();
            }
            NodeId id;
            try {
                id = NodeId.of(new String(data, from, length, java.nio.charset.StandardCharsets.ISO_8859_1));
            } catch (IllegalArgumentException e) {
                return null;
            }
            Known[] old = known;
            if (old.length < MAX) {
                Known[] grown = java.util.Arrays.copyOf(old, old.length + 1);
                grown[old.length] = new Known(java.util.Arrays.copyOfRange(data, from, from + length), id);
                known = grown;
            }
            return id;
        }
    }

    /** True for a configuration entry, read from the first byte without decoding the rest. */
    static boolean isConfigChange(byte[] data) {
        return data.length > 0 && data[0] == CONFIG;
    }

    /** The request id of the client request that caused the entry (0 for background entries), without a full decode. */
    static long requestIdOf(byte[] data) {
        if (data.length < 3) return RequestIds.BACKGROUND;
        int nameLength = ((data[1] & 0xff) << 8) | (data[2] & 0xff);
        int at = 3 + nameLength;
        if (data.length < at + 8) return RequestIds.BACKGROUND;
        long id = 0;
        for (int i = 0; i < 8; i++) id = (id << 8) | (data[at + i] & 0xff);
        return id;
    }

    /** The decided entry as execution sees it; configuration changes and no-ops carry no command. */
    static Committed toCommitted(long index, EntryPayload payload) {
        return switch (payload) {
            case Command c -> new Committed(index, c.origin(), c.requestId(), c.session(), c.command());
            case Noop n -> n.origin() == null ? Committed.noop(index) : new Committed(index, n.origin(), n.requestId(), ClientRequest.Session.NONE, null);
            case ConfigChange cc -> cc.origin() == null ? Committed.noop(index) : new Committed(index, cc.origin(), cc.requestId(), ClientRequest.Session.NONE, null);
        };
    }

    private static void writeOrigin(DataOutputStream out, NodeId origin, long requestId) throws IOException {
        out.writeUTF(origin == null ? "" : origin.value()); // node ids are ASCII, so the UTF length is the byte length
        out.writeLong(requestId);
    }

    private static NodeId readOrigin(DataInputStream in) throws IOException {
        String name = in.readUTF();
        return name.isEmpty() ? null : NodeId.of(name);
    }

    private static void writeNodes(DataOutputStream out, List<NodeId> nodes) throws IOException {
        out.writeShort(nodes.size());
        for (NodeId n : nodes) out.writeUTF(n.value());
    }

    private static List<NodeId> readNodes(DataInputStream in) throws IOException {
        int n = in.readUnsignedShort();
        List<NodeId> nodes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) nodes.add(NodeId.of(in.readUTF()));
        return nodes;
    }
}
