package io.tandem.sim;

import io.tandem.engine.Committed;
import io.tandem.statemachine.StateMachine;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * The execution layer of one simulated node: applies committed entries to the node's state
 * machine in index order and deduplicates retried commands by client session (the exactly-once
 * table is part of the state, so it travels in snapshots). Volatile: a restart rebuilds it from the
 * latest durable snapshot, or empty.
 */
final class SimExecution {
    private record SessionRecord(long sequence, byte[] result) {}

    private final StateMachine machine = new KvRegisterMachine();
    private final TreeMap<Long, SessionRecord> sessions = new TreeMap<>();
    private long applied;

    long applied() {
        return applied;
    }

    /**
     * Applies {@code entry}, which must be the next index. Returns the client's result, or null for a
     * no-op or a stale duplicate whose client has moved on.
     */
    byte[] apply(Committed entry) {
        if (entry.index() != applied + 1) throw new IllegalStateException("apply " + entry.index() + " after " + applied);
        applied = entry.index();
        if (entry.isNoop()) return null;
        if (entry.session().isNone()) return machine.apply(entry.index(), entry.command());
        SessionRecord previous = sessions.get(entry.session().clientId());
        if (previous != null && entry.session().sequence() <= previous.sequence()) {
            return entry.session().sequence() == previous.sequence() ? previous.result() : null;
        }
        byte[] result = machine.apply(entry.index(), entry.command());
        sessions.put(entry.session().clientId(), new SessionRecord(entry.session().sequence(), result));
        return result;
    }

    byte[] query(byte[] query) {
        return machine.query(query);
    }

    byte[] snapshot() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(sessions.size());
            for (Map.Entry<Long, SessionRecord> e : sessions.entrySet()) {
                out.writeLong(e.getKey());
                out.writeLong(e.getValue().sequence());
                out.writeInt(e.getValue().result().length);
                out.write(e.getValue().result());
            }
            machine.snapshot(out);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void restore(byte[] data, long lastIncludedIndex) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
            sessions.clear();
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                long client = in.readLong();
                long sequence = in.readLong();
                byte[] result = in.readNBytes(in.readInt());
                sessions.put(client, new SessionRecord(sequence, result));
            }
            machine.restore(in);
            applied = lastIncludedIndex;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
