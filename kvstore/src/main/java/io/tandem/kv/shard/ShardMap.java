package io.tandem.kv.shard;

import java.util.List;

/**
 * Which members serve each shard of a sharded KV store in one view, as a server last saw it: what
 * it tells clients in its status, so they send each key to a member of its shard
 * ({@link KeyShards#shardOf}).
 *
 * @param viewId the view the layout belongs to (0: none installed yet)
 * @param shards for shard {@code i}, its members' ids in shard-rank order
 */
public record ShardMap(long viewId, List<List<String>> shards) {
    /** No view yet. */
    public static final ShardMap NONE = new ShardMap(0, List.of());

    public ShardMap {
        shards = shards.stream().map(List::copyOf).toList();
    }

    /** The members of shard {@code index}, empty if unknown. */
    public List<String> members(int index) {
        return index >= 0 && index < shards.size() ? shards.get(index) : List.of();
    }
}
