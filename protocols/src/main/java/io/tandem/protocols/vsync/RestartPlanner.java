package io.tandem.protocols.vsync;

import io.tandem.engine.NodeId;
import io.tandem.protocols.vsync.layout.DeliveryMode;
import io.tandem.protocols.vsync.layout.Layout;
import io.tandem.protocols.vsync.layout.LayoutFunction;
import io.tandem.protocols.vsync.layout.LayoutResult;
import io.tandem.protocols.vsync.layout.Shard;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * The restart leader's rules after a total failure (derecho.md §5.9), a pure function of the
 * reports it collected: which view the group restarts in and, per durable shard, whose log it
 * restarts from.
 *
 * <p>Why the rules are safe (the argument in full is in docs/derecho-part2.md, "Durable delivery"):
 * <ul>
 *   <li><b>The newest view is seen.</b> Every member logs the next view before it echoes the trim
 *       that leads to it, and a view is installed only after every unsuspected member (a majority of
 *       the old view, §5.2) echoed. So if view v+1 was ever installed, a majority of v logged it, and
 *       a majority of v's members among the reporters includes one of them. By induction, waiting for
 *       a majority of the newest view any reporter logged finds the last view the group ever had.</li>
 *   <li><b>A durable message is in some reporter's log.</b> A message is reported durable once every
 *       member of its shard persisted it; a member new to a durable shard copies the shard's history
 *       before it counts as holding it (and before its persisted counter counts). So every member that
 *       holds a durable shard's history in the last view has every message of it ever reported
 *       durable; the quorum waits for one such reporter per durable shard.</li>
 *   <li><b>The longest log contains every other.</b> Every member's log of a shard is a prefix of the
 *       one history of the shard: within a view all members deliver the same message at each position,
 *       the trim only extends what anyone delivered, and only one trim per view is acted on (V5). So the
 *       log with the highest version contains every reporter's, the durable messages included. Versions
 *       beyond the durable point were delivered legitimately and are kept (as derecho.md §5.10 does).</li>
 * </ul>
 */
final class RestartPlanner {
    private RestartPlanner() {}

    /**
     * What a restarting member found in its log: the newest view it logged ({@code vid}, its members
     * and its shards' members), the durable shards of that view whose whole history it holds, and per
     * shard the highest version its log holds (0 if none).
     */
    record Report(NodeId from, long vid, long ballot, List<NodeId> members, List<List<NodeId>> shards, Set<ShardId> holds, Map<ShardId, Long> lastVersion) {
        Report {
            members = List.copyOf(members);
            shards = shards.stream().map(List::copyOf).toList();
            holds = Set.copyOf(holds);
            lastVersion = Map.copyOf(lastVersion);
        }
    }

    /** The view the group restarts in, its layout, and the member whose log each durable shard of it restarts from. */
    record Decision(long vid, List<NodeId> members, Layout layout, Map<ShardId, NodeId> sources) {}

    /** A decision, or why the leader must wait for more reports. */
    sealed interface Outcome {}

    record Decided(Decision decision) implements Outcome {}

    record Waiting(String reason) implements Outcome {}

    /**
     * @param layoutOf the layout of a logged view from its members and its shards' members (modes from the layout function)
     */
    static Outcome decide(Collection<Report> reports, List<NodeId> configured, LayoutFunction function, BiFunction<List<NodeId>, List<List<NodeId>>, Layout> layoutOf) {
        if (reports.isEmpty()) return new Waiting("no reports");
        Report newest = null;
        // Of two records of one view id the higher ballot is the view installed (DurableRecord.View).
        for (Report r : reports) if (newest == null || r.vid() > newest.vid() || r.vid() == newest.vid() && r.ballot() > newest.ballot()) newest = r;
        List<NodeId> last = newest.members();
        java.util.Set<NodeId> reporters = new java.util.HashSet<>();
        for (Report r : reports) reporters.add(r.from());
        long inLast = last.stream().filter(reporters::contains).count();
        if (inLast <= last.size() / 2) {
            return new Waiting(inLast + " of the " + last.size() + " members of view " + newest.vid() + " reported; a majority is needed");
        }
        Layout lastLayout = layoutOf.apply(last, newest.shards());
        for (ShardId s : durableShards(function, lastLayout)) {
            boolean held = false;
            for (Report r : reports) held |= r.vid() == newest.vid() && r.ballot() == newest.ballot() && r.holds().contains(s);
            if (!held) return new Waiting("no reporter holds the history of durable shard " + s + " in view " + newest.vid());
        }
        List<NodeId> members = new ArrayList<>();
        for (NodeId m : last) if (reporters.contains(m)) members.add(m);
        for (NodeId m : configured) if (reporters.contains(m) && !members.contains(m)) members.add(m);
        Layout layout = switch (function.allocate(lastLayout, members)) {
            case LayoutResult.Adequate a -> a.layout();
            case LayoutResult.Inadequate i -> null;
        };
        if (layout == null) return new Waiting("the reporters " + members + " cannot fill the layout");
        Map<ShardId, NodeId> sources = new LinkedHashMap<>();
        for (ShardId s : durableShards(function, layout)) sources.put(s, longestLog(s, reports, members, newest));
        return new Decided(new Decision(newest.vid() + 1, members, layout, sources));
    }

    /**
     * The reporter whose log of {@code shard} reaches the highest version; on a tie one that holds the
     * shard's history in the last view, then the first in the restart view's order (any of the tied
     * logs is the same history).
     */
    static NodeId longestLog(ShardId shard, Collection<Report> reports, List<NodeId> order, Report last) {
        Report best = null;
        for (NodeId m : order) {
            Report r = reports.stream().filter(x -> x.from().equals(m)).findFirst().orElseThrow();
            if (best == null) {
                best = r;
                continue;
            }
            long a = r.lastVersion().getOrDefault(shard, 0L);
            long b = best.lastVersion().getOrDefault(shard, 0L);
            boolean rHolds = r.vid() == last.vid() && r.ballot() == last.ballot() && r.holds().contains(shard);
            boolean bestHolds = best.vid() == last.vid() && best.ballot() == last.ballot() && best.holds().contains(shard);
            if (a > b || a == b && rHolds && !bestHolds) best = r;
        }
        return best.from();
    }

    /** The durable shards of {@code layout}, subgroup by subgroup. */
    static List<ShardId> durableShards(LayoutFunction function, Layout layout) {
        List<ShardId> out = new ArrayList<>();
        for (String name : function.subgroups()) {
            List<Shard> list = layout.subgroups().getOrDefault(name, List.of());
            for (int i = 0; i < list.size(); i++) if (list.get(i).mode() == DeliveryMode.DURABLE) out.add(new ShardId(name, i));
        }
        return out;
    }
}
