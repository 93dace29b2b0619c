package io.tandem.protocols.vsync.layout;

import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The subgroups and shards of one view (derecho.md §1.3): per subgroup name, its shards in order;
 * and the view's members that serve no shard.
 */
public record Layout(Map<String, List<Shard>> subgroups, List<NodeId> unassigned) {
    /** The layout before the first view: no shards. */
    public static final Layout EMPTY = new Layout(Map.of(), List.of());

    public Layout {
        Map<String, List<Shard>> copy = new LinkedHashMap<>();
        subgroups.forEach((name, shards) -> copy.put(name, List.copyOf(shards)));
        subgroups = java.util.Collections.unmodifiableMap(copy);
        unassigned = List.copyOf(unassigned);
    }

    /** Shard {@code index} of subgroup {@code name}, or null if there is none. */
    public Shard shard(String name, int index) {
        List<Shard> shards = subgroups.get(name);
        return shards == null || index < 0 || index >= shards.size() ? null : shards.get(index);
    }

    /** The shards {@code member} serves, as (subgroup name, shard index) pairs. */
    public List<Map.Entry<String, Integer>> shardsOf(NodeId member) {
        List<Map.Entry<String, Integer>> out = new ArrayList<>();
        subgroups.forEach((name, shards) -> {
            for (int i = 0; i < shards.size(); i++) {
                if (shards.get(i).members().contains(member)) out.add(Map.entry(name, i));
            }
        });
        return out;
    }
}
