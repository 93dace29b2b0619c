package io.tandem.engine;

import java.util.Objects;

/**
 * A command whose position in the order is decided, handed to execution with
 * {@link EngineContext#deliver}. Execution applies entries strictly in {@code index} order; an
 * index may carry no command ({@link #noop}) when a protocol fills a hole.
 *
 * @param index     position in the total order, starting at 1, without gaps
 * @param origin    the node whose client submitted it (that node completes the client's future)
 * @param requestId the request id on {@code origin}
 * @param session   the client session, for exactly-once execution
 * @param command   the state machine command, or null for a no-op
 */
public record Committed(long index, NodeId origin, long requestId, ClientRequest.Session session, byte[] command) {
    public Committed {
        if (index < 1) throw new IllegalArgumentException("index starts at 1, was " + index);
        Objects.requireNonNull(session, "session");
    }

    public static Committed noop(long index) {
        return new Committed(index, null, RequestIds.BACKGROUND, ClientRequest.Session.NONE, null);
    }

    public boolean isNoop() {
        return command == null;
    }
}
