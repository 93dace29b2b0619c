package io.tandem.protocols.vsync;

/**
 * The address of a shard: a subgroup of the layout function and the shard's index in it
 * (derecho.md §1.3). The target of an ordered send ({@link VsyncEngine#orderedSend}).
 */
public record ShardId(String subgroup, int index) {
    public ShardId {
        if (subgroup == null || subgroup.isBlank()) throw new IllegalArgumentException("a shard needs a subgroup name");
        if (index < 0) throw new IllegalArgumentException("shard index must be >= 0, was " + index);
    }

    @Override
    public String toString() {
        return subgroup + "/" + index;
    }
}
