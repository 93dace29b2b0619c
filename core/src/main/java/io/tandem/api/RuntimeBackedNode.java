package io.tandem.api;

import io.tandem.engine.AdminRequest;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import io.tandem.runtime.NodeRuntime;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A {@link ReplicatedNode} over the real {@link NodeRuntime}. */
final class RuntimeBackedNode implements ReplicatedNode {
    private final NodeRuntime runtime;

    RuntimeBackedNode(NodeRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public NodeId id() {
        return runtime.self();
    }

    @Override
    public List<NodeId> members() {
        return runtime.members();
    }

    @Override
    public CompletableFuture<byte[]> submit(byte[] command, ClientRequest.Session session) {
        return runtime.submit(command, session);
    }

    @Override
    public CompletableFuture<byte[]> query(byte[] query, ReadPolicy policy) {
        return runtime.query(query, policy);
    }

    @Override
    public long appliedIndex() {
        return runtime.appliedIndex();
    }

    @Override
    public CompletableFuture<EngineStatus> awaitReady(java.time.Duration timeout) {
        return runtime.awaitReady(timeout);
    }

    @Override
    public CompletableFuture<EngineStatus> status() {
        return runtime.status();
    }

    @Override
    public CompletableFuture<byte[]> admin(AdminRequest request) {
        return runtime.admin(request);
    }

    NodeRuntime runtime() {
        return runtime;
    }

    @Override
    public void close() {
        runtime.close();
    }
}
