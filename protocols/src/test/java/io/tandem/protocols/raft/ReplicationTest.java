package io.tandem.protocols.raft;

import static io.tandem.protocols.raft.RaftCluster.MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.engine.RequestIds;
import io.tandem.protocols.failslow.SlownessDetector;
import io.tandem.protocols.testing.TestMeters;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Log replication (§5.3): pipelining, batching, backtracking, and the fail-slow rules of DESIGN §3. */
class ReplicationTest {
    private static NodeId follower(RaftCluster c, RaftEngine leader, int i) {
        return c.ids.stream().filter(id -> !id.equals(leader.self())).toList().get(i);
    }

    @Test
    void aBurstIsPipelinedAndBatchedWithinTheWindow() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().maxInflight(4, 1 << 20).maxBatch(64, 1 << 20).build(), 11);
        RaftEngine leader = c.awaitLeader();
        NodeId f = follower(c, leader, 0);
        AtomicInteger appends = new AtomicInteger();
        AtomicInteger maxBatch = new AtomicInteger();
        AtomicInteger maxInflight = new AtomicInteger();
        c.observer = (from, to, m) -> {
            if (from.id.equals(leader.self()) && to.equals(f) && m instanceof RaftMessage.AppendEntries a && !a.entries().isEmpty()) {
                appends.incrementAndGet();
                maxBatch.accumulateAndGet(a.entries().size(), Math::max);
                maxInflight.accumulateAndGet(leader.inflightMessages().getOrDefault(f, 0) + 1, Math::max);
            }
        };
        List<RaftCluster.Op> ops = new ArrayList<>();
        for (int i = 0; i < 300; i++) ops.add(c.write(leader.self()));
        assertThat(c.runUntil(() -> ops.stream().allMatch(RaftCluster.Op::ok), 2_000 * MS)).isTrue();
        assertThat(maxInflight.get()).as("several AppendEntries in flight").isGreaterThan(1).isLessThanOrEqualTo(4);
        assertThat(maxBatch.get()).as("entries batched per message").isGreaterThan(1);
        assertThat(appends.get()).isLessThan(300);
        assertThat(c.checkHistory()).isEmpty();
    }

    @Test
    void everyMessageNamesTheClientRequestThatCausedItOrIsBackground() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().build(), 12);
        List<String> problems = new ArrayList<>();
        AtomicLong clientTagged = new AtomicLong();
        c.observer = (from, to, m) -> {
            switch (m) {
                case RaftMessage.AppendEntries a when a.requestId() != RequestIds.BACKGROUND -> {
                    clientTagged.incrementAndGet();
                    if (a.entries().isEmpty() || EntryPayload.requestIdOf(a.entries().getFirst().payload()) != a.requestId()) problems.add("mis-tagged " + a);
                }
                case RaftMessage.AppendEntriesResponse r -> { } // echoes the request it answers
                case RaftMessage.Heartbeat h -> { } // background, or the read that asked for the round
                case RaftMessage.HeartbeatResponse h -> { }
                default -> {
                    if (m.requestId() != RequestIds.BACKGROUND) problems.add("unexpected request id on " + m);
                }
            }
        };
        c.awaitLeader();
        for (int i = 0; i < 50; i++) c.writeCommitted();
        assertThat(problems).isEmpty();
        assertThat(clientTagged.get()).isPositive();
    }

    /** Figure 7 style divergence: a deposed leader's long uncommitted suffix is found in a few round trips, not one per entry. */
    @Test
    void conflictingSuffixesAreSkippedATermAtATime() {
        RaftCluster c = new RaftCluster(5, RaftCluster.fastConfig().build(), 13);
        RaftEngine old = c.awaitLeader();
        for (int i = 0; i < 5; i++) c.writeCommitted();
        String oldId = old.self().value();
        c.isolate(oldId);
        for (int i = 0; i < 60; i++) c.write(oldId); // appended by the isolated leader, never committed
        c.runFor(10 * MS);
        assertThat(old.lastIndex()).isGreaterThan(old.commitIndex() + 50);
        assertThat(c.runUntil(() -> c.nodes.values().stream().anyMatch(n -> !n.id.value().equals(oldId) && n.engine.role() == RaftEngine.Role.LEADER), 3_000 * MS)).isTrue();
        RaftEngine fresh = c.nodes.values().stream().filter(n -> !n.id.value().equals(oldId) && n.engine.role() == RaftEngine.Role.LEADER).findFirst().orElseThrow().engine;
        for (int i = 0; i < 10; i++) {
            RaftCluster.Op op = c.write(fresh.self());
            assertThat(c.await(op, 1_000 * MS) && op.ok()).isTrue();
        }
        AtomicInteger rejections = new AtomicInteger();
        c.observer = (from, to, m) -> {
            if (from.id.value().equals(oldId) && m instanceof RaftMessage.AppendEntriesResponse r && !r.success()) rejections.incrementAndGet();
        };
        c.heal();
        assertThat(c.runUntil(() -> old.commitIndex() == fresh.commitIndex() && old.lastIndex() == fresh.lastIndex(), 3_000 * MS)).isTrue();
        assertThat(rejections.get()).as("rejections while backtracking 60 conflicting entries").isLessThanOrEqualTo(3);
        c.checkLogMatching();
        assertThat(c.violations).isEmpty();
        assertThat(c.checkHistory()).isEmpty();
    }

    private static double meanWriteLatencyMs(RaftCluster c, int writes) {
        long total = 0;
        for (int i = 0; i < writes; i++) {
            RaftCluster.Op op = c.writeCommitted();
            total += op.completedAt - op.invokedAt;
        }
        return total / (double) writes / MS;
    }

    @Test
    void aSlowFollowerCostsTheLeaderNothingAndNothingQueuesForIt() {
        RaftConfig config = RaftCluster.fastConfig().maxInflight(8, 1 << 20).build();
        RaftCluster healthy = new RaftCluster(3, config, 14);
        healthy.awaitLeader();
        double baseline = meanWriteLatencyMs(healthy, 200);

        RaftCluster c = new RaftCluster(3, config, 14);
        RaftEngine leader = c.awaitLeader();
        NodeId slow = follower(c, leader, 0);
        c.slowNode.put(slow, 100 * MS); // every message to or from it takes 100 ms longer
        AtomicInteger maxInflight = new AtomicInteger();
        c.observer = (from, to, m) -> maxInflight.accumulateAndGet(leader.inflightMessages().getOrDefault(slow, 0), Math::max);
        double withSlowFollower = meanWriteLatencyMs(c, 200);
        assertThat(withSlowFollower).as("mean write latency %.2f ms vs %.2f ms healthy", withSlowFollower, baseline).isLessThan(baseline * 1.5 + 0.5);
        assertThat(maxInflight.get()).isLessThanOrEqualTo(8);
        assertThat(c.node(leader.self().value()).meters.warnings(SlownessDetector.OUTBOX_OVER_CAP)).isZero();
        c.slowNode.clear();
        assertThat(c.runUntil(() -> leader.matchIndexes().get(slow) == leader.lastIndex(), 2_000 * MS)).as("catches up afterwards").isTrue();

        // Control: the variant that waits for every follower pays the slow follower's delay on every write.
        RaftCluster broken = new RaftCluster(3, config, 14, BrokenRaft.Bug.WAIT_FOR_ALL_FOLLOWERS);
        RaftEngine bl = broken.awaitLeader();
        broken.slowNode.put(follower(broken, bl, 0), 100 * MS);
        assertThat(meanWriteLatencyMs(broken, 20)).isGreaterThan(150);
    }

    @Test
    void theLeadersOwnWriteCountsOnlyOnceDurable() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().build(), 15);
        RaftEngine leader = c.awaitLeader();
        c.crash(follower(c, leader, 0).value());
        c.slowDisk.put(leader.self(), 80 * MS);
        RaftCluster.Op op = c.writeCommitted();
        assertThat(op.completedAt - op.invokedAt).as("the quorum is the leader and one follower: it needs the leader's disk").isGreaterThanOrEqualTo(80 * MS);

        // With both followers up, the followers form the quorum and the slow leader disk is not waited for.
        c.restart(follower(c, leader, 0).value());
        c.runFor(500 * MS);
        RaftCluster.Op fast = c.writeCommitted();
        assertThat(fast.completedAt - fast.invokedAt).isLessThan(20 * MS);
    }

    @Test
    void aPausedFollowerGetsOneProbePerResendIntervalAndNoDataIsResent() {
        RaftConfig config = RaftCluster.fastConfig().maxInflight(4, 1 << 20).build();
        RaftCluster c = new RaftCluster(3, config, 16);
        RaftEngine leader = c.awaitLeader();
        NodeId paused = follower(c, leader, 0);
        List<long[]> dataSent = new ArrayList<>();
        AtomicInteger emptyProbes = new AtomicInteger();
        c.observer = (from, to, m) -> {
            if (from.id.equals(leader.self()) && to.equals(paused) && m instanceof RaftMessage.AppendEntries a) {
                if (a.entries().isEmpty()) emptyProbes.incrementAndGet();
                else dataSent.add(new long[] {a.prevLogIndex() + 1, a.prevLogIndex() + a.entries().size()});
            }
        };
        c.pause(paused.value(), 3_000 * MS);
        long start = c.now();
        while (c.now() - start < 3_000 * MS) {
            c.write(leader.self());
            c.runFor(5 * MS);
        }
        long sentTwice = dataSent.stream().map(Arrays::toString).distinct().count();
        assertThat(dataSent.size() - sentTwice).as("index ranges sent more than once").isLessThanOrEqualTo(2);
        assertThat(emptyProbes.get()).as("one probe per 60 ms resend interval at most").isLessThanOrEqualTo(3_000 / 60 + 1);
        assertThat(leader.inflightMessages().get(paused)).isLessThanOrEqualTo(4);
        assertThat(c.runUntil(() -> leader.matchIndexes().get(paused) == leader.lastIndex(), 3_000 * MS)).isTrue();
        // The only expected warning: every commit depended on the leader and the other follower (DepFast pattern C).
        assertThat(c.node(leader.self().value()).meters.warnings).extracting(TestMeters.Warning::kind).containsOnly(SlownessDetector.SAME_QUORUM);
        assertThat(c.violations).isEmpty();
    }

    @Test
    void aMinorityPartitionNeverCommitsAndTheMajorityDoes() {
        RaftCluster c = new RaftCluster(5, RaftCluster.fastConfig().build(), 17);
        RaftEngine leader = c.awaitLeader();
        NodeId other = follower(c, leader, 0);
        c.partition(Set.of(leader.self(), other));
        long committed = leader.commitIndex();
        List<RaftCluster.Op> minority = new ArrayList<>();
        for (int i = 0; i < 20; i++) minority.add(c.write(leader.self()));
        c.runFor(200 * MS);
        assertThat(leader.commitIndex()).isEqualTo(committed);
        c.awaitLeader();
        c.heal();
        c.writeCommitted();
        c.runFor(500 * MS);
        assertThat(minority).noneMatch(RaftCluster.Op::ok);
        c.checkLogMatching();
        assertThat(c.violations).isEmpty();
        assertThat(c.checkHistory()).isEmpty();
    }

    @Test
    void aLostAppendIsRepairedWithinOneRoundTripAndALostProbeWithinOneResendInterval() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().build(), 18);
        RaftEngine leader = c.awaitLeader();
        NodeId f = follower(c, leader, 0);
        for (int i = 0; i < 5; i++) c.writeCommitted();
        int[] dropsLeft = {1};
        c.dropIf = (to, m) -> to.equals(f) && m instanceof RaftMessage.AppendEntries a && !a.entries().isEmpty() && dropsLeft[0]-- > 0;
        for (int i = 0; i < 3; i++) c.write(leader.self());
        long start = c.now();
        assertThat(c.runUntil(() -> leader.matchIndexes().get(f) == leader.lastIndex(), 100 * MS)).isTrue();
        assertThat(c.now() - start).as("one lost message: repaired by the rejection of the next one").isLessThan(15 * MS);

        dropsLeft[0] = 2; // the message and the probe sent after the rejection
        for (int i = 0; i < 3; i++) c.write(leader.self());
        start = c.now();
        assertThat(c.runUntil(() -> leader.matchIndexes().get(f) == leader.lastIndex(), 500 * MS)).isTrue();
        assertThat(c.now() - start).as("two lost messages: repaired by the resend timer").isLessThan(60 * MS + 30 * MS + 15 * MS);
        assertThat(c.violations).isEmpty();
    }
}
