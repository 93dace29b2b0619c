package io.tandem.protocols.multipaxos;

import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ClientReplies;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.Reply;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ReplyBatch;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToUnbatcher;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The unbatcher role (spec §2.7, the artifact's {@code ProxyReplica}): it takes a replica's batch of
 * command results and sends each one on to where its client waits, so the replica sends one message
 * per batch however many clients it answers.
 *
 * <p>In Tandem a client's request waits on the member that took it (its frontend or batcher holds the
 * future), so the "per-client reply" of the paper is a reply to that member: the unbatcher groups a
 * batch by origin and sends each origin one {@link ClientReplies}, whose frontend completes every
 * request in it. Stateless (spec: unbatchers hold nothing): a crash loses replies in flight, and the
 * origin answers from its own execution or the client retries.
 */
final class Unbatcher {
    private final RoleContext rc;
    private final Meters.Counter repliesSent;

    Unbatcher(RoleContext rc) {
        this.rc = rc;
        this.repliesSent = rc.meters().counter("tandem.multipaxos.unbatcher.replies");
    }

    void onMessage(NodeId from, ToUnbatcher m) {
        switch (m) {
            case ReplyBatch b -> onReplyBatch(b);
        }
    }

    /** Spec §2.7: fan the batch out, one message per member holding clients, in the batch's order. */
    private void onReplyBatch(ReplyBatch b) {
        Map<NodeId, List<Reply>> byOrigin = new LinkedHashMap<>();
        for (Reply r : b.replies()) byOrigin.computeIfAbsent(r.origin(), o -> new ArrayList<>()).add(r);
        for (Map.Entry<NodeId, List<Reply>> e : byOrigin.entrySet()) {
            rc.send(e.getKey(), new ClientReplies(List.copyOf(e.getValue()), e.getValue().getFirst().requestId()));
            repliesSent.increment(e.getValue().size());
        }
    }
}
