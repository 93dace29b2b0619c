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
    /** Format 1: ballots without a view (before pilot election), read as the first view of their log. */
    private static final byte FORMAT_V1 = 1;
    private static final byte FORMAT = 2;
    /** A {@link ViewState} record: a log's promised and established view. */
    private static final byte VIEW_FORMAT = 3;
    /** A {@link Reservation} record: the own slots a pilot may send phase messages for before its vote on them is durable. */
    private static final byte RESERVATION_FORMAT = 4;
    /**
     * Format 2 without the batch ({@link SameBatch}): the slot's batch is the one of the slot's previous
     * record. A commit, and the Accept of a pilot's slow path, carry the batch the replica voted for
     * already; writing it again made every command cost four copies of its bytes per member per run
     * (vote and commit in each log), about 580 bytes against MultiPaxos' 120, and a member's fsyncs
     * took about twice as long as MultiPaxos' (0.69 against 0.39 ms median) at a third of the commands.
     */
    private static final byte SAME_BATCH_FORMAT = 5;

    private SlotRecord() {}

    static byte[] encode(Slot s) {
        return encode(s, false);
    }

    /** The slot's state without its batch, which is the batch of the slot's previous record (see {@link #SAME_BATCH_FORMAT}). */
    static byte[] encodeSameBatch(Slot s) {
        if (s.cmds == null) throw new IllegalArgumentException("slot " + s + " has no batch to refer to");
        return encode(s, true);
    }

    private static byte[] encode(Slot s, boolean sameBatch) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + (s.cmds == null || sameBatch ? 0 : Command.bytes(s.cmds)));
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(sameBatch ? SAME_BATCH_FORMAT : FORMAT);
            out.writeByte(s.log);
            out.writeLong(s.index);
            out.writeByte(s.status.ordinal());
            writeBallot(out, s.promised);
            writeBallot(out, s.accepted);
            out.writeLong(s.dep);
            out.writeLong(s.vouchedDep);
            out.writeInt(s.depView);
            if (!sameBatch) writeBatch(out, s.cmds);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A log's view state (§3.10), appended whenever it changes; replay keeps the highest. */
    record ViewState(int log, int promised, int established, long startSlot) {}

    static byte[] encodeView(ViewState v) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(24);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(VIEW_FORMAT);
            out.writeByte(v.log());
            out.writeInt(v.promised());
            out.writeInt(v.established());
            out.writeLong(v.startSlot());
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The pilot of {@code log} may send FastAccepts for its slots up to {@code through} before its own
     * vote on them is durable (Raft's leader does the same with its entries). A restart replays it: the
     * pilot never proposes at those slots again, and it treats every one of them that it holds no vote
     * for as a vote it may have lost ({@link Slot#voteLost}).
     */
    record Reservation(int log, long through) {}

    static byte[] encodeReservation(Reservation r) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(10);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(RESERVATION_FORMAT);
            out.writeByte(r.log());
            out.writeLong(r.through());
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A slot's state whose batch is the one of the slot's previous record ({@link Slot#cmds} is null here; replay fills it in). */
    record SameBatch(Slot slot) {}

    /**
     * Decodes a record: a {@link Slot}, a {@link SameBatch}, a {@link ViewState} or a {@link Reservation};
     * throws IllegalArgumentException on a malformed record.
     */
    static Object decodeAny(byte[] record) {
        if (record.length > 0 && record[0] == RESERVATION_FORMAT) {
            if (record.length != 10) throw new IllegalArgumentException("reservation record of " + record.length + " bytes");
            int log = record[1];
            if (log != 0 && log != 1) throw new IllegalArgumentException("reservation record of log " + log);
            long through = java.nio.ByteBuffer.wrap(record, 2, 8).getLong();
            if (through < 0) throw new IllegalArgumentException("reservation record through slot " + through);
            return new Reservation(log, through);
        }
        if (record.length > 0 && record[0] == VIEW_FORMAT) {
            try {
                DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(record));
                in.readByte();
                int log = in.readByte();
                if (log != 0 && log != 1) throw new IllegalArgumentException("view record of log " + log);
                ViewState v = new ViewState(log, in.readInt(), in.readInt(), in.readLong());
                if (v.promised() < 0 || v.established() < 0 || v.established() > v.promised() || v.startSlot() < 0) {
                    throw new IllegalArgumentException("view record " + v);
                }
                return v;
            } catch (IOException e) {
                throw new IllegalArgumentException("truncated view record", e);
            }
        }
        if (record.length > 0 && record[0] == SAME_BATCH_FORMAT) return new SameBatch(decode(record));
        return decode(record);
    }

    /** Decodes a slot record into a fresh slot; throws IllegalArgumentException on a malformed record. */
    static Slot decode(byte[] record) {
        try {
            DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(record));
            int format = in.readByte();
            if (format != FORMAT && format != FORMAT_V1 && format != SAME_BATCH_FORMAT) throw new IllegalArgumentException("unknown slot record format " + format);
            int log = in.readByte();
            if (log != 0 && log != 1) throw new IllegalArgumentException("slot record of log " + log);
            Slot s = new Slot(log, in.readLong());
            int status = in.readByte();
            if (status < 0 || status >= Status.values().length) throw new IllegalArgumentException("slot record status " + status);
            s.status = Status.values()[status];
            if (format == FORMAT_V1) {
                s.promised = v1Ballot(log, in.readInt(), in.readInt());
                s.accepted = v1Ballot(log, in.readInt(), in.readInt());
            } else {
                s.promised = readBallot(in);
                s.accepted = readBallot(in);
            }
            s.dep = in.readLong();
            s.vouchedDep = in.readLong();
            if (format != FORMAT_V1) s.depView = in.readInt();
            if (format == SAME_BATCH_FORMAT) {
                if (in.available() != 0) throw new IllegalArgumentException("same-batch record with " + in.available() + " bytes too many");
                return s;
            }
            s.cmds = readBatch(in);
            return s;
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated slot record", e);
        }
    }

    private static void writeBallot(DataOutputStream out, Ballot b) throws IOException {
        out.writeInt(b.view());
        out.writeInt(b.round());
        out.writeInt(b.node());
    }

    private static Ballot readBallot(DataInputStream in) throws IOException {
        return new Ballot(in.readInt(), in.readInt(), in.readInt());
    }

    /** Before views, every ballot of log L belonged to its first view (view L). */
    private static Ballot v1Ballot(int log, int round, int node) {
        return round < 0 ? Ballot.NONE : new Ballot(log, round, node);
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
