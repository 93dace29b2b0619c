package io.tandem.peers.sofajraft;

import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.entity.Task;
import com.alipay.sofa.jraft.rpc.RpcContext;
import com.alipay.sofa.jraft.rpc.RpcProcessor;
import java.util.function.Supplier;

/**
 * Serves {@link PutRequest}s on the replica's Bolt server (the same server jraft's own RPCs use, as in jraft's
 * counter example): the leader proposes the put with {@link Node#apply} and answers when the entry is applied;
 * any other node answers with the leader it knows of.
 */
final class PutProcessor implements RpcProcessor<PutRequest> {
    private final Supplier<Node> node;

    /** {@code node} supplies the started node; requests that arrive before it started are refused. */
    PutProcessor(Supplier<Node> node) {
        this.node = node;
    }

    @Override
    public void handleRequest(RpcContext ctx, PutRequest request) {
        Node raft = node.get();
        if (raft == null || !raft.isLeader()) {
            PeerId leader = raft == null ? null : raft.getLeaderId();
            ctx.sendResponse(PutResponse.notLeader(leader == null || leader.isEmpty() ? null : leader.getEndpoint().toString()));
            return;
        }
        // The closure runs on the FSM thread once the entry is applied, or earlier with an error (not leader any
        // more, queue full, shutting down).
        raft.apply(new Task(KvStateMachine.encode(request.key(), request.value()), status -> ctx.sendResponse(
                status.isOk() ? PutResponse.ok() : PutResponse.failed(status.getRaftError() + ": " + status.getErrorMsg()))));
    }

    @Override
    public String interest() {
        return PutRequest.class.getName();
    }
}
