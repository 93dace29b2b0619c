package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Partition specs to grudges (Jepsen's {@code jepsen.nemesis.combined/grudge}): a grudge maps each node
 * to the nodes whose packets it drops. Nodes are 1-based indexes.
 *
 * <ul>
 *   <li>{@code :one}: one random node cut off from the rest, both ways;</li>
 *   <li>{@code :majority}: random halves, smaller half first (Jepsen's bisect of a shuffle);</li>
 *   <li>{@code :minority-third}: up to but excluding a third of the nodes against the rest;</li>
 *   <li>{@code :majorities-ring}: the nodes in a random ring, each seeing the majority centred on
 *       itself, so every node sees a majority and no two see the same one;</li>
 *   <li>{@code :one-way}: one random node hears nobody, while everybody still hears it;</li>
 *   <li>{@code :primaries}: a non-empty subset of the leaders, each alone (a random node when there is none).</li>
 * </ul>
 */
public final class Grudges {
    private Grudges() {}

    public static Map<Integer, Set<Integer>> of(Keyword spec, int n, Supplier<List<Integer>> primaries, RandomGenerator random) {
        List<Integer> nodes = new ArrayList<>();
        for (int i = 1; i <= n; i++) nodes.add(i);
        return switch (spec.name()) {
            case "one" -> {
                int loner = nodes.get(random.nextInt(n));
                yield complete(List.of(List.of(loner), without(nodes, List.of(loner))));
            }
            case "majority" -> {
                List<Integer> s = Targets.shuffled(nodes, random);
                yield complete(List.of(s.subList(0, n / 2), s.subList(n / 2, n)));
            }
            case "minority-third" -> {
                List<Integer> s = Targets.shuffled(nodes, random);
                int k = Targets.minorityThird(n);
                yield complete(List.of(s.subList(0, k), s.subList(k, n)));
            }
            case "majorities-ring" -> majoritiesRing(Targets.shuffled(nodes, random));
            case "one-way" -> {
                int deaf = nodes.get(random.nextInt(n));
                Map<Integer, Set<Integer>> g = new TreeMap<>();
                g.put(deaf, new TreeSet<>(without(nodes, List.of(deaf))));
                yield g;
            }
            case "primaries" -> {
                List<Integer> p = primaries.get();
                List<Integer> chosen = p.isEmpty() ? List.of(nodes.get(random.nextInt(n))) : Targets.nonEmptySubset(p, random);
                List<Collection<Integer>> components = new ArrayList<>();
                components.add(without(nodes, chosen));
                for (int c : chosen) components.add(List.of(c));
                yield complete(components);
            }
            default -> throw new IllegalArgumentException("unknown partition spec " + spec
                    + " (expected :one, :majority, :minority-third, :majorities-ring, :one-way or :primaries)");
        };
    }

    /** Jepsen's complete-grudge: no node talks to any node outside its component. */
    static Map<Integer, Set<Integer>> complete(List<? extends Collection<Integer>> components) {
        Set<Integer> universe = new TreeSet<>();
        for (Collection<Integer> c : components) universe.addAll(c);
        Map<Integer, Set<Integer>> g = new TreeMap<>();
        for (Collection<Integer> c : components) {
            for (int node : c) {
                Set<Integer> others = new TreeSet<>(universe);
                others.removeAll(c);
                g.put(node, others);
            }
        }
        return g;
    }

    /** Each node of the ring sees the window of majority(n) nodes centred on it and drops the rest. */
    static Map<Integer, Set<Integer>> majoritiesRing(List<Integer> ring) {
        int n = ring.size();
        int m = Targets.majority(n);
        Map<Integer, Set<Integer>> g = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            Set<Integer> sees = new TreeSet<>();
            for (int d = -(m - 1) / 2; d <= m / 2; d++) sees.add(ring.get(Math.floorMod(i + d, n)));
            Set<Integer> drops = new TreeSet<>(ring);
            drops.removeAll(sees);
            g.put(ring.get(i), drops);
        }
        return g;
    }

    private static List<Integer> without(List<Integer> all, Collection<Integer> removed) {
        List<Integer> out = new ArrayList<>(all);
        out.removeAll(removed);
        return out;
    }
}
