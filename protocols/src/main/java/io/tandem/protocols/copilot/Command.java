package io.tandem.protocols.copilot;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One client request inside a pilot's batch (copilot.md §3.3). A batch is a {@code List<Command>}; the
 * empty batch is the no-op a recovery commits when nothing can have been chosen.
 *
 * @param origin    the member that received the request: it answers the client (a write completes on
 *                  every member holding a request of that session when it first executes; a read is
 *                  served only on its origin)
 * @param requestId the request id on {@code origin}
 * @param session   dedup key of a write (copilot.md §3.8: never the content); {@link ClientRequest.Session#NONE} for reads
 * @param payload   the state machine command or query
 * @param read      a linearizable read ordered through the logs: changes nothing, served where it executes on its origin
 */
public record Command(NodeId origin, long requestId, ClientRequest.Session session, byte[] payload, boolean read) {
    public Command {
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(payload, "payload");
    }

    /** Approximate wire size, for the in-flight byte windows. */
    static int bytes(List<Command> batch) {
        int n = 0;
        for (Command c : batch) n += c.payload.length + 40;
        return n;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Command c && requestId == c.requestId && read == c.read && origin.equals(c.origin) && session.equals(c.session)
                && Arrays.equals(payload, c.payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(origin, requestId, session, Arrays.hashCode(payload), read);
    }

    @Override
    public String toString() {
        return (read ? "Read[" : "Command[") + origin + "#" + requestId + (session.isNone() ? "" : " s" + session.clientId() + "/" + session.sequence()) + "]";
    }
}
