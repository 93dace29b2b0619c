package io.tandem.protocols.copilot;

import io.tandem.engine.ClientRequest.Session;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which client commands the combined order delivered (§3.8), and which sessions each log has ordered.
 *
 * <p>A command is delivered to execution when it runs for the first time, or when an earlier copy of
 * it stands in the same log: that is a client's retry, which execution's session table answers from
 * its cache. The other pilot's copy of a command that already ran is skipped, so nothing is delivered
 * for it at all. The rule reads only the delivered prefix and the log's own earlier slots, so every
 * replica decides alike even where null-dependency elimination ran an entry ahead of such copies.
 *
 * <p>Per client, a floor (the client promised never to send a sequence at or below it again) and the
 * sequences delivered above it; both change only on delivery.
 */
final class ExecutedCommands {
    /** Sequences above the floor kept per client before the floor is raised over the oldest. */
    private static final int MAX_PER_CLIENT = 4096;

    record SessionKey(long client, long sequence) {
        static SessionKey of(Session s) {
            return new SessionKey(s.clientId(), s.sequence());
        }
    }

    private static final class Client {
        long floor;
        final TreeSet<Long> above = new TreeSet<>();
    }

    private final Map<Long, Client> clients = new HashMap<>();
    @SuppressWarnings("unchecked")
    private final Set<SessionKey>[] ordered = new Set[] {new HashSet<SessionKey>(), new HashSet<SessionKey>()};

    /** The command of {@code session} was delivered before (or can never run again: it is at or below its client's floor). */
    boolean executed(Session session) {
        if (session.isNone()) return false;
        Client c = clients.get(session.clientId());
        return c != null && (session.sequence() <= c.floor || c.above.contains(session.sequence()));
    }

    /** The command of {@code session} was delivered before and is above its client's floor (so its result is still cached by execution). */
    boolean delivered(Session session) {
        if (session.isNone()) return false;
        Client c = clients.get(session.clientId());
        return c != null && session.sequence() > c.floor && c.above.contains(session.sequence());
    }

    /** An earlier slot of {@code log} (or an earlier command of the running batch) holds a copy of this session. */
    boolean orderedIn(int log, Session session) {
        return !session.isNone() && ordered[log].contains(SessionKey.of(session));
    }

    /** Whether a command of {@code session} running now in {@code log} is delivered; remembers that the log ordered it. */
    boolean deliver(int log, Session session) {
        if (session.isNone()) return true;
        boolean deliver = !executed(session) || orderedIn(log, session);
        ordered[log].add(SessionKey.of(session));
        if (deliver) record(session);
        return deliver;
    }

    private void record(Session session) {
        Client c = clients.computeIfAbsent(session.clientId(), id -> new Client());
        raise(c, session.lowWatermark() - 1);
        if (session.sequence() > c.floor) c.above.add(session.sequence());
        while (c.above.size() > MAX_PER_CLIENT) raise(c, c.above.first());
    }

    private static void raise(Client c, long to) {
        if (to <= c.floor) return;
        c.floor = to;
        while (!c.above.isEmpty() && c.above.first() <= to) c.above.pollFirst();
    }
}
