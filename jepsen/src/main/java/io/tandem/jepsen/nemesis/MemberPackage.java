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
        // From here on the node may be out: a removal whose answer was lost may still have been committed, so
        // the next grow brings it back whatever happened (adding a member that is still in is recognised).
        removed = node;
        learner = false;
        try {
            cluster.changeMembership(MembershipChange.REMOVE, node);
        } catch (RuntimeException e) {
            String m = String.valueOf(e.getMessage());
            if (!m.contains("is not a member")) return List.of(Keyword.of("maybe-removed"), node, m);
        }
        return Map.of(Keyword.of("removed"), node);
    }

    @Override
    public Object stop() throws InterruptedException {
        if (removed == null) return Keyword.of("no-change");
        if (!learner) {
            try {
                cluster.changeMembership(MembershipChange.ADD_LEARNER, removed);
            } catch (RuntimeException e) {
                // "already a member": the removal never happened, or an earlier add did; either way it is in.
                if (!String.valueOf(e.getMessage()).contains("is already a member")) {
                    return List.of(Keyword.of("error"), "could not add " + removed + " back as a learner: " + e.getMessage());
                }
            }
            learner = true;
        }
        // Promotion is refused until the learner has caught up; keep asking for a while.
        long deadline = System.nanoTime() + PROMOTE_WITHIN.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                cluster.changeMembership(MembershipChange.PROMOTE, removed);
                return added();
            } catch (RuntimeException e) {
                last = String.valueOf(e.getMessage());
                if (last.contains("is not a learner")) return added(); // it is a voter already
                Thread.sleep(500); // retry pacing of a request the leader refused for now
            }
        }
        return List.of(Keyword.of("error"), "could not promote " + removed + " within " + PROMOTE_WITHIN + ": " + last);
    }

    private Object added() {
        Map<Object, Object> out = new LinkedHashMap<>();
        out.put(Keyword.of("added"), removed);
        removed = null;
        learner = false;
        return out;
    }
}
