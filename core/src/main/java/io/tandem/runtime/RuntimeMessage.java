package io.tandem.runtime;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.ReadPolicy;
import java.util.List;

/**
 * Messages between the runtimes of two members, beside the engine's own (DESIGN §2.1, "replies and
 * routing"): a request submitted on one member is forwarded to the member that can order it, and
 * its answer comes back to the submitter, which alone holds the caller's future. They are
 * registered with every codec as core types; engines never see them.
 *
 * <p>Every message names the request id <em>on the submitting member</em>; the member that serves a
 * forwarded request gives it a local id of its own and keeps the mapping.
 */
public sealed interface RuntimeMessage extends ProtocolMessage {
    /** Please order (or read) this request for me; answer with {@link Answer} or {@link Refusal}. */
    record Forward(long requestId, ClientRequest.Kind kind, ClientRequest.Session session, byte[] payload, ReadPolicy readPolicy)
            implements RuntimeMessage {
        public Forward {
            // Validated like a local request: the wire is reachable by strangers (DESIGN: bad input gets a clear error).
            if (kind == null || session == null || payload == null) throw new IllegalArgumentException("incomplete forwarded request");
            if (kind == ClientRequest.Kind.READ && readPolicy == null) throw new IllegalArgumentException("a forwarded read needs a read policy");
        }
    }

    /** The result of a forwarded request. */
    record Answer(long requestId, byte[] result) implements RuntimeMessage {}

    /** A forwarded request failed; {@code redirect} lists who may order it (for {@link Reason#REDIRECT}). */
    record Refusal(long requestId, Reason reason, String detail, List<NodeId> redirect) implements RuntimeMessage {}

    /** Why a forwarded request failed; mapped back to the same typed exception on the submitter. */
    enum Reason { REDIRECT, OVERLOADED, UNAVAILABLE, TIMEOUT, STOPPED, FAILED }
}
