package io.tandem.protocols.vsync.layout;

/**
 * One subgroup of the layout (derecho.md §1.3): its name, how many shards it has, how many members
 * each shard needs at least and takes at most, and how the shard delivers.
 *
 * @param name       the subgroup's name, unique in the layout
 * @param shards     how many disjoint shards, at least 1
 * @param minMembers the fewest members a shard may have; a view that cannot give every shard this many is inadequate
 * @param maxMembers the most members a shard takes; members beyond every shard's maximum stay unassigned
 * @param mode       how the shards of this subgroup deliver
 */
public record SubgroupPolicy(String name, int shards, int minMembers, int maxMembers, DeliveryMode mode) {
    public SubgroupPolicy {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("a subgroup needs a name");
        if (shards < 1) throw new IllegalArgumentException("subgroup " + name + ": shards must be >= 1, was " + shards);
        if (minMembers < 1) throw new IllegalArgumentException("subgroup " + name + ": minMembers must be >= 1, was " + minMembers);
        if (maxMembers < minMembers) throw new IllegalArgumentException("subgroup " + name + ": maxMembers " + maxMembers + " is below minMembers " + minMembers);
        if (mode == null) throw new IllegalArgumentException("subgroup " + name + ": a delivery mode is needed");
    }

    /** {@code shards} ordered shards of exactly {@code members} members each. */
    public static SubgroupPolicy ordered(String name, int shards, int members) {
        return new SubgroupPolicy(name, shards, members, members, DeliveryMode.ORDERED);
    }
}
