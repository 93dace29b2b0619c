package io.tandem.protocols.raft;

import static io.tandem.protocols.raft.RaftCluster.MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Randomized runs on the in-test harness: crashes and restarts, partitions, pauses, loss,
 * duplication, slow nodes and clock offsets while clients write and read, then a heal and a
 * liveness check. Every run checks the Raft safety invariants after each event and the client
 * history at the end. {@code -Draft.seeds=N} runs more seeds.
 */
class RandomizedFaultsTest {
    private static final int SEEDS = Integer.getInteger("raft.seeds", 60);

    @Test
    void safetyAndLivenessUnderFaults() {
        List<String> failures = new ArrayList<>();
        for (long seed = 1; seed <= SEEDS; seed++) {
            String failure = run(seed, null);
            if (failure != null) failures.add(failure);
        }
        assertThat(failures).isEmpty();
    }

    /** One random admin request to the current leader: add or promote a learner, remove a member, or transfer leadership. */
    private static void changeMembership(RaftCluster c, SplittableRandom r) {
        RaftEngine leader = c.leader().orElse(null);
        if (leader == null) return;
        Configuration config = leader.configuration();
        NodeId node = c.ids.get(r.nextInt(c.ids.size()));
        byte[] command;
        if (!config.contains(node)) command = RaftAdmin.addLearner(node);
        else if (config.isLearner(node)) command = r.nextInt(3) == 0 ? RaftAdmin.remove(node) : RaftAdmin.promote(node);
        else if (r.nextInt(4) == 0) command = RaftAdmin.transferLeadership(node);
        else if (config.voters().size() > 2) command = RaftAdmin.remove(node);
        else return;
        c.admin(leader.self().value(), command);
    }

    @Test
    void theCommitWithoutQuorumVariantIsCaught() {
        int caught = 0;
        for (long seed = 1; seed <= 20; seed++) {
            String failure;
            try {
                failure = run(seed, BrokenRaft.Bug.COMMIT_WITHOUT_QUORUM);
            } catch (AssertionError | IllegalStateException e) {
                failure = e.toString(); // e.g. a follower refusing to overwrite an entry it was told was committed
            }
            if (failure != null) caught++;
        }
        assertThat(caught).as("seeds of 20 that caught the broken commit rule").isGreaterThan(0);
    }

    /** Replays one seed: {@code -Draft.seed=N}. */
    @Test
    void replayOneSeed() {
        Long seed = Long.getLong("raft.seed");
        if (seed == null) return;
        String failure = run(seed, System.getProperty("raft.variant", "NONE").equals("NONE") ? null : BrokenRaft.Bug.valueOf(System.getProperty("raft.variant")));
        assertThat(failure).isNull();
    }

    /** @param bug the broken engine to run, or null for the correct one */
    static String run(long seed, BrokenRaft.Bug bug) {
        SplittableRandom r = new SplittableRandom(seed);
        int n = r.nextBoolean() ? 3 : 5;
        boolean snapshots = r.nextBoolean();
        boolean membership = n == 5 && r.nextBoolean();
        RaftConfig.Builder cfg = RaftCluster.fastConfig().maxInflight(8, 1 << 20).maxBatch(16, 64 << 10);
        if (snapshots) cfg.snapshotThreshold(40).logRetentionEntries(r.nextInt(0, 20)).snapshotChunkBytes(64);
        if (membership) cfg.initialVoters(Set.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3")));
        RaftCluster c = new RaftCluster(n, cfg.build(), seed, bug);
        for (NodeId id : c.ids) c.clockOffset.put(id, r.nextLong(0, 5_000 * MS));
        List<String> down = new ArrayList<>();
        long end = c.now() + 5_000 * MS;
        long nextFault = c.now() + r.nextLong(100 * MS, 400 * MS);
        long nextChange = c.now() + r.nextLong(100 * MS, 300 * MS);
        while (c.now() < end) {
            if (membership && c.now() >= nextChange) {
                nextChange = c.now() + r.nextLong(50 * MS, 300 * MS);
                changeMembership(c, r);
            }
            c.runFor(r.nextLong(2 * MS, 15 * MS));
            NodeId target = c.leader().filter(l -> r.nextInt(10) < 8).map(RaftEngine::self).orElse(c.ids.get(r.nextInt(n)));
            int kind = r.nextInt(10);
            if (kind < 6) c.write(target);
            else if (kind < 8) c.read(target, ReadPolicy.LINEARIZABLE);
            else if (kind < 9) c.read(target, ReadPolicy.LEASE);
            else c.read(target, ReadPolicy.stale(r.nextLong(0, 20)));
            if (c.now() >= nextFault) {
                nextFault = c.now() + r.nextLong(100 * MS, 500 * MS);
                String victim = c.ids.get(r.nextInt(n)).value();
                switch (r.nextInt(9)) {
                    case 0, 1 -> {
                        if (!down.contains(victim)) {
                            c.crash(victim);
                            down.add(victim);
                        }
                    }
                    case 2 -> {
                        if (!down.isEmpty()) c.restart(down.remove(r.nextInt(down.size())));
                    }
                    case 3 -> c.isolate(victim);
                    case 4 -> {
                        Set<NodeId> side = new HashSet<>();
                        for (NodeId id : c.ids) if (r.nextBoolean()) side.add(id);
                        c.partition(side);
                    }
                    case 5 -> c.pause(victim, r.nextLong(50 * MS, 600 * MS));
                    case 6 -> {
                        c.lossRate = r.nextDouble() * 0.2;
                        c.duplicateRate = r.nextDouble() * 0.2;
                    }
                    case 7 -> c.slowNode.put(NodeId.of(victim), r.nextLong(10 * MS, 150 * MS));
                    default -> c.heal();
                }
            }
        }
        c.heal();
        for (String d : down) c.restart(d);
        try {
            c.writeCommitted();
            c.writeCommitted();
        } catch (AssertionError e) {
            return "seed " + seed + " (" + (bug == null ? "correct" : bug.protocolName()) + "): no progress after healing\n" + c.describe();
        }
        c.runFor(1_000 * MS);
        c.checkLogMatching();
        List<String> problems = new ArrayList<>(c.violations);
        problems.addAll(c.checkHistory());
        if (problems.isEmpty()) return null;
 return "seed " + seed + " (" + (bug == null ? "correct" : bug.protocolName()) + ", " + n + " nodes, snapshots=" + snapshots + ", membership=" + membership + "): " + problems.subList(0, Math.min(5, problems.size())) + "\n" + c.describe();
    }
}
