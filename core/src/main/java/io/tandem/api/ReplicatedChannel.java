package io.tandem.api;

import io.tandem.engine.GroupView;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** A {@link Channel} whose total order comes from a replication engine. */
final class ReplicatedChannel implements Channel {
    /**
     * Hands each view the engine installs to the receiver (on the execution thread, in order with
     * the messages) and remembers the latest for {@link #view()}.
     */
    static final class ViewTracker implements Consumer<GroupView> {
        private final Receiver receiver;
        private final CompletableFuture<View> first = new CompletableFuture<>();
        private volatile View current;

        ViewTracker(Receiver receiver) {
            this.receiver = receiver;
        }

        @Override
        public void accept(GroupView v) {
            View view = NodeBuilder.toView(v);
            current = view;
            receiver.viewAccepted(view);
            first.complete(view);
        }

        /** Waits until the receiver accepted its first view, so that {@code connect} returns a channel with a view. */
        void awaitFirst(java.time.Duration timeout, io.tandem.runtime.NodeRuntime runtime) {
            try {
                CompletableFuture.anyOf(first, runtime.loopEnded()).get(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
                if (!first.isDone()) {
                    throw new NodeStoppedException("the channel's node stopped before its first view" + (runtime.failure() == null ? "" : ": " + runtime.failure()));
                }
            } catch (java.util.concurrent.TimeoutException e) {
                throw new RequestTimeoutException("the channel's first view did not arrive within " + timeout);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new TandemException("the channel's first view failed: " + e.getCause(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TandemException("interrupted while waiting for the channel's first view");
            }
        }
    }

    private final RuntimeBackedNode node;
    private final Address self;
    private final ViewTracker views;
    /** My name as every command of mine starts with it (encoded once, not per send). */
    private final byte[] prefix;

    ReplicatedChannel(RuntimeBackedNode node, Address self, ViewTracker views) {
        this.node = node;
        this.self = self;
        this.views = views;
        this.prefix = ReceiverStateMachine.prefix(self.node());
    }

    @Override
    public Address address() {
        return self;
    }

    /** The view this member's receiver accepted last (the runtime's current view until the first is delivered). */
    @Override
    public View view() {
        View v = views.current;
        return v != null ? v : NodeBuilder.toView(node.runtime().view());
    }

    @Override
    public ReplicatedNode node() {
        return node;
    }

    @Override
    public CompletableFuture<Long> send(byte[] payload) {
        return node.submit(ReceiverStateMachine.encode(prefix, payload)).thenApply(ReceiverStateMachine::positionOf);
    }

    @Override
    public void close() {
        node.close();
    }
}
