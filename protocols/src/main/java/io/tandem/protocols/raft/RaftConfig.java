package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * Every setting of the Raft engine, with validated defaults ({@link #DEFAULTS}). Build variants
 * with {@link #toBuilder()}.
 *
 * @param electionTimeoutMin    lower bound of the randomized election timeout; also the window in which
 *                              a follower that heard from a live leader ignores vote requests, and the
 *                              check-quorum period of a leader
 * @param electionTimeoutMax    upper bound (exclusive) of the randomized election timeout
 * @param heartbeatInterval     how often a leader sends heartbeats; each heartbeat round also confirms
 *                              leadership for ReadIndex and lease reads
 * @param preVote               run a pre-vote before bumping the term (Raft thesis §9.6), so a node that
 *                              cannot win does not disrupt the group
 * @param checkQuorum           a leader that has not heard from a majority within one election timeout
 *                              steps down (Raft thesis §6.2)
 * @param maxInflightMessages   per-follower bound on AppendEntries sent and not yet acknowledged
 * @param maxInflightBytes      per-follower bound on the entry bytes of those messages
 * @param maxBatchBytes         entry bytes per AppendEntries (a single larger entry is still sent alone)
 * @param maxBatchEntries       entries per AppendEntries
 * @param resendInterval        the least time a follower must make no progress before it gets one resend
 *                              (a probe); the actual timeout also adapts to the follower's round trip
 *                              (RFC 6298) and doubles per fruitless resend. Checked on heartbeat ticks.
 * @param commitDeadline        deadline of each commit quorum; an overdue quorum is counted and reported
 * @param snapshotThreshold     take a snapshot after this many entries were applied since the last one
 * @param snapshotChunkBytes    size of one InstallSnapshot chunk
 * @param logRetentionEntries   entries kept in the log behind a snapshot, so a slightly lagging follower
 *                              catches up from the log rather than a snapshot
 * @param maxClockDrift         how much the clocks of two members may drift apart during one minimum
 *                              election timeout; a leader lease lasts {@code electionTimeoutMin - maxClockDrift}
 * @param maxUncommittedEntries admission control: a leader rejects new commands (Overloaded) while this many
 *                              entries wait for a quorum
 * @param maxUncommittedBytes   the same bound in bytes
 * @param maxPendingReads       reads waiting for leadership confirmation; more are rejected (Overloaded)
 * @param initialVoters         the voters of a new group; empty means every member given to the engine.
 *                              Members not listed start as outsiders and join through membership changes.
 * @param detectorInterval      how often the slowness detector samples the per-peer state; also the least
 *                              time a member must stay out of every commit quorum to be reported
 * @param quorumHistoryWindow   the least number of commit quorums a member must stay out of to be reported
 */
public record RaftConfig(
        Duration electionTimeoutMin,
        Duration electionTimeoutMax,
        Duration heartbeatInterval,
        boolean preVote,
        boolean checkQuorum,
        int maxInflightMessages,
        int maxInflightBytes,
        int maxBatchBytes,
        int maxBatchEntries,
        Duration resendInterval,
        Duration commitDeadline,
        long snapshotThreshold,
        int snapshotChunkBytes,
        long logRetentionEntries,
        Duration maxClockDrift,
        int maxUncommittedEntries,
        long maxUncommittedBytes,
        int maxPendingReads,
        Set<NodeId> initialVoters,
        Duration detectorInterval,
        int quorumHistoryWindow) {

    /**
     * Defaults for a LAN: elections after 1-2 s (well above the 400 ms delay of the DepFast slow-network fault,
     * so a slow follower never triggers an election), heartbeats every 100 ms.
     */
    public static final RaftConfig DEFAULTS = new RaftConfig(
            Duration.ofMillis(1000), Duration.ofMillis(2000), Duration.ofMillis(100),
            true, true,
            32, 4 << 20, 256 << 10, 1024,
            Duration.ofMillis(100), Duration.ofMillis(1000),
            10_000, 256 << 10, 1_000,
            Duration.ofMillis(100),
            10_000, 64L << 20, 10_000,
            Set.of(),
            Duration.ofSeconds(1), 256);

    public RaftConfig {
        positive("electionTimeoutMin", electionTimeoutMin);
        positive("electionTimeoutMax", electionTimeoutMax);
        positive("heartbeatInterval", heartbeatInterval);
        positive("resendInterval", resendInterval);
        positive("commitDeadline", commitDeadline);
        positive("detectorInterval", detectorInterval);
        Objects.requireNonNull(maxClockDrift, "maxClockDrift");
        initialVoters = Set.copyOf(Objects.requireNonNull(initialVoters, "initialVoters"));
        if (electionTimeoutMax.compareTo(electionTimeoutMin) <= 0) {
            throw new IllegalArgumentException("electionTimeoutMax (" + electionTimeoutMax + ") must be greater than electionTimeoutMin (" + electionTimeoutMin + ")");
        }
        if (heartbeatInterval.multipliedBy(2).compareTo(electionTimeoutMin) > 0) {
            throw new IllegalArgumentException("heartbeatInterval (" + heartbeatInterval + ") must be at most half of electionTimeoutMin (" + electionTimeoutMin
                    + "), or followers start elections while the leader is healthy");
        }
        if (maxClockDrift.isNegative() || maxClockDrift.compareTo(electionTimeoutMin) >= 0) {
            throw new IllegalArgumentException("maxClockDrift must be in [0, electionTimeoutMin), was " + maxClockDrift);
        }
        atLeast("maxInflightMessages", maxInflightMessages, 1);
        atLeast("maxInflightBytes", maxInflightBytes, 1);
        atLeast("maxBatchBytes", maxBatchBytes, 1);
        atLeast("maxBatchEntries", maxBatchEntries, 1);
        atLeast("snapshotThreshold", snapshotThreshold, 1);
        atLeast("snapshotChunkBytes", snapshotChunkBytes, 1);
        atLeast("logRetentionEntries", logRetentionEntries, 0);
        atLeast("maxUncommittedEntries", maxUncommittedEntries, 1);
        atLeast("maxUncommittedBytes", maxUncommittedBytes, 1);
        atLeast("maxPendingReads", maxPendingReads, 1);
        atLeast("quorumHistoryWindow", quorumHistoryWindow, 8);
    }

    private static void positive(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be positive, was " + d);
    }

    private static void atLeast(String name, long value, long min) {
        if (value < min) throw new IllegalArgumentException(name + " must be >= " + min + ", was " + value);
    }

    /** The length of a leader lease: followers refuse votes this long after hearing from the leader, minus drift. */
    public Duration leaseDuration() {
        return electionTimeoutMin.minus(maxClockDrift);
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    public static Builder builder() {
        return new Builder(DEFAULTS);
    }

    /** Changes some settings of a config; {@link #build()} validates the result. */
    public static final class Builder {
        private Duration electionTimeoutMin, electionTimeoutMax, heartbeatInterval, resendInterval, commitDeadline, maxClockDrift, detectorInterval;
        private boolean preVote, checkQuorum;
        private int maxInflightMessages, maxInflightBytes, maxBatchBytes, maxBatchEntries, snapshotChunkBytes, maxUncommittedEntries, maxPendingReads, quorumHistoryWindow;
        private long snapshotThreshold, logRetentionEntries, maxUncommittedBytes;
        private Set<NodeId> initialVoters;

        private Builder(RaftConfig c) {
            electionTimeoutMin = c.electionTimeoutMin;
            electionTimeoutMax = c.electionTimeoutMax;
            heartbeatInterval = c.heartbeatInterval;
            preVote = c.preVote;
            checkQuorum = c.checkQuorum;
            maxInflightMessages = c.maxInflightMessages;
            maxInflightBytes = c.maxInflightBytes;
            maxBatchBytes = c.maxBatchBytes;
            maxBatchEntries = c.maxBatchEntries;
            resendInterval = c.resendInterval;
            commitDeadline = c.commitDeadline;
            snapshotThreshold = c.snapshotThreshold;
            snapshotChunkBytes = c.snapshotChunkBytes;
            logRetentionEntries = c.logRetentionEntries;
            maxClockDrift = c.maxClockDrift;
            maxUncommittedEntries = c.maxUncommittedEntries;
            maxUncommittedBytes = c.maxUncommittedBytes;
            maxPendingReads = c.maxPendingReads;
            initialVoters = c.initialVoters;
            detectorInterval = c.detectorInterval;
            quorumHistoryWindow = c.quorumHistoryWindow;
        }

        /** Sets the election timeout range; heartbeats and resends keep their own settings. */
        public Builder electionTimeout(Duration min, Duration max) {
            this.electionTimeoutMin = min;
            this.electionTimeoutMax = max;
            return this;
        }

        public Builder heartbeatInterval(Duration d) {
            this.heartbeatInterval = d;
            return this;
        }

        public Builder preVote(boolean on) {
            this.preVote = on;
            return this;
        }

        public Builder checkQuorum(boolean on) {
            this.checkQuorum = on;
            return this;
        }

        public Builder maxInflight(int messages, int bytes) {
            this.maxInflightMessages = messages;
            this.maxInflightBytes = bytes;
            return this;
        }

        public Builder maxBatch(int entries, int bytes) {
            this.maxBatchEntries = entries;
            this.maxBatchBytes = bytes;
            return this;
        }

        public Builder resendInterval(Duration d) {
            this.resendInterval = d;
            return this;
        }

        public Builder commitDeadline(Duration d) {
            this.commitDeadline = d;
            return this;
        }

        public Builder snapshotThreshold(long entries) {
            this.snapshotThreshold = entries;
            return this;
        }

        public Builder snapshotChunkBytes(int bytes) {
            this.snapshotChunkBytes = bytes;
            return this;
        }

        public Builder logRetentionEntries(long entries) {
            this.logRetentionEntries = entries;
            return this;
        }

        public Builder maxClockDrift(Duration d) {
            this.maxClockDrift = d;
            return this;
        }

        public Builder maxUncommitted(int entries, long bytes) {
            this.maxUncommittedEntries = entries;
            this.maxUncommittedBytes = bytes;
            return this;
        }

        public Builder maxPendingReads(int reads) {
            this.maxPendingReads = reads;
            return this;
        }

        public Builder initialVoters(Set<NodeId> voters) {
            this.initialVoters = voters;
            return this;
        }

        public Builder detector(Duration interval, int quorumHistoryWindow) {
            this.detectorInterval = interval;
            this.quorumHistoryWindow = quorumHistoryWindow;
            return this;
        }

        public RaftConfig build() {
            return new RaftConfig(electionTimeoutMin, electionTimeoutMax, heartbeatInterval, preVote, checkQuorum,
                    maxInflightMessages, maxInflightBytes, maxBatchBytes, maxBatchEntries, resendInterval, commitDeadline,
                    snapshotThreshold, snapshotChunkBytes, logRetentionEntries, maxClockDrift, maxUncommittedEntries,
                    maxUncommittedBytes, maxPendingReads, initialVoters, detectorInterval, quorumHistoryWindow);
        }
    }
}
