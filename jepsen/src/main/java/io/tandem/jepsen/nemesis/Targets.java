package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import io.tandem.jepsen.cluster.NetnsCluster;
import io.tandem.jepsen.cluster.ServerNode;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Jepsen's node specs ({@code jepsen.nemesis.combined/db-nodes}): {@code :one} a random node,
 * {@code :minority} a random {@code majority(n) - 1} nodes, {@code :majority} a random {@code majority(n)},
 * {@code :minority-third} up to but excluding a third, {@code :primaries} a non-empty subset of the
 * current leaders (a random node if none is known), {@code :all} every node; and Tandem's
 * {@code :shard}, every member of one shard of a sharded store (issue 23, derecho.md §5.10: the
 * smallest shard, a random one among equals; at most a minority of the nodes, so the group lives on;
 * a random node if the store reports no shards).
 */
final class Targets {
    private Targets() {}

    static int majority(int n) {
        return n / 2 + 1;
    }

    static int minorityThird(int n) {
        return (n - 1) / 3;
    }

    static List<ServerNode> select(Keyword spec, NetnsCluster cluster, RandomGenerator random) {
        List<ServerNode> nodes = cluster.nodes();
        int n = nodes.size();
        return switch (spec.name()) {
            case "one" -> List.of(nodes.get(random.nextInt(n)));
            case "minority" -> shuffled(nodes, random).subList(0, majority(n) - 1);
            case "majority" -> shuffled(nodes, random).subList(0, majority(n));
            case "minority-third" -> shuffled(nodes, random).subList(0, minorityThird(n));
            case "primaries" -> {
                List<ServerNode> primaries = new ArrayList<>();
                for (String name : cluster.primaries()) primaries.add(cluster.node(name));
                yield primaries.isEmpty() ? List.of(nodes.get(random.nextInt(n))) : nonEmptySubset(primaries, random);
            }
            case "all" -> nodes;
            case "shard" -> wholeShard(cluster, random);
            default -> throw new IllegalArgumentException("unknown node spec " + spec + " (expected :one, :minority, :majority, :minority-third, :primaries, :shard or :all)");
        };
    }

    /** Every member of the smallest shard (ties broken at random), cut to a minority of the nodes. */
    static List<ServerNode> wholeShard(NetnsCluster cluster, RandomGenerator random) {
        List<ServerNode> nodes = cluster.nodes();
        List<List<String>> shards = shuffled(cluster.shards(), random);
        List<String> smallest = null;
        for (List<String> s : shards) if (!s.isEmpty() && (smallest == null || s.size() < smallest.size())) smallest = s;
        if (smallest == null) return List.of(nodes.get(random.nextInt(nodes.size())));
        List<ServerNode> out = new ArrayList<>();
        for (String name : smallest) {
            if (out.size() < majority(nodes.size()) - 1) out.add(cluster.node(name));
        }
        return out;
    }

    static <T> List<T> shuffled(List<T> items, RandomGenerator random) {
        List<T> out = new ArrayList<>(items);
        for (int i = out.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            T t = out.get(i);
            out.set(i, out.get(j));
            out.set(j, t);
        }
        return out;
    }

    static <T> List<T> nonEmptySubset(List<T> items, RandomGenerator random) {
        List<T> s = shuffled(items, random);
        return s.subList(0, 1 + random.nextInt(s.size()));
    }
}
