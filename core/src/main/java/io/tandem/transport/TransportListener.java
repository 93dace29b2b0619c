package io.tandem.transport;

import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;

/** Receives inbound traffic from a {@link Transport}; called on transport threads, must not block. */
public interface TransportListener {
    void onMessage(NodeId from, ProtocolMessage message);

    /** A peer wrote {@code length} bytes at {@code offset} of its region {@code region} into our copy. */
    default void onRegionWrite(NodeId writer, String region, int offset, int length) {}

    /**
     * The outcome at {@code target} of our {@link MemoryRegions#pushWithCompletion} {@code pushId}:
     * applied (with every earlier push to it) or not known to be.
     */
    default void onPushCompleted(long pushId, String region, NodeId target, boolean applied) {}
}
