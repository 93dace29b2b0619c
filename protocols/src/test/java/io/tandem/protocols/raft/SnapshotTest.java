package io.tandem.protocols.raft;

import static io.tandem.protocols.raft.RaftCluster.MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Snapshots and log compaction (§7): chunked InstallSnapshot, catch-up, recovery after a restart. */
class SnapshotTest {
    private static RaftConfig config() {
        return RaftCluster.fastConfig().snapshotThreshold(50).logRetentionEntries(10).snapshotChunkBytes(100).build();
    }

    @Test
    void aFollowerFarBehindCatchesUpFromASnapshotInChunksWhileTheLeaderKeepsCommitting() {
        RaftCluster c = new RaftCluster(3, config(), 31);
        RaftEngine leader = c.awaitLeader();
        NodeId behind = c.ids.stream().filter(id -> !id.equals(leader.self())).findFirst().orElseThrow();
        c.crash(behind.value());
        for (int i = 0; i < 300; i++) c.writeCommitted();
        assertThat(leader.baseIndex()).as("the leader compacted its log").isGreaterThan(200);
        assertThat(c.node(leader.self().value()).snapshotsTaken).isGreaterThanOrEqualTo(5);

        AtomicInteger chunks = new AtomicInteger();
        c.observer = (from, to, m) -> {
            if (m instanceof RaftMessage.InstallSnapshot s && to.equals(behind) && s.offset() > 0) chunks.incrementAndGet();
        };
        c.restart(behind.value());
        long latencySum = 0;
        for (int i = 0; i < 50; i++) {
            RaftCluster.Op op = c.writeCommitted();
            latencySum += op.completedAt - op.invokedAt;
        }
        assertThat(c.runUntil(() -> c.engine(behind.value()).commitIndex() == leader.commitIndex(), 2_000 * MS)).isTrue();
        assertThat(chunks.get()).as("the snapshot came in several chunks").isPositive();
        assertThat(c.engine(behind.value()).baseIndex()).isGreaterThan(200);
        assertThat(latencySum / 50 / MS).as("mean write latency during the catch-up, ms").isLessThan(10);
        assertThat(c.runUntil(() -> c.node(behind.value()).applied == c.node(leader.self().value()).applied, 100 * MS)).isTrue();
        assertThat(c.node(behind.value()).state).hasSize(c.node(leader.self().value()).state.size());
        c.checkLogMatching();
        assertThat(c.violations).isEmpty();
        assertThat(c.checkHistory()).isEmpty();
    }

    @Test
    void theWholeGroupRestartsFromSnapshotsAndCompactedLogs() {
        RaftCluster c = new RaftCluster(3, config(), 32);
        c.awaitLeader();
        for (int i = 0; i < 180; i++) c.writeCommitted();
        c.runFor(200 * MS);
        for (NodeId id : c.ids) c.crash(id.value());
        for (NodeId id : c.ids) c.restart(id.value());
        for (NodeId id : c.ids) assertThat(c.engine(id.value()).baseIndex()).isPositive();
        RaftEngine leader = c.awaitLeader();
        c.writeCommitted();
        RaftCluster.Op read = c.read(leader.self(), ReadPolicy.LINEARIZABLE);
        assertThat(c.await(read, 500 * MS) && read.ok()).isTrue();
        assertThat(read.value).isEqualTo(181);
        c.runFor(300 * MS);
        c.checkLogMatching();
        assertThat(c.violations).isEmpty();
        assertThat(c.checkHistory()).isEmpty();
    }
}
