package io.tandem.jepsen.nemesis;

import io.tandem.history.Keyword;
import io.tandem.jepsen.cluster.NetnsCluster;
import io.tandem.jepsen.cluster.ServerNode;
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
 *
 * <p>A grow needs a leader, so a majority of running servers: with {@code --nemesis all} the kill
 * package's {@code :all} target leaves no server running for a whole kill-start interval (issue 16: every
 * grow of a 60 s run fell into such a window, one 5 s attempt each, so the removed node never came back
 * and membership stopped churning). While fewer than a majority run, a grow is deferred (recorded, and
 * tried again a second later); once they run, it retries the add until the cluster has a leader again.
 */
final class MemberPackage implements FaultPackage {
    private static final Duration GROW_WITHIN = Duration.ofSeconds(20);
    private final NetnsCluster cluster;
    private String removed;
    private boolean learner;
    private boolean deferred;

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
        deferred = false;
        if (removed == null) return Keyword.of("no-change");
        if (!majorityRunning()) {
            deferred = true;
            return List.of(Keyword.of("deferred"), removed, "fewer than a majority of servers are running");
        }
        // A leader may still be being elected (servers just restarted, a partition just healed): keep asking,
        // the add first, then the promotion, which is refused until the learner has caught up.
        long deadline = System.nanoTime() + GROW_WITHIN.toNanos();
        String last = "";
        while (System.nanoTime() < deadline && majorityRunning()) {
            try {
                if (!learner) {
                    addLearner();
                    learner = true;
                }
                cluster.changeMembership(MembershipChange.PROMOTE, removed);
                return added();
            } catch (RuntimeException e) {
                last = String.valueOf(e.getMessage());
                if (learner && last.contains("is not a learner")) return added(); // it is a voter already
                Thread.sleep(500); // retry pacing of a request the cluster could not take yet
            }
        }
        if (!majorityRunning()) deferred = true;
        return List.of(Keyword.of("error"), "could not " + (learner ? "promote " : "add back as a learner ") + removed + " within " + GROW_WITHIN + ": " + last);
    }

    @Override
    public boolean deferred() {
        return deferred;
    }

    private void addLearner() {
        try {
            cluster.changeMembership(MembershipChange.ADD_LEARNER, removed);
        } catch (RuntimeException e) {
            // "already a member": the removal never happened, or an earlier add did; either way it is in.
            if (!String.valueOf(e.getMessage()).contains("is already a member")) throw e;
        }
    }

    private boolean majorityRunning() {
        long running = cluster.nodes().stream().filter(n -> n.state() == ServerNode.State.RUNNING).count();
        return running > cluster.nodes().size() / 2;
    }

    private Object added() {
        Map<Object, Object> out = new LinkedHashMap<>();
        out.put(Keyword.of("added"), removed);
        removed = null;
        learner = false;
        return out;
    }
}
