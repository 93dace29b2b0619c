package io.tandem.protocols.copilot;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The write-ahead record of one slot's state: every change a replica must not forget (a promise, a
 * fast-accept, an accept, a commit) appends the slot's whole state to the engine's durable log, and a
 * restart replays the log, the last record of a slot winning. Replies that depend on a change wait
 * until its record is durable (§5.1 item 19).
 */
final class SlotRecord {
    private static final byte FORMAT = 1;

    private SlotRecord() {}

    static byte[] encode(Slot s) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + (s.cmds == null ? 0 : Command.bytes(s.cmds)));
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(FORMAT);
            out.writeByte(s.log);
            out.writeLong(s.index);
            out.writeByte(s.status.ordinal());
            out.writeInt(s.promised.round());
            out.writeInt(s.promised.node());
            out.writeInt(s.accepted.round());
            out.writeInt(s.accepted.node());
            out.writeLong(s.dep);
            out.writeLong(s.vouchedDep);
            writeBatch(out, s.cmds);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Decodes a record into a fresh slot; throws IllegalArgumentException on a malformed record. */
    static Slot decode(byte[] record) {
        try {
            DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(record));
            if (in.readByte() != FORMAT) throw new IllegalArgumentException("unknown slot record format");
            int log = in.readByte();
            if (log != 0 && log != 1) throw new IllegalArgumentException("slot record of log " + log);
            Slot s = new Slot(log, in.readLong());
            int status = in.readByte();
            if (status < 0 || status >= Status.values().length) throw new IllegalArgumentException("slot record status " + status);
            s.status = Status.values()[status];
            s.promised = new Ballot(in.readInt(), in.readInt());
            s.accepted = new Ballot(in.readInt(), in.readInt());
            s.dep = in.readLong();
            s.vouchedDep = in.readLong();
            s.cmds = readBatch(in);
            return s;
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated slot record", e);
        }
    }

    private static void writeBatch(DataOutputStream out, List<Command> cmds) throws IOException {
        if (cmds == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(cmds.size());
        for (Command c : cmds) {
            byte[] origin = c.origin().value().getBytes(StandardCharsets.US_ASCII);
            out.writeShort(origin.length);
            out.write(origin);
            out.writeLong(c.requestId());
            out.writeLong(c.session().clientId());
            out.writeLong(c.session().sequence());
            out.writeLong(c.session().lowWatermark());
            out.writeBoolean(c.read());
            out.writeInt(c.payload().length);
            out.write(c.payload());
        }
    }

    private static List<Command> readBatch(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n == -1) return null;
        if (n < 0 || n > in.available()) throw new IllegalArgumentException("batch of " + n + " commands exceeds the record");
        List<Command> cmds = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int len = in.readShort();
            if (len <= 0 || len > in.available()) throw new IllegalArgumentException("node name length " + len);
            byte[] origin = in.readNBytes(len);
            long requestId = in.readLong();
            long client = in.readLong();
            long seq = in.readLong();
            long low = in.readLong();
            boolean read = in.readBoolean();
            int plen = in.readInt();
            if (plen < 0 || plen > in.available()) throw new IllegalArgumentException("payload length " + plen);
            byte[] payload = in.readNBytes(plen);
            ClientRequest.Session session = client == 0 ? ClientRequest.Session.NONE : new ClientRequest.Session(client, seq, low);
            cmds.add(new Command(NodeId.of(new String(origin, StandardCharsets.US_ASCII)), requestId, session, payload, read));
        }
        return List.copyOf(cmds);
    }

    /** FNV-1a digest of a committed value (batch and dependency), for the simulator's agreement invariant. */
    static long digest(List<Command> cmds, long dep) {
        Slot s = new Slot(0, 0);
        s.cmds = cmds;
        s.dep = dep;
        long h = 0xcbf29ce484222325L;
        for (byte b : encode(s)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }
}
