package io.tandem.engine;

import io.tandem.storage.DurableLog;
import io.tandem.storage.MetaStore;
import io.tandem.storage.SnapshotStore;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Everything an engine may touch (DESIGN §2). Provided by the real runtime and by the simulator
 * with the same contract; every method is non-blocking and is only called from the engine's loop.
 */
public interface EngineContext {
    NodeId self();

    /** The initial members of the group, in a stable order, including {@link #self()}. */
    List<NodeId> members();

    /**
     * Installs {@code view} as the group's membership from this point of the engine's deliveries on
     * (DESIGN §2.1). The runtime hands it to execution after every entry delivered before, so each
     * channel {@code Receiver} sees views and messages in one order; it connects the transport to
     * members that joined and disconnects it from members that left the previous view. A view whose
     * id is not above the current one is ignored, so an engine may announce its current view again
     * (after recovery, say). An engine that never installs one gets view 1 of {@link #members()}.
     */
    void installView(GroupView view);

    /** The view installed last (view 1 of {@link #members()} until the engine installs one). */
    GroupView view();

    /** This node's memory regions (one-sided writes, for the SST). */
    Regions regions();

    /**
     * Asks the loop to call {@link Engine#doWork} between events (true) or to stop (false); the
     * loop idles with its idle strategy while polls find nothing to do.
     */
    void requestPolling(boolean poll);

    /** Monotonic time in nanoseconds. In the simulator it is virtual and may carry a clock offset. */
    long nowNanos();

    /** The node's random source: seeded in the simulator, so runs replay exactly. */
    RandomGenerator random();

    /**
     * Queues {@code message} for {@code to}. Never blocks and never throws: if the peer's bounded
     * outbox is full or the peer is unreachable the message is dropped and counted; protocols
     * recover through their own retransmission on a timer.
     */
    void send(NodeId to, ProtocolMessage message);

    /** Arms timer {@code key} to fire after {@code delayNanos}; re-arming a pending key replaces its deadline. */
    TimerKey schedule(long delayNanos, TimerKey key);

    void cancel(TimerKey key);

    DurableLog log();

    MetaStore meta();

    SnapshotStore snapshots();

    /** Hands an ordered command to execution, which applies entries strictly in index order. */
    void deliver(Committed entry);

    /**
     * Like {@link #deliver}, and once execution has applied {@code entry} its result comes back to the
     * engine through {@link Engine#onExecuted} (on the loop, as its own event). Requests of this node
     * still complete on their own; the engine uses the result to answer requests held elsewhere.
     */
    default void deliverReportingResult(Committed entry) {
        throw new UnsupportedOperationException("this context does not report execution results");
    }

    /**
     * Lets execution answer read {@code requestId} (received on this node) once it has applied every
     * entry up to {@code afterIndex}. The engine calls this when the read policy is satisfied
     * (for a linearizable read: a quorum confirmed leadership at read index {@code afterIndex}).
     */
    void serveRead(long requestId, long afterIndex);

    /**
     * Completes client request {@code requestId} (received on this node) with a result the engine
     * obtained itself rather than from this node's execution: a result another member computed and
     * sent in one of the engine's own messages, or one it has cached (DESIGN §2.1, "replies from
     * anywhere"). Requests that execute here complete on their own; a second completion is ignored.
     */
    void complete(long requestId, byte[] result);

    /**
     * Fails client request {@code requestId} (received on this node) with a typed error. A
     * {@link Rejection.Redirect} of a request submitted with forwarding is not an error: the runtime
     * forwards the request to the members it names and the engine hears no more of it.
     */
    void reject(long requestId, Rejection reason);

    /** Asks execution to snapshot the state machine; completes with {@link io.tandem.storage.StorageEvent.SnapshotTaken}. */
    void takeSnapshot(long token);

    Meters meters();
}
