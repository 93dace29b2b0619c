package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import io.tandem.jepsen.cluster.NetnsCluster;
import io.tandem.jepsen.cluster.ServerNode;
import io.tandem.transport.FaultPlan;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * The slow/flaky network ({@code :start-packet} / {@code :stop-packet}): Jepsen does this with netem;
 * this kernel has none, so each target node's transport fault layer gets a {@link FaultPlan} (delay,
 * jitter, loss, duplication, reordering of its outbound messages) through the server's admin request.
 * A node that is paused or down cannot take the plan; that is recorded per node.
 */
final class PacketPackage implements FaultPackage {
    private final NetnsCluster cluster;
    private final List<Keyword> targets;
    private final List<PacketBehavior> behaviors;
    private boolean active;

    PacketPackage(NetnsCluster cluster, List<Keyword> targets, List<PacketBehavior> behaviors) {
        this.cluster = cluster;
        this.targets = targets;
        this.behaviors = behaviors;
    }

    @Override
    public FaultKind kind() {
        return FaultKind.PACKET;
    }

    @Override
    public Keyword startF() {
        return Keyword.of("start-packet");
    }

    @Override
    public Keyword stopF() {
        return Keyword.of("stop-packet");
    }

    @Override
    public boolean active() {
        return active;
    }

    @Override
    public Object startValue(RandomGenerator random) {
        Map<Object, Object> v = new LinkedHashMap<>();
        v.put(Keyword.of("targets"), targets.get(random.nextInt(targets.size())));
        v.put(Keyword.of("behavior"), random.nextInt(behaviors.size()));
        return v;
    }

    @Override
    public Object start(Object value, RandomGenerator random) {
        Map<?, ?> v = (Map<?, ?>) value;
        PacketBehavior b = behaviors.get(((Number) v.get(Keyword.of("behavior"))).intValue());
        active = true;
        Map<String, Object> out = new TreeMap<>();
        for (ServerNode n : Targets.select((Keyword) v.get(Keyword.of("targets")), cluster, random)) {
            out.put(n.name(), Nodes.attempt(() -> cluster.setFaultPlan(n, b.plan()), b.toEdn()));
        }
        return out;
    }

    @Override
    public Object stop() {
        Map<String, Object> out = new TreeMap<>();
        boolean allHealed = true;
        for (ServerNode n : cluster.nodes()) {
            if (n.state() == ServerNode.State.PAUSED) {
                allHealed = false; // it keeps its setting until a later stop reaches it
                continue;
            }
            if (n.state() != ServerNode.State.RUNNING) continue; // a restarted process starts without it
            Object r = Nodes.attempt(() -> cluster.setFaultPlan(n, FaultPlan.NONE), Keyword.of("healed"));
            allHealed &= !(r instanceof List);
            out.put(n.name(), r);
        }
        active = !allHealed;
        return out;
    }
}
