package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import io.tandem.jepsen.cluster.NetnsCluster;
import io.tandem.kv.net.MembershipChange;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * Membership changes ({@code :shrink} / {@code :grow}, as Jepsen's etcd member nemesis): shrink asks the
 * leader to remove a random voter (its process keeps running, outside the group); grow adds it back as a
 * learner and promotes it once it has caught up. One node is out at a time. Only engines whose server
 * offers membership changes (Raft) get this package.
 */
final class MemberPackage implements FaultPackage {
    private static final Duration PROMOTE_WITHIN = Duration.ofSeconds(20);
    private final NetnsCluster cluster;
    private String removed;
    private boolean learner;

    MemberPackage(NetnsCluster cluster) {
        this.cluster = cluster;
    }

    @Override
    public FaultKind kind() {
        return FaultKind.MEMBER;
    }

    @Override
    public Keyword startF() {
        return Keyword.of("shrink");
    }

    @Override
    public Keyword stopF() {
        return Keyword.of("grow");
    }

    @Override
    public boolean active() {
        return removed != null;
    }

    @Override
    public Object startValue(RandomGenerator random) {
        return cluster.nodes().get(random.nextInt(cluster.nodes().size())).name();
    }

    @Override
    public Object start(Object value, RandomGenerator random) {
        String node = (String) value;
        cluster.changeMembership(MembershipChange.REMOVE, node);
        removed = node;
        learner = false;
        return Map.of(Keyword.of("removed"), node);
    }

    @Override
    public Object stop() throws InterruptedException {
        if (removed == null) return Keyword.of("no-change");
        if (!learner) {
            cluster.changeMembership(MembershipChange.ADD_LEARNER, removed);
            learner = true;
        }
        // Promotion is refused until the learner has caught up; keep asking for a while.
        long deadline = System.nanoTime() + PROMOTE_WITHIN.toNanos();
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            try {
                cluster.changeMembership(MembershipChange.PROMOTE, removed);
                Map<Object, Object> out = new LinkedHashMap<>();
                out.put(Keyword.of("added"), removed);
                removed = null;
                learner = false;
                return out;
            } catch (RuntimeException e) {
                last = e;
                Thread.sleep(500); // retry pacing of a request the leader refused for now
            }
        }
        return List.of(Keyword.of("error"), "could not promote " + removed + " within " + PROMOTE_WITHIN + ": " + (last == null ? "" : last.getMessage()));
    }
}
