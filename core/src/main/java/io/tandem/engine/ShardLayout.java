package io.tandem.engine;

/**
 * What a host asks of a protocol when it splits its replicated state into shards
 * ({@link Protocol#withShards}, issue 23): one named set of {@code shards} shards, each kept by at
 * least {@code replicas} members of the group, each with its own total order. The protocol places
 * the members (and moves them as views change); the host only says how many shards and how many
 * copies of each.
 *
 * @param name     the set's name (a protocol may record it on disk, so keep it stable across runs)
 * @param shards   how many shards, at least 1
 * @param replicas the fewest members a shard may have (its replication factor), at least 1
 * @param durable  whether the host needs {@link ShardListener#persisted}: each message logged by every
 *                 member of its shard, and kept across a failure of every member
 */
public record ShardLayout(String name, int shards, int replicas, boolean durable) {
    public ShardLayout {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("a shard layout needs a name");
        if (shards < 1) throw new IllegalArgumentException("shards must be >= 1, was " + shards);
        if (replicas < 1) throw new IllegalArgumentException("shard-replicas must be >= 1, was " + replicas);
    }

    /**
     * Checks that a group of {@code members} can fill every shard, with a message that says what to
     * change: {@code shards × replicas} members are needed for the first view and every later one.
     *
     * @throws IllegalArgumentException if it cannot
     */
    public void check(int members) {
        if ((long) shards * replicas > members) {
            throw new IllegalArgumentException(shards + " shards of at least " + replicas + " replica" + (replicas == 1 ? "" : "s") + " need " + (shards * replicas)
                    + " members, but the group has " + members + ": lower shards or shard-replicas, or add members");
        }
    }
}
