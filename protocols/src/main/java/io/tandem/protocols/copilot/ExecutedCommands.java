package io.tandem.protocols.copilot;

import io.tandem.engine.ClientRequest.Session;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which client commands the combined order delivered (§3.8), and in which logs each was ordered.
 *
 * <p>A command is delivered to execution when it runs for the first time, or when an earlier copy of
 * it stands in the same log: that is a client's retry, which execution's session table answers from
 * its cache. The other pilot's copy of a command that already ran is skipped, so nothing is delivered
 * for it at all. The rule reads only the delivered prefix and the log's own earlier slots, so every
 * replica decides alike even where null-dependency elimination ran an entry ahead of such copies.
 *
 * <p>Per client, a floor (the client promised never to send a sequence at or below it again) and the
 * sequences delivered above it, each with the logs that ordered it; all of it changes only when a
 * command runs, so it is the same at every replica at the same delivered position, and it is part of
 * a snapshot ({@link #write}): a replica that installs a snapshot must skip exactly the copies the
 * others skip. A command at or below its client's floor is never delivered again (its client said it
 * will not ask for it, so nobody waits for the answer); that is what keeps the table bounded: what
 * the floor passes is forgotten, logs included.
 */
final class ExecutedCommands {
    /** Sequences above the floor kept per client before the floor is raised over the oldest. */
    static final int MAX_PER_CLIENT = 4096;

    record SessionKey(long client, long sequence) {
        static SessionKey of(Session s) {
            return new SessionKey(s.clientId(), s.sequence());
        }
    }

    private static final class Client {
        long floor;
        /** Sequence delivered above the floor -> bit mask of the logs that ordered it (bit 0: log 0, bit 1: log 1). */
        final TreeMap<Long, Integer> above = new TreeMap<>();
    }

    private final Map<Long, Client> clients = new HashMap<>();

    /** The command of {@code session} was delivered before (or can never run again: it is at or below its client's floor). */
    boolean executed(Session session) {
        if (session.isNone()) return false;
        Client c = clients.get(session.clientId());
        return c != null && (session.sequence() <= c.floor || c.above.containsKey(session.sequence()));
    }

    /** The command of {@code session} was delivered before and is above its client's floor (so its result is still cached by execution). */
    boolean delivered(Session session) {
        if (session.isNone()) return false;
        Client c = clients.get(session.clientId());
        return c != null && session.sequence() > c.floor && c.above.containsKey(session.sequence());
    }

    /** An earlier slot of {@code log} (or an earlier command of the running batch) holds a copy of this session, above its client's floor. */
    boolean orderedIn(int log, Session session) {
        if (session.isNone()) return false;
        Client c = clients.get(session.clientId());
        if (c == null || session.sequence() <= c.floor) return false;
        Integer logs = c.above.get(session.sequence());
        return logs != null && (logs & (1 << log)) != 0;
    }

    /** Whether a command of {@code session} running now in {@code log} is delivered; remembers that the log ordered it. */
    boolean deliver(int log, Session session) {
        if (session.isNone()) return true;
        Client c = clients.computeIfAbsent(session.clientId(), id -> new Client());
        long seq = session.sequence();
        if (seq <= c.floor) return false; // its client will not ask again: nobody waits for it
        Integer logs = c.above.get(seq);
        boolean deliver = logs == null || (logs & (1 << log)) != 0;
        c.above.put(seq, (logs == null ? 0 : logs) | (1 << log));
        if (deliver) {
            raise(c, session.lowWatermark() - 1);
            while (c.above.size() > MAX_PER_CLIENT) raise(c, c.above.firstKey());
        }
        return deliver;
    }

    private static void raise(Client c, long to) {
        if (to <= c.floor) return;
        c.floor = to;
        c.above.headMap(to, true).clear();
    }

    /** An independent copy (a snapshot's, while execution goes on). */
    ExecutedCommands copy() {
        ExecutedCommands t = new ExecutedCommands();
        for (Map.Entry<Long, Client> e : clients.entrySet()) {
            Client c = new Client();
            c.floor = e.getValue().floor;
            c.above.putAll(e.getValue().above);
            t.clients.put(e.getKey(), c);
        }
        return t;
    }

    /** Sequences remembered above the floors, all clients together (the engine's memory accounting). */
    int size() {
        int n = 0;
        for (Client c : clients.values()) n += c.above.size();
        return n;
    }

    /** Writes the whole table (a snapshot's part of it), clients in id order so equal tables give equal bytes. */
    void write(DataOutputStream out) throws IOException {
        TreeMap<Long, Client> sorted = new TreeMap<>(clients);
        out.writeInt(sorted.size());
        for (Map.Entry<Long, Client> e : sorted.entrySet()) {
            out.writeLong(e.getKey());
            out.writeLong(e.getValue().floor);
            out.writeInt(e.getValue().above.size());
            for (Map.Entry<Long, Integer> s : e.getValue().above.entrySet()) {
                out.writeLong(s.getKey());
                out.writeByte(s.getValue());
            }
        }
    }

    /** Reads a table written by {@link #write}; throws IllegalArgumentException on malformed input. */
    static ExecutedCommands read(DataInputStream in) throws IOException {
        ExecutedCommands t = new ExecutedCommands();
        int clients = in.readInt();
        if (clients < 0 || clients > in.available() / 20) throw new IllegalArgumentException("session table of " + clients + " clients exceeds the record");
        for (int i = 0; i < clients; i++) {
            long id = in.readLong();
            Client c = new Client();
            c.floor = in.readLong();
            int n = in.readInt();
            if (n < 0 || n > MAX_PER_CLIENT || n > in.available() / 9) throw new IllegalArgumentException("client " + id + " with " + n + " sequences");
            for (int k = 0; k < n; k++) {
                long seq = in.readLong();
                int logs = in.readByte();
                if (seq <= c.floor || logs < 1 || logs > 3) throw new IllegalArgumentException("client " + id + " sequence " + seq + " logs " + logs);
                c.above.put(seq, logs);
            }
            if (t.clients.put(id, c) != null) throw new IllegalArgumentException("client " + id + " twice");
        }
        return t;
    }
}
