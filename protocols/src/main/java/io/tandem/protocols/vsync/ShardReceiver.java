package io.tandem.protocols.vsync;

import io.tandem.engine.NodeId;
import io.tandem.protocols.vsync.layout.Layout;

/**
 * The typed side of virtual synchrony with shards (derecho.md §1.4, §7): what a member's replicated
 * objects see of the shards it serves. Called on the engine's thread, in each shard's total order.
 * The whole-group subgroup ({@link VsyncEngine#GROUP}) keeps delivering to the state machine (the
 * channel API); every other subgroup delivers here.
 */
public interface ShardReceiver {
    /** A receiver that ignores everything. */
    ShardReceiver NONE = new ShardReceiver() {};

    /**
     * Message {@code senderIndex} of {@code sender} in shard {@code shard}, delivered at position
     * {@code version} of view {@code vid}: {@code (vid << 32) | position}, as Derecho numbers versions
     * (derecho.md §1.6). Every member of the shard that stays in the next view gets the same calls in
     * the same order.
     */
    default void deliver(ShardId shard, NodeId sender, long version, byte[] payload) {}

    /**
     * Durable shards (derecho.md §4.6): every message of {@code shard} up to {@code version} is on
     * disk at every member of the shard, so it survives a failure of the whole group (the global
     * persistence frontier; never goes back). Called after the messages' {@link #deliver}.
     */
    default void persisted(ShardId shard, long version) {}

    /**
     * Durable shards (derecho.md §5.7, §5.9): this member is new to {@code shard} (it joined, moved
     * in, or the group restarted after a total failure); forget its state of the shard. The shard's
     * whole history follows through {@link #deliver} with the messages' original versions, from the
     * first, then the new messages.
     */
    default void replayStarts(ShardId shard) {}

    /** A new view is installed with {@code layout}; the shards this member serves may have changed. */
    default void viewInstalled(long vid, Layout layout) {}

    /**
     * A point-to-point query from {@code from} for shard {@code shard} (Derecho's {@code p2p_send}):
     * read-only, not ordered with the shard's multicasts; the answer goes back to the asker's
     * {@link #reply}. Null answers nothing.
     */
    default byte[] query(ShardId shard, NodeId from, byte[] request) {
        return null;
    }

    /** The answer of {@code from} to this member's query {@code queryId}. */
    default void reply(long queryId, NodeId from, byte[] answer) {}
}
