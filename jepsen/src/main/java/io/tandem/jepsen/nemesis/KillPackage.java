package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import io.tandem.jepsen.cluster.NetnsCluster;
import io.tandem.jepsen.cluster.ServerNode;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/** {@code :kill} (SIGKILL of the targets) and {@code :start} (restart every stopped node on its data). */
final class KillPackage implements FaultPackage {
    private static final Keyword KILLED = Keyword.of("killed");
    private static final Keyword STARTED = Keyword.of("started");
    private final NetnsCluster cluster;
    private final List<Keyword> targets;
    private boolean active;

    KillPackage(NetnsCluster cluster, List<Keyword> targets) {
        this.cluster = cluster;
        this.targets = targets;
    }

    @Override
    public FaultKind kind() {
        return FaultKind.KILL;
    }

    @Override
    public Keyword startF() {
        return Keyword.of("kill");
    }

    @Override
    public Keyword stopF() {
        return Keyword.of("start");
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
            n.kill();
            out.put(n.name(), KILLED);
        }
        return out;
    }

    @Override
    public Object stopValue() {
        return Keyword.of("all");
    }

    @Override
    public Object stop() {
        Map<String, Object> out = new TreeMap<>();
        for (ServerNode n : cluster.nodes()) {
            if (n.state() == ServerNode.State.STOPPED) {
                n.start();
                out.put(n.name(), STARTED);
            }
        }
        active = false;
        return out;
    }
}
