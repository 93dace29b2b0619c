package io.tandem.protocols.vsync.layout;

import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Derecho's built-in layout function (derecho.md §1.3): given the policies of the subgroups and a
 * view's members in rank order, assigns members to shards. A pure, deterministic function of the
 * previous layout and the view, so every member computes the same layout with no agreement step.
 *
 * <p>The rules, in order:
 * <ol>
 *   <li><b>Keep.</b> A member of a shard in the previous layout that is still in the view stays in
 *       that shard, in its old shard rank (up to the shard's maximum): a view change never reshuffles
 *       members that did not leave, so no state moves for them.</li>
 *   <li><b>Fill to the minimum</b> from the pool of unassigned members, in rank order (joiners are at
 *       the tail of the rank order, so survivors are used first). If the pool runs dry while kept
 *       members sit above another shard's minimum, the surplus members with the highest shard rank
 *       move (the only case where a kept member moves), so the layout is adequate exactly when the
 *       view has at least the sum of the minimums.</li>
 *   <li><b>Spread the rest</b> one member at a time to the shard with the fewest members (first in
 *       policy order on a tie) that is below its maximum; members left over stay unassigned.</li>
 * </ol>
 * Shards of all subgroups are disjoint: a member serves at most one shard. A view that cannot fill
 * every shard to its minimum is {@link LayoutResult.Inadequate}: the group must not install it and
 * waits for more members (§1.3, adequacy rule).
 */
public final class ShardAllocator implements LayoutFunction {
    private final List<SubgroupPolicy> policies;
    private final int minimumMembers;

    /** @throws IllegalArgumentException if no subgroup is given or two have the same name */
    public ShardAllocator(List<SubgroupPolicy> policies) {
        if (policies.isEmpty()) throw new IllegalArgumentException("at least one subgroup policy is needed");
        Set<String> names = new HashSet<>();
        int minimum = 0;
        for (SubgroupPolicy p : policies) {
            if (!names.add(p.name())) throw new IllegalArgumentException("subgroup " + p.name() + " is declared twice");
            minimum += p.shards() * p.minMembers();
        }
        this.policies = List.copyOf(policies);
        this.minimumMembers = minimum;
    }

    @Override
    public List<String> subgroups() {
        return policies.stream().map(SubgroupPolicy::name).toList();
    }

    @Override
    public int maxShards(String subgroup) {
        for (SubgroupPolicy p : policies) if (p.name().equals(subgroup)) return p.shards();
        throw new IllegalArgumentException("no subgroup " + subgroup);
    }

    /** How many members a view needs for an adequate layout: the sum of every shard's minimum. */
    public int minimumMembers() {
        return minimumMembers;
    }

    /**
     * The layout of a view with {@code members} (in rank order), given the layout of the previous view
     * ({@link Layout#EMPTY} for the first).
     */
    @Override
    public LayoutResult allocate(Layout previous, List<NodeId> members) {
        if (new HashSet<>(members).size() != members.size()) return new LayoutResult.Inadequate("the view lists a member twice: " + members);
        if (members.size() < minimumMembers) {
            return new LayoutResult.Inadequate("the shards need at least " + minimumMembers + " members, the view has " + members.size());
        }
        Set<NodeId> inView = new LinkedHashSet<>(members);
        List<ShardSlot> slots = new ArrayList<>();
        for (SubgroupPolicy p : policies) {
            for (int s = 0; s < p.shards(); s++) slots.add(new ShardSlot(p, s));
        }
        Set<NodeId> assigned = new HashSet<>();
        // 1. Keep.
        for (ShardSlot slot : slots) {
            Shard before = previous.shard(slot.policy.name(), slot.index);
            if (before == null) continue;
            for (NodeId m : before.members()) {
                if (slot.members.size() < slot.policy.maxMembers() && inView.contains(m) && assigned.add(m)) slot.members.add(m);
            }
        }
        List<NodeId> pool = new ArrayList<>();
        for (NodeId m : members) {
            if (!assigned.contains(m)) pool.add(m);
        }
        // 2. Fill to the minimum, moving surplus kept members only if the pool runs dry.
        for (ShardSlot slot : slots) {
            while (slot.members.size() < slot.policy.minMembers()) {
                NodeId next = !pool.isEmpty() ? pool.removeFirst() : takeSurplus(slots, slot);
                slot.members.add(next);
            }
        }
        // 3. Spread the rest.
        while (!pool.isEmpty()) {
            ShardSlot smallest = null;
            for (ShardSlot slot : slots) {
                if (slot.members.size() < slot.policy.maxMembers() && (smallest == null || slot.members.size() < smallest.members.size())) smallest = slot;
            }
            if (smallest == null) break;
            smallest.members.add(pool.removeFirst());
        }
        Map<String, List<Shard>> subgroups = new LinkedHashMap<>();
        for (ShardSlot slot : slots) {
            Shard before = previous.shard(slot.policy.name(), slot.index);
            List<NodeId> old = before == null ? List.of() : before.members();
            List<NodeId> joined = slot.members.stream().filter(m -> !old.contains(m)).toList();
            List<NodeId> departed = old.stream().filter(m -> !slot.members.contains(m)).toList();
            subgroups.computeIfAbsent(slot.policy.name(), k -> new ArrayList<>())
                    .add(new Shard(List.copyOf(slot.members), slot.policy.mode(), joined, departed));
        }
        return new LayoutResult.Adequate(new Layout(subgroups, List.copyOf(pool)));
    }

    /**
     * A member taken from the shard holding the most members above its minimum (the last such in
     * policy order on a tie), its highest-ranked one. There is one: {@link #allocate} checked that the
     * view holds at least the sum of the minimums, and the pool is empty.
     */
    private static NodeId takeSurplus(List<ShardSlot> slots, ShardSlot needy) {
        ShardSlot richest = null;
        for (ShardSlot slot : slots) {
            if (slot == needy) continue;
            int surplus = slot.members.size() - slot.policy.minMembers();
            if (surplus > 0 && (richest == null || surplus >= richest.members.size() - richest.policy.minMembers())) richest = slot;
        }
        if (richest == null) throw new IllegalStateException("no shard above its minimum, yet the view holds enough members");
        return richest.members.removeLast();
    }

    /** A shard being filled. */
    private static final class ShardSlot {
        final SubgroupPolicy policy;
        final int index;
        final List<NodeId> members = new ArrayList<>();

        ShardSlot(SubgroupPolicy policy, int index) {
            this.policy = policy;
            this.index = index;
        }
    }
}
