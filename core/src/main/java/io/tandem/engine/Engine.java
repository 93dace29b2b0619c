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

    /** Completion of storage work the engine asked for. */
    default void onStorageEvent(StorageEvent event) {}

    /**
     * Execution has applied every entry up to {@code appliedIndex}. Engines use it to serve reads
     * and to decide when to snapshot; most can ignore it.
     */
    default void onApplied(long appliedIndex) {}

    /** The node is shutting down; no further calls follow. */
    default void stop() {}
}
