package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import io.tandem.jepsen.cluster.NetnsCluster;
import io.tandem.jepsen.cluster.ServerNode;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/** {@code :pause} (SIGSTOP of the targets) and {@code :resume} (SIGCONT of every paused node). */
final class PausePackage implements FaultPackage {
    private static final Keyword PAUSED = Keyword.of("paused");
    private static final Keyword RESUMED = Keyword.of("resumed");
    private final NetnsCluster cluster;
    private final List<Keyword> targets;
    private boolean active;

    PausePackage(NetnsCluster cluster, List<Keyword> targets) {
        this.cluster = cluster;
        this.targets = targets;
    }

    @Override
    public FaultKind kind() {
        return FaultKind.PAUSE;
    }

    @Override
    public Keyword startF() {
        return Keyword.of("pause");
    }

    @Override
    public Keyword stopF() {
        return Keyword.of("resume");
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
            if (n.state() != ServerNode.State.RUNNING) {
                out.put(n.name(), Keyword.of(n.state().name().toLowerCase(java.util.Locale.ROOT)));
                continue;
            }
            n.pause();
            out.put(n.name(), PAUSED);
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
            if (n.state() == ServerNode.State.PAUSED) {
                n.resume();
                out.put(n.name(), RESUMED);
            }
        }
        active = false;
        return out;
    }
}
