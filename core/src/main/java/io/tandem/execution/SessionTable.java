package io.tandem.execution;

import io.tandem.engine.ClientRequest.Session;
import io.tandem.statemachine.CommandResult;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * Exactly-once execution of client commands (copilot.md §3.8): per client, a low watermark (the
 * {@code floor}: no sequence at or below it will ever be applied again) plus the set of executed
 * sequences above it with their results. A client may keep several commands in flight on one
 * session and retry any of them; a retry of an executed command gets the cached result and is not
 * applied again, whatever order the copies arrive in.
 *
 * <p>The floor moves for two reasons, both deterministic functions of the applied commands, so that
 * every replica keeps the same table: the client declares in each command that it will never send a
 * sequence below {@link Session#lowWatermark()} again (it has its answers), and a session that keeps
 * more than {@code maxPerSession} results forgets its oldest one. Sessions are evicted idle-longest
 * first beyond {@code maxSessions}. Part of every snapshot, so deduplication survives compaction and
 * restarts. Not thread-safe: one executor owns it.
 */
public final class SessionTable {
    /** What to do with a command of a session. */
    public sealed interface Decision {
        /** Never executed: apply it, then {@link #record} its result. */
        record Apply() implements Decision {}

        /** Already executed: answer with the cached result, do not apply. */
        record Duplicate(byte[] cachedResult) implements Decision {}

        /**
         * At or below the session's floor: the client said it will not ask for it again, or its result
         * was forgotten. It is never applied (it may have been, once, long ago).
         */
        record Stale(long floor) implements Decision {}
    }

    public static final Decision APPLY = new Decision.Apply();
    private static final int FORMAT = 2;

    /**
     * One client's floor and the results it may still ask for. Most clients keep one command in
     * flight (their watermark is the sequence itself), so the only result is held inline and the
     * sorted map exists only while a client has several results above its floor: the table is on
     * every replica's execution path for every command.
     */
    private static final class ClientSession {
        final long clientId;
        /** Neighbours in the table's use order (see {@link #eldest}). */
        ClientSession older;
        ClientSession newer;
        long floor;
        ClientSession(long clientId) {
            this.clientId = clientId;
        }

        /** The only remembered sequence while {@code more} is null; 0 when none. */
        long soloSequence;
        CommandResult soloResult;
        /** Every remembered result, in sequence order, once there are two or more; else null. */
        TreeMap<Long, CommandResult> more;

        CommandResult get(long sequence) {
            if (more != null) return more.get(sequence);
            return sequence == soloSequence ? soloResult : null;
        }

        void put(long sequence, CommandResult result) {
            if (more == null && (soloSequence == 0 || soloSequence == sequence)) {
                soloSequence = sequence;
                soloResult = result;
                return;
            }
            if (more == null) {
                more = new TreeMap<>();
                more.put(soloSequence, soloResult);
                soloSequence = 0;
                soloResult = null;
            }
            more.put(sequence, result);
        }

        int size() {
            return more != null ? more.size() : soloSequence == 0 ? 0 : 1;
        }

        long oldest() {
            return more != null ? more.firstKey() : soloSequence;
        }

        void raiseFloor(long to) {
            if (to <= floor) return;
            floor = to;
            if (more == null) {
                if (soloSequence != 0 && soloSequence <= to) {
                    soloSequence = 0;
                    soloResult = null;
                }
                return;
            }
            while (!more.isEmpty() && more.firstKey() <= to) more.pollFirstEntry();
            if (more.size() <= 1) { // back to the inline form
                var last = more.pollFirstEntry();
                more = null;
                if (last != null) {
                    soloSequence = last.getKey();
                    soloResult = last.getValue();
                }
            }
        }

        /** Remembered results in sequence order. */
        Iterable<Map.Entry<Long, CommandResult>> results() {
            if (more != null) return more.entrySet();
            return soloSequence == 0 ? java.util.List.of() : java.util.List.of(Map.entry(soloSequence, soloResult));
        }
    }

    /**
     * The sessions by client id, and a list through them in the order of the last command applied in
     * each session (moved to the young end on every apply), so the eldest is the session idle longest.
     * Every replica applies the same commands in the same order, so every replica evicts the same
     * session. The list is threaded through the sessions themselves (issue 25): a LinkedHashMap moved
     * a session to the end by a remove and a put, a new map entry for every command on every replica.
     */
    private final LongKeyMap<ClientSession> sessions = new LongKeyMap<>(); // issue 25: no boxed client id per lookup
    private ClientSession eldest;
    private ClientSession youngest;
    private final int maxSessions;
    private final int maxPerSession;

    public SessionTable(int maxSessions, int maxPerSession) {
        if (maxSessions < 1) throw new IllegalArgumentException("maxSessions must be >= 1, was " + maxSessions);
        if (maxPerSession < 1) throw new IllegalArgumentException("maxPerSession must be >= 1, was " + maxPerSession);
        this.maxSessions = maxSessions;
        this.maxPerSession = maxPerSession;
    }

    /**
     * Decides a command of {@code session} (not {@link Session#NONE}) and takes note of the client's
     * declared low watermark, which only ever moves up.
     */
    public Decision decide(Session session) {
        return decide(session.clientId(), session.sequence(), session.lowWatermark());
    }

    /** {@link #decide(Session)} of a session given by its numbers (a delivered command carries them, not a session object). */
    public Decision decide(long clientId, long sequence, long lowWatermark) {
        ClientSession c = sessions.get(clientId);
        if (c == null) return APPLY;
        c.raiseFloor(lowWatermark - 1);
        if (sequence <= c.floor) return new Decision.Stale(c.floor);
        CommandResult cached = c.get(sequence);
        return cached != null ? new Decision.Duplicate(cached.encode()) : APPLY;
    }

    /**
     * The cached result of the command of {@code session} if it executed here and its result is still
     * remembered, else null. Unlike {@link #decide} it changes nothing (not even the floor): it answers
     * a request that was never ordered at this point, so it must leave the table every replica keeps
     * alike as it is.
     */
    public byte[] cachedResult(Session session) {
        if (session.isNone()) return null;
        ClientSession c = sessions.get(session.clientId());
        if (c == null || session.sequence() <= c.floor) return null;
        CommandResult cached = c.get(session.sequence());
        return cached == null ? null : cached.encode();
    }

    /** Records the result of a command that {@link #decide} said to apply. */
    public void record(Session session, byte[] result) {
        record(session, CommandResult.of(result));
    }

    /**
     * Records the result of a command that {@link #decide} said to apply, unencoded: it is encoded only if
     * a retry asks for it ({@link #decide}, {@link #cachedResult}) or a snapshot is written
     * ({@link #writeTo}), which gives the same bytes as encoding it now ({@link CommandResult}'s
     * contract), so every replica's table and snapshot stay alike. Most results are never asked for.
     */
    public void record(Session session, CommandResult result) {
        record(session.clientId(), session.sequence(), session.lowWatermark(), result);
    }

    /** {@link #record(Session, CommandResult)} of a session given by its numbers. */
    public void record(long clientId, long sequence, long lowWatermark, CommandResult result) {
        ClientSession c = sessions.get(clientId);
        if (c == null) add(c = new ClientSession(clientId));
        else moveToYoungest(c); // most recently used
        c.raiseFloor(lowWatermark - 1);
        c.put(sequence, result == null ? CommandResult.EMPTY : result);
        // A client that never declares a watermark (or never fills a gap) must not grow the table
        // without bound: forget the oldest result and raise the floor over it.
        while (c.size() > maxPerSession) c.raiseFloor(c.oldest());
        // Evict the session idle longest, not the lowest id: client ids are random, so evicting by id
        // could drop a session whose retry is still in flight while long-dead sessions stay.
        while (sessions.size() > maxSessions) remove(eldest);
    }

    /** Adds a session not in the table as the youngest (a session of the same client is replaced). */
    private void add(ClientSession c) {
        ClientSession replaced = sessions.put(c.clientId, c);
        if (replaced != null) unlink(replaced);
        c.older = youngest;
        c.newer = null;
        if (youngest != null) youngest.newer = c;
        else eldest = c;
        youngest = c;
    }

    private void moveToYoungest(ClientSession c) {
        if (c == youngest) return;
        unlink(c);
        c.older = youngest;
        youngest.newer = c;
        youngest = c;
    }

    private void remove(ClientSession c) {
        sessions.remove(c.clientId);
        unlink(c);
    }

    private void unlink(ClientSession c) {
        if (c.older != null) c.older.newer = c.newer;
        else eldest = c.newer;
        if (c.newer != null) c.newer.older = c.older;
        else youngest = c.older;
        c.older = null;
        c.newer = null;
    }

    private void clear() {
        sessions.clear();
        eldest = null;
        youngest = null;
    }

    public int size() {
        return sessions.size();
    }

    /** Executed sequences remembered for {@code clientId} above its floor (tests, diagnostics). */
    public int remembered(long clientId) {
        ClientSession c = sessions.get(clientId);
        return c == null ? 0 : c.size();
    }

    public void writeTo(DataOutputStream out) throws IOException {
        out.writeInt(FORMAT);
        out.writeInt(sessions.size());
        for (ClientSession c = eldest; c != null; c = c.newer) {
            out.writeLong(c.clientId);
            out.writeLong(c.floor);
            out.writeInt(c.size());
            for (Map.Entry<Long, CommandResult> x : c.results()) {
                byte[] result = x.getValue().encode();
                out.writeLong(x.getKey());
                out.writeInt(result.length);
                out.write(result);
            }
        }
    }

    /** Replaces the table with one written by {@link #writeTo}; refuses corrupt input with an {@link IOException}. */
    public void readFrom(DataInputStream in) throws IOException {
        clear();
        int format = in.readInt();
        readSessions(in, format);
    }

    /**
     * Reads the table of snapshot format 1 (before watermarks: the last sequence and result per
     * client, no format word), so that data directories of earlier builds still restore.
     */
    public void readFormat1From(DataInputStream in) throws IOException {
        clear();
        int n = in.readInt();
        if (n < 0) throw new IOException("corrupt session table: negative size " + n);
        for (int i = 0; i < n; i++) {
            long client = in.readLong();
            long sequence = in.readLong();
            int len = in.readInt();
            if (len < -1) throw new IOException("corrupt session table: bad result length " + len);
            ClientSession c = new ClientSession(client);
            c.floor = sequence - 1;
            c.put(sequence, len < 0 ? CommandResult.EMPTY : CommandResult.of(in.readNBytes(len)));
            add(c);
        }
    }

    private void readSessions(DataInputStream in, int format) throws IOException {
        if (format != FORMAT) throw new IOException("unknown session table format " + format + " (this build reads " + FORMAT + ")");
        int n = in.readInt();
        if (n < 0) throw new IOException("corrupt session table: negative size " + n);
        for (int i = 0; i < n; i++) {
            long client = in.readLong();
            ClientSession c = new ClientSession(client);
            c.floor = in.readLong();
            int results = in.readInt();
            if (results < 0) throw new IOException("corrupt session table: negative result count " + results + " for client " + client);
            for (int r = 0; r < results; r++) {
                long sequence = in.readLong();
                int len = in.readInt();
                if (len < 0) throw new IOException("corrupt session table: bad result length " + len);
                byte[] result = in.readNBytes(len);
                if (result.length != len) throw new IOException("corrupt session table: truncated result");
                if (sequence <= c.floor) throw new IOException("corrupt session table: result " + sequence + " of client " + client + " at or below its floor " + c.floor);
                c.put(sequence, CommandResult.of(result));
            }
            add(c);
        }
        while (sessions.size() > maxSessions) remove(eldest);
    }
}
