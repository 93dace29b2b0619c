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

    @Test
    void engineOptionsSetThePipelineAndBatchLimitsAndRefuseBadValuesByName() {
        RaftProtocol p = new RaftProtocol();
        RaftProtocol tuned = p.withEngineOptions(java.util.Map.of("max-inflight-messages", "4", "max-inflight-bytes", "65536",
                "max-batch-entries", " 64 ", "max-batch-bytes", String.valueOf(RaftProtocol.MAX_BATCH_BYTES_OPTION)));
        RaftConfig c = tuned.config();
        assertThat(c.maxInflightMessages()).isEqualTo(4);
        assertThat(c.maxInflightBytes()).isEqualTo(65_536);
        assertThat(c.maxBatchEntries()).isEqualTo(64);
        assertThat(c.maxBatchBytes()).isEqualTo(RaftProtocol.MAX_BATCH_BYTES_OPTION);
        assertThat(c.toBuilder().maxInflight(32, 4 << 20).maxBatch(1024, 256 << 10).build()).as("nothing else changed").isEqualTo(RaftConfig.DEFAULTS);
        assertThat(p.withEngineOptions(java.util.Map.of())).isSameAs(p);
        // One option leaves its partner field as it was.
        assertThat(p.withEngineOptions(java.util.Map.of("max-inflight-messages", "2")).config().maxInflightBytes()).isEqualTo(RaftConfig.DEFAULTS.maxInflightBytes());
        // The slowness check of a variant is kept (withConfig), as withHostSettings keeps it.
        RaftProtocol checking = p.checkingSlowness();
        assertThat(checking.withEngineOptions(java.util.Map.of("max-batch-entries", "8")).invariants()).hasSize(checking.invariants().size());

        assertThatThrownBy(() -> p.withEngineOptions(java.util.Map.of("max-batch-slots", "1"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown raft engine option 'max-batch-slots' (known: max-inflight-messages, max-inflight-bytes, max-batch-entries, max-batch-bytes)");
        assertThatThrownBy(() -> p.withEngineOptions(java.util.Map.of("max-inflight-messages", "0"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("engine option max-inflight-messages=0: maxInflightMessages must be >= 1, was 0");
        assertThatThrownBy(() -> p.withEngineOptions(java.util.Map.of("max-batch-entries", "-3"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max-batch-entries=-3: maxBatchEntries must be >= 1");
        assertThatThrownBy(() -> p.withEngineOptions(java.util.Map.of("max-inflight-bytes", "4MiB"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max-inflight-bytes=4MiB: not a whole number");
        assertThatThrownBy(() -> p.withEngineOptions(java.util.Map.of("max-batch-bytes", String.valueOf(RaftProtocol.MAX_BATCH_BYTES_OPTION + 1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBatchBytes must be <= " + RaftProtocol.MAX_BATCH_BYTES_OPTION + " (half a transport frame)");
        assertThatThrownBy(() -> p.withEngineOptions(java.util.Map.of("max-inflight-messages", "99999999999"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a whole number");
    }
}
