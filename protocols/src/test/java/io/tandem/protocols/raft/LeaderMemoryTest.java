package io.tandem.protocols.raft;

import static io.tandem.protocols.raft.RaftCluster.MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import org.junit.jupiter.api.Test;

/**
 * DESIGN §3 and the memory part of the security issue: a follower stopped (as by SIGSTOP) under steady
 * load costs the leader no more memory than the configuration's caps, by the engine's own accounting
 * ({@link RaftEngine#retainedMemory()}), and the leader gives it back once the follower has caught up.
 */
class LeaderMemoryTest {
    private static final int VALUE_BYTES = 1024;

    @Test
    void aStoppedFollowerCostsTheLeaderNoMoreThanTheCapsAndNothingOnceItCaughtUp() {
        // Caps a fifth of the defaults (so that the run is short), the harness's short timeouts; 1 KiB
        // commands, 2 per millisecond.
        RaftConfig config = RaftCluster.fastConfig().snapshotThreshold(2_000).logRetentionEntries(200).maxUncommitted(2_000, 16L << 20).build();
        RaftCluster c = new RaftCluster(3, config, 41);
        c.payloadBytes = VALUE_BYTES;
        RaftEngine leader = c.awaitLeader();
        NodeId stopped = c.ids.stream().filter(id -> !id.equals(leader.self())).findFirst().orElseThrow();
        for (int i = 0; i < 100; i++) c.writeCommitted();

        long logCap = config.snapshotThreshold() + config.logRetentionEntries() + config.maxUncommittedEntries();
        long inflightBytesCap = (long) config.maxInflightBytes() + config.maxBatchBytes();
        long maxLogEntries = 0, maxLogBytes = 0, maxInflightBytes = 0;
        int maxInflightMessages = 0;
        long stopMs = 6_000;
        c.pause(stopped.value(), stopMs * MS);
        for (int ms = 0; ms < stopMs - 100; ms++) {
            c.write(leader.self());
            c.write(leader.self());
            c.runFor(MS);
            RetainedMemory m = leader.retainedMemory();
            maxLogEntries = Math.max(maxLogEntries, m.logEntries());
            maxLogBytes = Math.max(maxLogBytes, m.logBytes());
            maxInflightMessages = Math.max(maxInflightMessages, m.inflightMessages());
            maxInflightBytes = Math.max(maxInflightBytes, m.inflightBytes());
        }
        assertThat(leader.status().isLeader()).as("the leader kept its leadership while one follower was stopped").isTrue();
        assertThat(leader.commitIndex()).as("the majority kept committing").isGreaterThan(10_000);
        assertThat(leader.baseIndex()).as("the leader compacted past the stopped follower").isGreaterThan(c.engine(stopped.value()).lastIndex());

        // Bounded while the follower is stopped: the retained log by the snapshot threshold, the retention
        // and the uncommitted entries (never by how far the follower is behind: ~12,000 entries here), the
        // in-flight entries by the two followers' windows.
        System.out.printf("leader while a follower was stopped: at most %d log entries (%d bytes), %d messages (%d bytes) in flight; caps %d entries, %d in-flight bytes per follower%n",
                maxLogEntries, maxLogBytes, maxInflightMessages, maxInflightBytes, logCap, inflightBytesCap);
        assertThat(maxLogEntries).as("log entries retained while a follower was stopped").isLessThanOrEqualTo(logCap);
        assertThat(maxLogBytes).isLessThanOrEqualTo(logCap * (VALUE_BYTES + 64));
        assertThat(maxInflightMessages).isLessThanOrEqualTo(2 * config.maxInflightMessages());
        assertThat(maxInflightBytes).isLessThanOrEqualTo(2 * inflightBytesCap);

        // The follower resumes and catches up (by a snapshot: its entries are gone); the load stops.
        assertThat(c.runUntil(() -> c.engine(stopped.value()).commitIndex() >= leader.commitIndex() - 10, 10_000 * MS))
                .as("the stopped follower caught up").isTrue();
        c.runFor(1_000 * MS);
        RetainedMemory after = leader.retainedMemory();
        assertThat(after.inflightMessages()).as("nothing in flight after catch-up").isZero();
        assertThat(after.inflightBytes()).isZero();
        assertThat(after.pendingReads()).isZero();
        assertThat(after.logEntries()).as("log back within a snapshot's worth").isLessThanOrEqualTo(config.snapshotThreshold() + config.logRetentionEntries());
        assertThat(c.violations).isEmpty();
        c.checkLogMatching();
        assertThat(c.checkHistory()).isEmpty();
    }
}
