package io.tandem.protocols.multipaxos;

import io.tandem.roles.Deployment;
import java.time.Duration;
import java.util.Objects;

/**
 * Every setting of the MultiPaxos engine, with validated defaults ({@link #DEFAULTS}); build variants
 * with {@link #builder()} or {@link #toBuilder()}.
 *
 * @param deployment          which members run which role ({@link MultiPaxosProtocol#CLASSIC}: every role on every
 *                            member); read one from a file with {@link io.tandem.roles.Deployment#read} and
 *                            {@link MultiPaxosProtocol#ROLES}
 * @param acceptorQuorums     how acceptors form read and write quorums (majorities, counting, grid)
 * @param heartbeatInterval   how often the active leader announces itself (and its chosen prefix) and
 *                            checks for resends; replicas report progress at the same cadence
 * @param electionTimeoutMin  lower bound of the randomized time without a heartbeat after which a
 *                            proposer starts Phase 1; also the leader's check-quorum period
 * @param electionTimeoutMax  upper bound (exclusive) of that timeout
 * @param resendInterval      the least time an unanswered Phase 1a, Phase 2a or read query waits
 *                            before one resend; per acceptor it also adapts to the round trip and
 *                            doubles per fruitless resend
 * @param windowSlots         bound on slots a leader has proposed and not yet seen chosen (pipelining depth);
 *                            commands beyond it wait in the leader's queue
 * @param maxInflightMessages per-acceptor bound on Phase 2a messages sent and not yet answered
 * @param maxInflightBytes    per-acceptor bound on the value bytes of those messages
 * @param maxBatchSlots       slots per Phase 2a / Chosen / catch-up message (batching)
 * @param maxBatchBytes       value bytes per such message (a single larger value still goes alone)
 * @param maxQueuedCommands   commands waiting for a slot at the leader; more are rejected as Overloaded
 * @param snapshotThreshold   a replica snapshots after executing this many slots since its last snapshot
 * @param logRetentionSlots   executed slots a replica keeps behind its snapshot for lagging peers
 * @param snapshotChunkBytes  size of one snapshot chunk sent to a lagging replica
 * @param catchUpTimeout      how long a replica may wait on a hole (or a read at a slot it lacks)
 *                            before it asks a peer replica and the leader
 * @param readTimeout         a read that is not served within this time is rejected as Unavailable
 * @param maxPendingReads     reads a node may hold at once (in a query round or waiting at the replica)
 * @param linearizableReads   how {@code ReadPolicy.Linearizable} (and {@code Lease}) reads are served:
 *                            by the acceptor-quorum read of the Compartmentalization paper or through the log
 * @param maxReplicaLagSlots  a replica this far behind stops receiving Chosen pushes and pulls from peers instead
 * @param retainedChosenSlots chosen values a leader keeps to answer replicas that missed a Chosen
 * @param commitDeadline      a slot not chosen within this time is counted as overdue
 * @param detectorInterval    cadence of the slowness detector; also the least time an acceptor must stay
 *                            out of every write quorum to be reported
 * @param quorumHistoryWindow the least number of chosen slots an acceptor must stay out of to be reported
 * @param batchMaxCommands    a batcher (spec §2.6) sends its batch to the leader once it holds this many commands
 * @param batchDelay          ... or once this long passed since the batch's first command, whichever comes first
 * @param proxyStripeSlots    with proxy leaders: consecutive slots the leader hands the same proxy before it moves to
 *                            the next (1: every run to the next proxy); a proxy announces adjacent runs chosen in one
 *                            drain as one Chosen of at most {@code max(maxBatchSlots, proxyStripeSlots)} slots
 */
