package io.tandem.kv.net;

import io.tandem.engine.ReadPolicy;
import io.tandem.transport.FaultPlan;
import java.util.Objects;

/**
 * A request a client sends to a server, identified by a request id that the response echoes. Data
 * requests carry {@link io.tandem.kv.KvCodec} bytes; the others inspect or steer the node (for
 * operators and the fault-injection runner). New request types get new type codes; a server
 * answers a type it does not know with {@link ErrorCode#BAD_REQUEST}.
 */
public sealed interface Request {
    long requestId();

    /**
     * A replicated write: {@code command} is a {@link io.tandem.kv.KvCommand} in {@code KvCodec}
     * bytes. A retry of the same write carries the same (clientId, sequence), so it is applied at
     * most once; clientId 0 means no session.
     */
    record Command(long requestId, long clientId, long sequence, byte[] command) implements Request {
        public Command {
            Objects.requireNonNull(command, "command");
        }
    }

    /** A read: {@code query} is a {@link io.tandem.kv.KvQuery} in {@code KvCodec} bytes. */
    record Query(long requestId, ReadPolicy policy, byte[] query) implements Request {
        public Query {
            Objects.requireNonNull(policy, "policy");
            Objects.requireNonNull(query, "query");
        }
    }

    /** What the node knows: role, leader, indexes, members; answered with {@link Response.StatusReport}. */
    record Status(long requestId) implements Request {}

    /** Replaces the node's outbound network fault plan (only on servers started with fault injection). */
    record SetFaultPlan(long requestId, FaultPlan plan) implements Request {
        public SetFaultPlan {
            Objects.requireNonNull(plan, "plan");
        }
    }

    /** Shifts the node's engine clock by {@code offsetNanos} (only on servers started with fault injection). */
    record SetClockOffset(long requestId, long offsetNanos) implements Request {}

    /** Asks the leader for a membership change or a leadership transfer to {@code node}. */
    record ChangeMembership(long requestId, MembershipChange change, String node) implements Request {
        public ChangeMembership {
            Objects.requireNonNull(change, "change");
            Objects.requireNonNull(node, "node");
        }
    }

    /**
     * Authenticates the connection with a bearer token; answered DONE, or UNAUTHENTICATED and the
     * connection closed. Requests that follow on the connection run with the token's roles. Send it
     * over TLS only: the token is in the frame as is.
     */
    record Authenticate(long requestId, String token) implements Request {
        public Authenticate {
            Objects.requireNonNull(token, "token");
        }

        @Override
        public String toString() { // never the token
            return "Authenticate[requestId=" + requestId + "]";
        }
    }
}
