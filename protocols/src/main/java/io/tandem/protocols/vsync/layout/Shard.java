package io.tandem.protocols.vsync.layout;

import io.tandem.engine.NodeId;
import java.util.List;

/**
 * One shard of a layout (derecho.md §1.3, a SubView): its members in shard-rank order, how it
 * delivers, and who joined and departed it since the previous layout (joiners need state transfer).
 */
public record Shard(List<NodeId> members, DeliveryMode mode, List<NodeId> joined, List<NodeId> departed) {
    public Shard {
        members = List.copyOf(members);
        joined = List.copyOf(joined);
        departed = List.copyOf(departed);
    }

    /** The member's rank in this shard, or −1 if it is not a member. */
    public int rankOf(NodeId member) {
        return members.indexOf(member);
    }
}
