package io.tandem.engine;

import java.util.List;

/**
 * One member's group engine as an application running over its shards sees it
 * ({@link Protocol#withShards}): the engine to drive (every {@link Engine} call of the host goes to
 * it, except client requests, which are the application's), the shards of the last installed view,
 * and an ordered send to one shard (Derecho's {@code ordered_send}). Protocol-neutral: an
 * application written against it never names the engine underneath.
 */
public interface ShardGroup extends Engine {
    /** Whether this member is in the group's current view (it may send and its shards deliver). */
    boolean member();

    /** What this member is doing now, for messages ("member", "joining", "stopped", ...). */
    String state();

    /** The id of the last view this member installed. */
    long viewId();

    /** Whether this member keeps shard {@code shard} in the current view. */
    boolean serves(int shard);

    /** The members of shard {@code shard} in the current view (empty if it has none or no such shard). */
    List<NodeId> members(int shard);

    /**
     * Queues {@code payload} for the shard's total order; it comes back through
     * {@link ShardListener#deliver} at every member of the shard, this one included.
     *
     * @return null if queued, else why not (not a member of the shard, queue full, too large)
     */
    String orderedSend(int shard, byte[] payload);

    /** The largest payload {@link #orderedSend} takes. */
    int maxPayloadBytes();
}
