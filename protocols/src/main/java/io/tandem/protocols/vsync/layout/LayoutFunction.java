package io.tandem.protocols.vsync.layout;

import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The application's layout function (derecho.md §1.3): run by every member on every view, it must be
 * a pure, deterministic function of the previous layout and the view's members in rank order, so that
 * every member computes the same layout without an agreement step. The subgroups it names, in
 * {@link #subgroups()} order, size the SST row (one block of columns per subgroup), so they are fixed
 * for the life of the group; the shards and their members change with the view.
 */
public interface LayoutFunction {
    /** The subgroup names, in a fixed order; every adequate layout has exactly these subgroups. */
    List<String> subgroups();

    /** The layout of a view with {@code members} (rank order), given the previous view's ({@link Layout#EMPTY} for the first). */
    LayoutResult allocate(Layout previous, List<NodeId> members);

    /** The most shards of one subgroup (a member serves at most one shard per subgroup). */
    int maxShards(String subgroup);

    /**
     * Several allocators over the same view, each placing members on its own: shards of one allocator
     * are disjoint, shards of different allocators may share members, so a member may serve several
     * subgroups (derecho.md §1.3: "to get overlapping replica sets, create two subgroups over the same
     * nodes"). The view is adequate only if it is adequate for every allocator.
     *
     * @throws IllegalArgumentException if two allocators declare the same subgroup name
     */
    static LayoutFunction overlapping(List<ShardAllocator> allocators) {
        List<String> names = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (ShardAllocator a : allocators) {
            for (String n : a.subgroups()) if (!seen.add(n)) throw new IllegalArgumentException("subgroup " + n + " is declared twice");
            names.addAll(a.subgroups());
        }
        List<ShardAllocator> parts = List.copyOf(allocators);
        List<String> order = List.copyOf(names);
        return new LayoutFunction() {
            @Override
            public List<String> subgroups() {
                return order;
            }

            @Override
            public int maxShards(String subgroup) {
                for (ShardAllocator a : parts) if (a.subgroups().contains(subgroup)) return a.maxShards(subgroup);
                throw new IllegalArgumentException("no subgroup " + subgroup);
            }

            @Override
            public LayoutResult allocate(Layout previous, List<NodeId> members) {
                Map<String, List<Shard>> subgroups = new LinkedHashMap<>();
                Set<NodeId> placed = new HashSet<>();
                for (ShardAllocator a : parts) {
                    LayoutResult r = a.allocate(previous, members);
                    if (r instanceof LayoutResult.Inadequate) return r;
                    Layout l = ((LayoutResult.Adequate) r).layout();
                    subgroups.putAll(l.subgroups());
                    l.subgroups().values().forEach(shards -> shards.forEach(s -> placed.addAll(s.members())));
                }
                List<NodeId> unassigned = members.stream().filter(m -> !placed.contains(m)).toList();
                return new LayoutResult.Adequate(new Layout(subgroups, unassigned));
            }
        };
    }
}
