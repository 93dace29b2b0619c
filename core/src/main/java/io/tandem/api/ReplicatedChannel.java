package io.tandem.api;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.GroupView;
import io.tandem.runtime.NodeRuntime;
import io.tandem.runtime.RequestAnswer;
import io.tandem.statemachine.CommandResult;
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
    /**
     * My name as every command of mine starts with it (encoded once, not per send), or null when the protocol names
     * each command's sender as its origin and a command is the payload alone ({@link ReceiverStateMachine}).
     */
    private final byte[] prefix;
    /**
     * One submit batch per sending thread (a batch is not thread-safe; see {@link #send}). A thread's batch is an
     * empty {@code ArrayList} between sends and a reference to the runtime; once this channel is unreachable its
     * entries go stale (a thread's map holds the key weakly) and are cleared lazily, as for any {@code ThreadLocal}.
     */
    private final ThreadLocal<NodeRuntime.SubmitBatch> batches;

    ReplicatedChannel(RuntimeBackedNode node, Address self, ViewTracker views, boolean senderIsOrigin) {
        this.node = node;
        this.self = self;
        this.views = views;
        this.prefix = senderIsOrigin ? null : ReceiverStateMachine.prefix(self.node());
        NodeRuntime runtime = node.runtime();
        this.batches = ThreadLocal.withInitial(runtime::newSubmitBatch);
    }

    /**
     * A send's future, which is also the runtime's answer to it: one object per send instead of the runtime's
     * future, a {@code thenApply} stage and the second future it made (vsync19's profile at 1 KiB with 3 members:
     * the future chain was 11 % of the samples, on the execution thread that also applies every message). The
     * runtime calls exactly one of the two answer methods, once ({@link RequestAnswer}'s contract), on the thread
     * that completes the request; each completes this future, whose dependents then run on that thread, as they did
     * on the runtime's future before.
     */
    static final class Sent extends CompletableFuture<Long> implements RequestAnswer {
        @Override
        public void completed(CommandResult result) {
            // A message this member's execution thread applied answers with its position unencoded; anything
            // else (an answer from another member, a duplicate) is the 8 bytes the position encodes to.
            complete(result instanceof ReceiverStateMachine.Position p ? p.index() : ReceiverStateMachine.positionOf(result.encode()));
        }

        @Override
        public void failed(Throwable error) {
            completeExceptionally(error);
        }
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
        // Submitted and handed to the loop at once, through this thread's batch: the same admission (limits,
        // timeout, forwarding as configured), the same one inbox entry and wake-up as NodeRuntime.submit, answered
        // through the returned future itself (see Sent). Re-entrant: a send refused at once fails its future inside
        // submit, whose dependents may send again on this thread; such an inner send submits and flushes its own
        // command, and the refused one was never added to the batch, so the outer flush finds it empty or hands on
        // only what this call added.
        // Over a protocol that names senders (prefix null) the application's array is the command itself: the engine
        // copies it once, into its ring slot (issue 22: the name copied in front of it was a copy and an allocation of
        // the whole payload per send). Channel#send's contract keeps the caller from writing into it afterwards.
        Sent sent = new Sent();
        NodeRuntime.SubmitBatch batch = batches.get();
        batch.submit(prefix == null ? java.util.Objects.requireNonNull(payload, "payload") : ReceiverStateMachine.encode(prefix, payload), ClientRequest.Session.NONE, sent);
        batch.flush();
        return sent;
    }

    @Override
    public void close() {
        node.close();
    }
}
