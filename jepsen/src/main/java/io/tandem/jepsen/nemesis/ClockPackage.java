package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import io.tandem.jepsen.cluster.NetnsCluster;
import io.tandem.jepsen.cluster.ServerNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * Clock skew ({@code :bump-clock} / {@code :reset-clock}). Namespaces share the host's clocks, so
 * Jepsen's clock nemesis would move every node and the runner; instead each target's engine clock is
 * offset through the server's admin request (the clock every timer, lease and timeout of the engine
 * reads). The completion maps each node to its offset in milliseconds, as Jepsen's does.
 */
final class ClockPackage implements FaultPackage {
    private final NetnsCluster cluster;
    private final List<Keyword> targets;
    private final long maxOffsetMillis;
    private boolean active;

    ClockPackage(NetnsCluster cluster, List<Keyword> targets, Duration maxOffset) {
        this.cluster = cluster;
        this.targets = targets;
        this.maxOffsetMillis = Math.max(1, maxOffset.toMillis());
    }

    @Override
    public FaultKind kind() {
        return FaultKind.CLOCK;
    }

    @Override
    public Keyword startF() {
        return Keyword.of("bump-clock");
    }

    @Override
    public Keyword stopF() {
        return Keyword.of("reset-clock");
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
            long offset = random.nextLong(-maxOffsetMillis, maxOffsetMillis + 1);
            Object r = Nodes.attempt(() -> cluster.setClockOffset(n, Duration.ofMillis(offset)), offset);
            out.put(n.name(), r);
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
        boolean allReset = true;
        for (ServerNode n : cluster.nodes()) {
            if (n.state() == ServerNode.State.PAUSED) {
                allReset = false; // it keeps its setting until a later stop reaches it
                continue;
            }
            if (n.state() != ServerNode.State.RUNNING) continue; // a restarted process starts without it
            Object r = Nodes.attempt(() -> cluster.setClockOffset(n, Duration.ZERO), 0L);
            allReset &= !(r instanceof List);
            out.put(n.name(), r);
        }
        active = !allReset;
        return out;
    }
}
