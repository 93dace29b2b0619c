package io.tandem.api;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/** A {@link Channel} whose total order comes from a replication engine. */
final class ReplicatedChannel implements Channel {
    private final RuntimeBackedNode node;
    private final Address self;
    private final View view;

    ReplicatedChannel(RuntimeBackedNode node, Address self, View view) {
        this.node = node;
        this.self = self;
        this.view = view;
    }

    @Override
    public Address address() {
        return self;
    }

    @Override
    public View view() {
        return view;
    }

    @Override
    public CompletableFuture<Long> send(byte[] payload) {
        return node.submit(ReceiverStateMachine.encode(self.node(), payload)).thenApply(r -> ByteBuffer.wrap(r).getLong());
    }

    @Override
    public void close() {
        node.close();
    }
}
