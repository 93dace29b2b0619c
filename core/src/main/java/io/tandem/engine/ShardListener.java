package io.tandem.engine;

import java.util.List;

/**
 * What a sharded group tells the application of one member (on the engine's loop, as it happens):
 * each shard's messages in the shard's one total order, how far they are durable, that a copy of a
 * shard's history follows, and each new view's shards. See {@link Protocol#withShards}.
 */
public interface ShardListener {
    /**
     * Message {@code version} of {@code shard}, in the shard's total order, the same at every member
     * of the shard; versions only grow.
     */
    void deliver(int shard, NodeId sender, long version, byte[] payload);

    /**
     * Every message of {@code shard} up to {@code version} is on disk at every member of the shard and
     * survives a failure of all of them ({@link ShardLayout#durable} layouts only; monotonic).
     */
    default void persisted(int shard, long version) {}

    /**
     * This member is new to {@code shard} (or restarted): drop its state; the shard's whole history
     * follows through {@link #deliver} with the original versions, then the new messages.
     */
    default void replayStarts(int shard) {}

    /** A view was installed: {@code shards.get(i)} are the members of shard i in it. */
    default void viewInstalled(long viewId, List<List<NodeId>> shards) {}
}
