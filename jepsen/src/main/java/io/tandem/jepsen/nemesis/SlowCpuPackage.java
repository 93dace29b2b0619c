package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import io.tandem.jepsen.cluster.NetnsCluster;
import io.tandem.jepsen.cluster.ServerNode;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/** A cgroup-v1 CPU quota on the targets ({@code :start-slow-cpu} / {@code :stop-slow-cpu}): a fail-slow node. */
final class SlowCpuPackage implements FaultPackage {
    private final NetnsCluster cluster;
    private final List<Keyword> targets;
    private final int percent;
    private boolean active;

    SlowCpuPackage(NetnsCluster cluster, List<Keyword> targets, int percent) {
        this.cluster = cluster;
        this.targets = targets;
        this.percent = percent;
    }

    @Override
    public FaultKind kind() {
        return FaultKind.SLOW_CPU;
    }

    @Override
    public Keyword startF() {
        return Keyword.of("start-slow-cpu");
    }

    @Override
    public Keyword stopF() {
        return Keyword.of("stop-slow-cpu");
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
        active = true;
        Map<String, Object> out = new TreeMap<>();
        for (ServerNode n : Targets.select((Keyword) value, cluster, random)) {
            cluster.cgroups().limitCpu(n.index(), percent);
            out.put(n.name(), Map.of(Keyword.of("cpu-percent"), (long) percent));
        }
        return out;
    }

    @Override
    public Object stop() {
        for (ServerNode n : cluster.nodes()) cluster.cgroups().unlimitCpu(n.index());
        active = false;
        return Keyword.of("cpu-restored");
    }
}
