package io.tandem.protocols.multipaxos;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import io.tandem.engine.RequestIds;
import java.util.Arrays;
import java.util.Objects;

/**
 * What one log slot holds (spec §6.5 {@code CommandBatchOrNoop}): a client command, a read that goes
 * through the log, or a no-op that fills a hole. A slot holds one value; batching packs consecutive
 * slots into one message instead ({@link MultiPaxosMessage.Accept}), so slot {@code s} is always
 * execution index {@code s} and reads, snapshots and catch-up need no slot-to-index map.
 *
 * <p>Messages carry values through the Kryo codec; acceptors write them to their journal with
 * {@link ValueCodec}.
 */
public sealed interface Value {
    /** Fills a slot nobody proposed a command for (a hole after a leader change). */
    record Noop() implements Value {}

    /**
     * A command submitted to {@code origin}'s client API; {@code origin} completes the client's
     * future when it executes the slot, and the session makes a retried command apply once.
     */
    record Command(NodeId origin, long requestId, ClientRequest.Session session, byte[] payload) implements Value {
        public Command {
            Objects.requireNonNull(origin, "origin");
            Objects.requireNonNull(session, "session");
            Objects.requireNonNull(payload, "payload");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Command c && requestId == c.requestId && origin.equals(c.origin) && session.equals(c.session)
                    && Arrays.equals(payload, c.payload);
        }

        @Override
        public int hashCode() {
            return Objects.hash(origin, requestId, session, Arrays.hashCode(payload));
        }

        @Override
        public String toString() {
            return "Command[" + origin + "#" + requestId + ", " + payload.length + " bytes]";
        }
    }

    /**
     * A linearizable read ordered through the log (the classic way): it changes nothing, and once
     * {@code origin} executed its slot, the read is served there at that slot.
     */
    record LogRead(NodeId origin, long requestId) implements Value {
        public LogRead {
            Objects.requireNonNull(origin, "origin");
        }
    }

    Noop NOOP = new Noop();

    /** The entry execution applies for slot {@code slot}: reads and no-ops change no state. */
    default Committed toCommitted(long slot) {
        return this instanceof Command c ? new Committed(slot, c.origin(), c.requestId(), c.session(), c.payload()) : Committed.noop(slot);
    }

    /** The client request this value serves, for request-id tagging (DESIGN §3 rule 4). */
    default long requestId() {
        return switch (this) {
            case Command c -> c.requestId();
            case LogRead r -> r.requestId();
            case Noop n -> RequestIds.BACKGROUND;
        };
    }

    /** Bytes this value weighs in batches and windows (the payload plus a fixed overhead). */
    default int weight() {
        return this instanceof Command c ? 32 + c.payload().length : 32;
    }
}