public record MultiPaxosConfig(
        Deployment deployment,
        QuorumLayout acceptorQuorums,
        Duration heartbeatInterval,
        Duration electionTimeoutMin,
        Duration electionTimeoutMax,
        Duration resendInterval,
        int windowSlots,
        int maxInflightMessages,
        int maxInflightBytes,
        int maxBatchSlots,
        int maxBatchBytes,
        int maxQueuedCommands,
        long snapshotThreshold,
        long logRetentionSlots,
        int snapshotChunkBytes,
        Duration catchUpTimeout,
        Duration readTimeout,
        int maxPendingReads,
        ReadPath linearizableReads,
        int maxReplicaLagSlots,
        int retainedChosenSlots,
        Duration commitDeadline,
        Duration detectorInterval,
        int quorumHistoryWindow,
        int batchMaxCommands,
        Duration batchDelay,
        int proxyStripeSlots) {

    /** How linearizable reads are served. */
    public enum ReadPath {
        /**
         * The Compartmentalization paper's read (spec §2.4): ask a read quorum of acceptors for the
         * highest slot they voted in, then read at the local replica once it executed that slot. No
         * leader involvement, no log entry.
         */
        ACCEPTOR_QUORUM,
        /** A read command ordered through consensus like a write, served where it executes. */
        LOG
    }

    /** Defaults for a LAN, in line with the Raft engine: heartbeats every 100 ms, failover after 1-2 s. */
    public static final MultiPaxosConfig DEFAULTS = new MultiPaxosConfig(
            MultiPaxosProtocol.CLASSIC, QuorumLayout.MAJORITY,
            Duration.ofMillis(100), Duration.ofMillis(1000), Duration.ofMillis(2000), Duration.ofMillis(100),
            1024, 32, 4 << 20, 256, 256 << 10, 10_000,
            10_000, 1_000, 256 << 10,
            Duration.ofMillis(300), Duration.ofSeconds(2), 10_000, ReadPath.ACCEPTOR_QUORUM,
            4096, 4096,
            Duration.ofSeconds(1), Duration.ofSeconds(1), 256,
            64, Duration.ofMillis(1),
            16);

    public MultiPaxosConfig {
        Objects.requireNonNull(deployment, "deployment");
        if (!deployment.catalog().equals(Topology.ROLES)) throw new IllegalArgumentException("the deployment places " + deployment.catalog().protocol() + " roles, not MultiPaxos ones");
        Objects.requireNonNull(acceptorQuorums, "acceptorQuorums");
        Objects.requireNonNull(linearizableReads, "linearizableReads");
        positive("heartbeatInterval", heartbeatInterval);
        positive("electionTimeoutMin", electionTimeoutMin);
        positive("electionTimeoutMax", electionTimeoutMax);
        positive("resendInterval", resendInterval);
        positive("catchUpTimeout", catchUpTimeout);
        positive("readTimeout", readTimeout);
        positive("commitDeadline", commitDeadline);
        positive("detectorInterval", detectorInterval);
        positive("batchDelay", batchDelay);
        if (electionTimeoutMax.compareTo(electionTimeoutMin) <= 0) {
            throw new IllegalArgumentException("electionTimeoutMax (" + electionTimeoutMax + ") must be greater than electionTimeoutMin (" + electionTimeoutMin + ")");
        }
        if (heartbeatInterval.multipliedBy(2).compareTo(electionTimeoutMin) > 0) {
            throw new IllegalArgumentException("heartbeatInterval (" + heartbeatInterval + ") must be at most half of electionTimeoutMin (" + electionTimeoutMin
                    + "), or proposers start Phase 1 while the leader is healthy");
        }
        atLeast("windowSlots", windowSlots, 1);
        atLeast("maxInflightMessages", maxInflightMessages, 1);
        atLeast("maxInflightBytes", maxInflightBytes, 1);
        atLeast("maxBatchSlots", maxBatchSlots, 1);
        atLeast("maxBatchBytes", maxBatchBytes, 1);
        atLeast("proxyStripeSlots", proxyStripeSlots, 1);
        atLeast("maxQueuedCommands", maxQueuedCommands, 1);
        atLeast("snapshotThreshold", snapshotThreshold, 1);
        atLeast("logRetentionSlots", logRetentionSlots, 0);
        atLeast("snapshotChunkBytes", snapshotChunkBytes, 1);
        atLeast("maxPendingReads", maxPendingReads, 1);
        atLeast("maxReplicaLagSlots", maxReplicaLagSlots, windowSlots);
        atLeast("retainedChosenSlots", retainedChosenSlots, 1);
        atLeast("quorumHistoryWindow", quorumHistoryWindow, 8);
        atLeast("batchMaxCommands", batchMaxCommands, 1);
    }

    private static void positive(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be positive, was " + d);
    }

    private static void atLeast(String name, long value, long min) {
        if (value < min) throw new IllegalArgumentException(name + " must be >= " + min + ", was " + value);
    }

    public static Builder builder() {
        return new Builder(DEFAULTS);
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Changes some settings of a config; {@link #build()} validates the result. */
    public static final class Builder {
        private Deployment deployment;
        private QuorumLayout acceptorQuorums;
        private Duration heartbeatInterval, electionTimeoutMin, electionTimeoutMax, resendInterval, catchUpTimeout, readTimeout, commitDeadline, detectorInterval, batchDelay;
        private int batchMaxCommands, windowSlots, maxInflightMessages, maxInflightBytes, maxBatchSlots, maxBatchBytes, maxQueuedCommands, snapshotChunkBytes, maxPendingReads,
                maxReplicaLagSlots, retainedChosenSlots, quorumHistoryWindow, proxyStripeSlots;
        private long snapshotThreshold, logRetentionSlots;
        private ReadPath linearizableReads;

        private Builder(MultiPaxosConfig c) {
            deployment = c.deployment;
            acceptorQuorums = c.acceptorQuorums;
            heartbeatInterval = c.heartbeatInterval;
            electionTimeoutMin = c.electionTimeoutMin;
            electionTimeoutMax = c.electionTimeoutMax;
            resendInterval = c.resendInterval;
            windowSlots = c.windowSlots;
            maxInflightMessages = c.maxInflightMessages;
            maxInflightBytes = c.maxInflightBytes;
            maxBatchSlots = c.maxBatchSlots;
            maxBatchBytes = c.maxBatchBytes;
            maxQueuedCommands = c.maxQueuedCommands;
            snapshotThreshold = c.snapshotThreshold;
            logRetentionSlots = c.logRetentionSlots;
            snapshotChunkBytes = c.snapshotChunkBytes;
            catchUpTimeout = c.catchUpTimeout;
            readTimeout = c.readTimeout;
            maxPendingReads = c.maxPendingReads;
            linearizableReads = c.linearizableReads;
            maxReplicaLagSlots = c.maxReplicaLagSlots;
            retainedChosenSlots = c.retainedChosenSlots;
            commitDeadline = c.commitDeadline;
            detectorInterval = c.detectorInterval;
            quorumHistoryWindow = c.quorumHistoryWindow;
            batchMaxCommands = c.batchMaxCommands;
            batchDelay = c.batchDelay;
            proxyStripeSlots = c.proxyStripeSlots;
        }

        /** With proxy leaders: consecutive slots handed to one proxy before the next (see {@link MultiPaxosConfig}). */
        public Builder proxyStripeSlots(int slots) {
            this.proxyStripeSlots = slots;
            return this;
        }

        /** A batcher sends its batch at {@code maxCommands} commands or {@code delay} after the first, whichever comes first. */
        public Builder batching(int maxCommands, Duration delay) {
            this.batchMaxCommands = maxCommands;
            this.batchDelay = delay;
            return this;
        }

        public Builder deployment(Deployment d) {
            this.deployment = d;
            return this;
        }

        public Builder acceptorQuorums(QuorumLayout layout) {
            this.acceptorQuorums = layout;
            return this;
        }

        public Builder heartbeatInterval(Duration d) {
            this.heartbeatInterval = d;
            return this;
        }

        public Builder electionTimeout(Duration min, Duration max) {
            this.electionTimeoutMin = min;
            this.electionTimeoutMax = max;
            return this;
        }

        public Builder resendInterval(Duration d) {
            this.resendInterval = d;
            return this;
        }

        public Builder windowSlots(int slots) {
            this.windowSlots = slots;
            return this;
        }

        public Builder maxInflight(int messages, int bytes) {
            this.maxInflightMessages = messages;
            this.maxInflightBytes = bytes;
            return this;
        }

        public Builder maxBatch(int slots, int bytes) {
            this.maxBatchSlots = slots;
            this.maxBatchBytes = bytes;
            return this;
        }

        public Builder maxQueuedCommands(int commands) {
            this.maxQueuedCommands = commands;
            return this;
        }

        public Builder snapshotThreshold(long slots) {
            this.snapshotThreshold = slots;
            return this;
        }

        public Builder logRetentionSlots(long slots) {
            this.logRetentionSlots = slots;
            return this;
        }

        public Builder snapshotChunkBytes(int bytes) {
            this.snapshotChunkBytes = bytes;
            return this;
        }

        public Builder catchUpTimeout(Duration d) {
            this.catchUpTimeout = d;
            return this;
        }

        public Builder readTimeout(Duration d) {
            this.readTimeout = d;
            return this;
        }

        public Builder maxPendingReads(int reads) {
            this.maxPendingReads = reads;
            return this;
        }

        public Builder linearizableReads(ReadPath path) {
            this.linearizableReads = path;
            return this;
        }

        public Builder maxReplicaLagSlots(int slots) {
            this.maxReplicaLagSlots = slots;
            return this;
        }

        public Builder retainedChosenSlots(int slots) {
            this.retainedChosenSlots = slots;
            return this;
        }

        public Builder commitDeadline(Duration d) {
            this.commitDeadline = d;
            return this;
        }

        public Builder detector(Duration interval, int quorumHistoryWindow) {
            this.detectorInterval = interval;
            this.quorumHistoryWindow = quorumHistoryWindow;
            return this;
        }

        public MultiPaxosConfig build() {
            return new MultiPaxosConfig(deployment, acceptorQuorums, heartbeatInterval, electionTimeoutMin, electionTimeoutMax, resendInterval,
                    windowSlots, maxInflightMessages, maxInflightBytes, maxBatchSlots, maxBatchBytes, maxQueuedCommands,
                    snapshotThreshold, logRetentionSlots, snapshotChunkBytes, catchUpTimeout, readTimeout, maxPendingReads, linearizableReads,
                    maxReplicaLagSlots, retainedChosenSlots, commitDeadline, detectorInterval, quorumHistoryWindow,
                    batchMaxCommands, batchDelay, proxyStripeSlots);
        }
    }
}
