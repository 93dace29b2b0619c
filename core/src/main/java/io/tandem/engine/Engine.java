package io.tandem.engine;

import io.tandem.storage.StorageEvent;

/**
 * One protocol role instance (a Raft node, a Paxos acceptor, ...) as a deterministic,
 * single-threaded state machine (DESIGN §2). Every method runs on the node's loop, one at a time;
 * an engine does no I/O, starts no threads, reads no clock and makes no randomness of its own:
 * everything comes through the {@link EngineContext} given to {@link #start}. That is what lets
 * the same engine run in the real runtime and in the deterministic simulator.
 *
 * <p>Methods must not block and should not throw; an exception escaping a handler is treated as a
 * bug: the runtime logs it, counts it and stops the node rather than continue in an unknown state.
 */
public interface Engine {
    /** Called once, before any other method. Storage has been recovered and is readable. */
    void start(EngineContext ctx);

    void onMessage(NodeId from, ProtocolMessage message);

    void onTimer(TimerKey key);

    void onClientRequest(ClientRequest request);

    /**
     * An operator's membership or leadership request, received on this node with id
     * {@code requestId} (same id space and timeout as client requests). An engine that supports
     * {@code request} answers {@code true} and later completes it: it rejects it with
     * {@link EngineContext#reject} (for example {@link Rejection.Redirect} on a follower) or orders an
     * entry carrying {@code requestId} whose {@link Committed} completes it once applied. An engine
     * that does not support it answers {@code false}, and the runtime fails the request with
     * {@link io.tandem.api.UnsupportedRequestException} "&lt;protocol&gt; does not support &lt;operation&gt;" (not
     * {@link Rejection.Unavailable}, which tells the caller to retry).
     */
    default boolean onAdmin(long requestId, AdminRequest request) {
        return false;
    }

    /**
     * What this engine knows now: role, leader, epoch, configuration, positions and, on a leader,
     * its peers' lag. Called on the loop thread (so it may read any engine state) and must be cheap:
     * operators and harnesses poll it. Every engine of the shipped registry overrides it; the
     * default, {@link EngineStatus#UNKNOWN}, is for engines written for tests.
     */
    default EngineStatus status() {
        return EngineStatus.UNKNOWN;
    }

    /** Completion of storage work the engine asked for. */
    default void onStorageEvent(StorageEvent event) {}

    /**
     * Execution has applied every entry up to {@code appliedIndex}. Engines use it to serve reads
     * and to decide when to snapshot; most can ignore it. A hint, not an event in order with the
     * others: the runtime passes on the latest index at the start of a loop turn and does not wake a
     * parked loop for it (at most one park later, 10 ms), and may skip indexes in between.
     */
    default void onApplied(long appliedIndex) {}

    /**
     * Execution applied {@code entry}, which this engine handed over with
     * {@link EngineContext#deliverReportingResult}, and {@code result} is its answer (the state
     * machine's, or the cached one of a duplicate in the session table). For protocols whose replies
     * leave from another member than the one holding the client's future (DESIGN §2.1, "replies from
     * anywhere"; the unbatchers of compartmentalized MultiPaxos): the engine ships the result in its
     * own message and the holder completes the request with {@link EngineContext#complete}. Not
     * called for entries delivered with plain {@link EngineContext#deliver}, nor for a command below
     * its session's low watermark (its client said it would not ask again, so nobody waits for it).
     */
    default void onExecuted(Committed entry, byte[] result) {}

    /**
     * What to store with a snapshot of the state machine at applied index {@code index}, which this
     * engine asked for with {@link EngineContext#takeSnapshot}: the epoch of that entry (Raft's term)
     * and any opaque data. Called on the loop, between events, while execution waits; the runtime
     * knows nothing of terms or ballots, so an engine that compares snapshots by epoch must answer
     * here. The default tags nothing.
     */
    default SnapshotTag snapshotTag(long index) {
        return SnapshotTag.NONE;
    }

    /**
     * A member's push landed in our copy of {@code region} at {@code [offset, offset+length)}:
     * called only for regions registered with {@link Regions.Notice#EVENT}, after the bytes are in
     * memory. Pushes of one writer are reported in the order they were made.
     */
    default void onRegionWrite(NodeId writer, String region, int offset, int length) {}

    /**
     * One poll of an engine that asked for it with {@link EngineContext#requestPolling}: do whatever
     * work is ready (read regions, evaluate predicates, push) and return how much was done; 0 means
     * "nothing to do", and the loop then idles (spin, yield, park; {@code RuntimeConfig#idleStrategy})
     * until an event arrives or the next poll. Runs on the loop between events, like every handler.
     * In the simulator it runs after each event of the node and again, a microsecond of virtual time
     * later, while it returns more than 0: memory and state change only at events there, so a poll
     * that found nothing is not repeated until the next event. Time-driven work belongs on timers.
     */
    default int doWork() {
        return 0;
    }

    /** The node is shutting down; no further calls follow. */
    default void stop() {}
}
