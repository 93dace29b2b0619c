package io.tandem.protocols.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Every bound of the config is checked when it is built, and named in the refusal. */
class RaftConfigTest {
    private static void refused(UnaryOperator<RaftConfig.Builder> change, String message) {
        assertThatThrownBy(() -> change.apply(RaftConfig.builder()).build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    @Test
    void theDefaultsAreValidAndTheSmallestValidValuesAreAccepted() {
        assertThat(RaftConfig.builder().build()).isEqualTo(RaftConfig.DEFAULTS);
        RaftConfig tight = RaftConfig.builder().maxInflight(1, 1).maxBatch(1, 1).snapshotThreshold(1).snapshotChunkBytes(1)
                .logRetentionEntries(0).maxUncommitted(1, 1).maxPendingReads(1).detector(Duration.ofMillis(1), 8).build();
        assertThat(tight.maxInflightMessages()).isEqualTo(1);
        assertThat(tight.logRetentionEntries()).isZero();
    }

    @Test
    void eachBoundIsRefusedByName() {
        refused(b -> b.maxInflight(0, 1), "maxInflightMessages must be >= 1, was 0");
        refused(b -> b.maxInflight(1, 0), "maxInflightBytes must be >= 1, was 0");
        refused(b -> b.maxBatch(0, 1), "maxBatchEntries must be >= 1, was 0");
        refused(b -> b.maxBatch(1, 0), "maxBatchBytes must be >= 1, was 0");
        refused(b -> b.snapshotThreshold(0), "snapshotThreshold must be >= 1, was 0");
        refused(b -> b.snapshotChunkBytes(0), "snapshotChunkBytes must be >= 1, was 0");
        refused(b -> b.logRetentionEntries(-1), "logRetentionEntries must be >= 0, was -1");
        refused(b -> b.maxUncommitted(0, 1), "maxUncommittedEntries must be >= 1, was 0");
        refused(b -> b.maxUncommitted(1, 0), "maxUncommittedBytes must be >= 1, was 0");
        refused(b -> b.maxPendingReads(0), "maxPendingReads must be >= 1, was 0");
        refused(b -> b.detector(Duration.ofMillis(100), 7), "quorumHistoryWindow must be >= 8, was 7");
        refused(b -> b.electionTimeout(Duration.ofMillis(500), Duration.ofMillis(500)), "electionTimeoutMax (PT0.5S) must be greater than electionTimeoutMin (PT0.5S)");
        refused(b -> b.electionTimeout(Duration.ofMillis(150), Duration.ofMillis(300)), "must be at most half of electionTimeoutMin");
        refused(b -> b.maxClockDrift(Duration.ofSeconds(1)), "maxClockDrift must be in [0, electionTimeoutMin)");
        refused(b -> b.resendInterval(Duration.ZERO), "resendInterval must be positive");
    }
}
