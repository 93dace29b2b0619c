package io.tandem.runtime;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Exactly-once execution of client commands: the last sequence number applied per client and its
 * result. A retried command (same client, same sequence) gets the cached result and is not applied
 * again. Part of every snapshot, so deduplication survives compaction and restarts.
 */
final class SessionTable {
    /** What to do with a command of a session. */
    sealed interface Decision {
        record Apply() implements Decision {}

        record Duplicate(byte[] cachedResult) implements Decision {}

        record Stale(long lastApplied) implements Decision {}
    }

    static final Decision APPLY = new Decision.Apply();

    private record Entry(long sequence, byte[] result) {}

    /**
     * Insertion order is the order of the last command applied in each session (record re-inserts), so
     * the eldest entry is the session idle longest. Every replica applies the same commands in the same
     * order, so every replica evicts the same session.
     */
    private final LinkedHashMap<Long, Entry> sessions = new LinkedHashMap<>();
    private final int maxSessions;

    SessionTable(int maxSessions) {
        this.maxSessions = maxSessions;
    }

    Decision decide(long clientId, long sequence) {
        Entry e = sessions.get(clientId);
        if (e == null || sequence > e.sequence) return APPLY;
        if (sequence == e.sequence) return new Decision.Duplicate(e.result);
        return new Decision.Stale(e.sequence);
    }

    void record(long clientId, long sequence, byte[] result) {
        sessions.remove(clientId); // re-insert at the end: most recently used
        sessions.put(clientId, new Entry(sequence, result));
        // Evict the session idle longest, not the lowest id: client ids are random, so evicting by id could
        // drop a session whose retry is still in flight while long-dead sessions stay.
        while (sessions.size() > maxSessions) sessions.pollFirstEntry();
    }

    int size() {
        return sessions.size();
    }

    void writeTo(DataOutputStream out) throws IOException {
        out.writeInt(sessions.size());
        for (Map.Entry<Long, Entry> e : sessions.entrySet()) {
            out.writeLong(e.getKey());
            out.writeLong(e.getValue().sequence);
            byte[] r = e.getValue().result;
            out.writeInt(r == null ? -1 : r.length);
            if (r != null) out.write(r);
        }
    }

    void readFrom(DataInputStream in) throws IOException {
        sessions.clear();
        int n = in.readInt();
        if (n < 0) throw new IOException("corrupt session table: negative size " + n);
        for (int i = 0; i < n; i++) {
            long client = in.readLong();
            long seq = in.readLong();
            int len = in.readInt();
            if (len < -1) throw new IOException("corrupt session table: bad result length " + len);
            byte[] r = null;
            if (len >= 0) {
                r = new byte[len];
                in.readFully(r);
            }
            sessions.put(client, new Entry(seq, r));
        }
    }
}
