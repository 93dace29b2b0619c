package io.tandem.protocols.raft;

import static io.tandem.protocols.raft.RaftCluster.MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import io.tandem.engine.Rejection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** ReadIndex (thesis §6.4), leader leases (thesis §6.4.1) and stale reads from any member. */
class ReadsTest {
    @Test
    void aReadIndexReadSeesEveryAcknowledgedWriteWithoutAppendingToTheLog() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().build(), 21);
        RaftEngine leader = c.awaitLeader();
        for (int i = 0; i < 10; i++) c.writeCommitted();
        long last = leader.lastIndex();
        AtomicInteger readRounds = new AtomicInteger();
        c.observer = (from, to, m) -> {
            if (m instanceof RaftMessage.Heartbeat h && h.requestId() != 0) readRounds.incrementAndGet();
        };
        List<RaftCluster.Op> reads = new ArrayList<>();
        for (int i = 0; i < 20; i++) reads.add(c.read(leader.self(), ReadPolicy.LINEARIZABLE));
        assertThat(c.runUntil(() -> reads.stream().allMatch(RaftCluster.Op::ok), 500 * MS)).isTrue();
        assertThat(reads).allMatch(r -> r.value == 10);
        assertThat(leader.lastIndex()).as("no log entry for reads").isEqualTo(last);
        assertThat(readRounds.get()).as("20 reads share heartbeat rounds (2 followers per round)").isLessThan(20 * 2);
    }

    @Test
    void aDeposedLeaderNeverAnswersALinearizableReadWithStaleData() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().build(), 22);
        RaftEngine old = c.awaitLeader();
        c.writeCommitted();
        c.isolate(old.self().value());
        RaftCluster.Op read = c.read(old.self(), ReadPolicy.LINEARIZABLE);
        assertThat(c.runUntil(() -> c.nodes.values().stream().anyMatch(n -> n.engine.role() == RaftEngine.Role.LEADER && !n.id.equals(old.self())), 2_000 * MS)).isTrue();
        RaftEngine fresh = c.nodes.values().stream().filter(n -> n.engine.role() == RaftEngine.Role.LEADER && !n.id.equals(old.self())).findFirst().orElseThrow().engine;
        RaftCluster.Op write = c.write(fresh.self());
        assertThat(c.await(write, 1_000 * MS) && write.ok()).isTrue();
        c.runFor(1_000 * MS);
        assertThat(read.ok()).as("the read cannot be confirmed by a quorum").isFalse();
        assertThat(read.rejection).isInstanceOf(Rejection.Redirect.class);
        assertThat(c.checkHistory()).isEmpty();
    }

    @Test
    void leaseReadsAreServedLocallyAndStopBeforeAnotherLeaderCanExist() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().build(), 23);
        RaftEngine old = c.awaitLeader();
        c.writeCommitted();
        c.runFor(100 * MS);
        AtomicInteger readRounds = new AtomicInteger();
        c.observer = (from, to, m) -> {
            if (m instanceof RaftMessage.Heartbeat h && h.requestId() != 0) readRounds.incrementAndGet();
        };
        RaftCluster.Op local = c.read(old.self(), ReadPolicy.LEASE);
        assertThat(c.await(local, 50 * MS) && local.ok()).isTrue();
        assertThat(readRounds.get()).as("a lease read needs no round trip").isZero();

        // Isolate the leader and keep reading from it with the lease while the others elect and write.
        c.isolate(old.self().value());
        long isolatedAt = c.now();
        List<RaftCluster.Op> leaseReads = new ArrayList<>();
        List<RaftCluster.Op> writes = new ArrayList<>();
        while (c.now() - isolatedAt < 1_500 * MS) {
            leaseReads.add(c.read(old.self(), ReadPolicy.LEASE));
            c.leader().filter(l -> !l.self().equals(old.self())).ifPresent(l -> writes.add(c.write(l.self())));
            c.runFor(5 * MS);
        }
        c.runFor(500 * MS);
        assertThat(leaseReads).as("reads were served from the lease after the isolation").anyMatch(RaftCluster.Op::ok);
        long lastServedAt = leaseReads.stream().filter(RaftCluster.Op::ok).mapToLong(o -> o.invokedAt).max().orElseThrow();
        assertThat(lastServedAt - isolatedAt).as("the lease ended within one election timeout").isLessThan(150 * MS);
        assertThat(writes).anyMatch(RaftCluster.Op::ok);
        assertThat(c.checkHistory()).isEmpty();
    }

    @Test
    void staleReadsAreServedByAnyMemberOnceItAppliedTheRequestedIndex() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().build(), 24);
        RaftEngine leader = c.awaitLeader();
        NodeId follower = c.ids.stream().filter(id -> !id.equals(leader.self())).findFirst().orElseThrow();
        for (int i = 0; i < 5; i++) c.writeCommitted();
        c.runFor(100 * MS);
        RaftCluster.Op read = c.read(follower, ReadPolicy.stale(leader.commitIndex()));
        assertThat(c.await(read, 50 * MS) && read.ok()).isTrue();
        assertThat(read.value).isEqualTo(5);
        c.isolate(follower.value());
        c.writeCommitted();
        RaftCluster.Op ahead = c.read(follower, ReadPolicy.stale(leader.commitIndex()));
        c.runFor(300 * MS);
        assertThat(ahead.completedAt).as("waits until the follower applied the index").isNegative();
        c.heal();
        assertThat(c.await(ahead, 1_000 * MS) && ahead.ok()).isTrue();
        assertThat(ahead.value).isEqualTo(6);
    }

    @Test
    void followersRedirectLinearizableReadsAndCommandsToTheLeader() {
        RaftCluster c = new RaftCluster(3, RaftCluster.fastConfig().build(), 25);
        RaftEngine leader = c.awaitLeader();
        NodeId follower = c.ids.stream().filter(id -> !id.equals(leader.self())).findFirst().orElseThrow();
        RaftCluster.Op read = c.read(follower, ReadPolicy.LINEARIZABLE);
        RaftCluster.Op write = c.write(follower);
        c.runFor(50 * MS);
        assertThat(read.rejection).isEqualTo(Rejection.Redirect.to(leader.self()));
        assertThat(write.rejection).isEqualTo(Rejection.Redirect.to(leader.self()));
    }
}
