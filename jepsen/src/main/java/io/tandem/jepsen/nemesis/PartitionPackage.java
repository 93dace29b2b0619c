package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import io.tandem.jepsen.cluster.NetnsCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.random.RandomGenerator;

/** Network partitions with iptables in the node namespaces ({@code :start-partition} / {@code :stop-partition}). */
final class PartitionPackage implements FaultPackage {
    private final NetnsCluster cluster;
    private final List<Keyword> targets;
    private boolean active;

    PartitionPackage(NetnsCluster cluster, List<Keyword> targets) {
        this.cluster = cluster;
        this.targets = targets;
    }

    @Override
    public FaultKind kind() {
        return FaultKind.PARTITION;
    }

    @Override
    public Keyword startF() {
        return Keyword.of("start-partition");
    }

    @Override
    public Keyword stopF() {
        return Keyword.of("stop-partition");
    }

    @Override
    public boolean active() {
        return active;
    }

    @Override
    public Object startValue(RandomGenerator random) {
        return targets.get(random.nextInt(targets.size()));
    }

    @Override
    public Object start(Object value, RandomGenerator random) {
        Map<Integer, Set<Integer>> grudge = Grudges.of((Keyword) value, cluster.nodes().size(), () -> {
            List<Integer> p = new ArrayList<>();
            for (String name : cluster.primaries()) p.add(cluster.node(name).index());
            return p;
        }, random);
        active = true;
        cluster.network().partition(grudge);
        Map<String, Set<String>> named = new TreeMap<>();
        grudge.forEach((node, drops) -> {
            Set<String> names = new TreeSet<>();
            for (int d : drops) names.add(cluster.node(d).name());
            if (!names.isEmpty()) named.put(cluster.node(node).name(), names);
        });
        return List.of(Keyword.of("isolated"), named);
    }

    @Override
    public Object stop() {
        cluster.network().heal();
        active = false;
        return Keyword.of("network-healed");
    }
}
