package io.tandem.engine;

import java.util.Objects;

/**
 * A request from a client of this node, handed to the engine on its loop.
 *
 * @param requestId unique on this node; the engine passes it back through
 *                  {@link EngineContext#deliver}, {@link EngineContext#serveRead} or
 *                  {@link EngineContext#reject} and tags the protocol messages it causes with it
 * @param kind      a command that changes state (replicated through the log) or a read
 * @param session   the client session, for exactly-once execution of retried commands
 * @param payload   the opaque command or query bytes of the state machine
 * @param readPolicy for reads, how linearizable the answer must be; null for commands
 */
public record ClientRequest(long requestId, Kind kind, Session session, byte[] payload, ReadPolicy readPolicy) {
    public enum Kind { COMMAND, READ }

    /**
     * A client session: a retried command carries the same (clientId, sequence) and the execution
     * layer applies it at most once. A client may keep several commands in flight on one session;
     * {@code lowWatermark} is its promise never to send a sequence below it again (it has the
     * answers of all of them), which lets every replica forget those results. {@link #NONE} opts out
     * of deduplication.
     *
     * @param clientId     unique per client; 0 only for {@link #NONE}
     * @param sequence     starts at 1 and names one command of the client
     * @param lowWatermark every sequence below it is answered or abandoned; at most {@code sequence}
     */
    public record Session(long clientId, long sequence, long lowWatermark) {
        public static final Session NONE = new Session(0, 0, 0);

        public Session {
            check(clientId, sequence, lowWatermark);
        }

        /** The rules of a session's numbers, for holders of them that do not build a session ({@link Committed}). */
        public static void check(long clientId, long sequence, long lowWatermark) {
            if (clientId == 0 && (sequence != 0 || lowWatermark != 0)) throw new IllegalArgumentException("client id 0 is reserved for Session.NONE");
            if (clientId != 0 && sequence < 1) throw new IllegalArgumentException("session sequence numbers start at 1, was " + sequence);
            if (lowWatermark < 0 || lowWatermark > sequence) {
                throw new IllegalArgumentException("low watermark " + lowWatermark + " must be in [0, sequence " + sequence + "]");
            }
        }

        /** A client with one command in flight at a time: everything before {@code sequence} is answered. */
        public Session(long clientId, long sequence) {
            this(clientId, sequence, sequence);
        }

        public boolean isNone() {
            return clientId == 0;
        }
    }

    public ClientRequest {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(payload, "payload");
        if (kind == Kind.READ) Objects.requireNonNull(readPolicy, "a read needs a read policy");
        if (requestId == RequestIds.BACKGROUND) throw new IllegalArgumentException("request id 0 is reserved for background traffic");
    }

    public static ClientRequest command(long requestId, Session session, byte[] payload) {
        return new ClientRequest(requestId, Kind.COMMAND, session, payload, null);
    }

    public static ClientRequest read(long requestId, byte[] payload, ReadPolicy policy) {
        return new ClientRequest(requestId, Kind.READ, Session.NONE, payload, policy);
    }
}
