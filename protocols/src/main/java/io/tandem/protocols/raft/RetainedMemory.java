package io.tandem.protocols.raft;

/**
 * What a Raft node holds in memory for replication, by its own accounting (not the JVM's): the log
 * entries it retains, what it has sent to followers and not yet heard back about, messages held until
 * its vote is durable, and reads waiting for a quorum. The state machine's own data is not counted.
 *
 * <p>Every part is bounded by the configuration, whatever a follower does (DESIGN §3: a slow or stopped
 * follower must not make the leader's memory grow):
 * <ul>
 *   <li>the retained log by {@link RaftConfig#snapshotThreshold()} + {@link RaftConfig#logRetentionEntries()}
 *       entries past the last snapshot, plus the entries not yet applied (at most
 *       {@link RaftConfig#maxUncommittedEntries()} uncommitted; committed but not yet applied ones drain
 *       at the execution's pace). Compaction never waits for a follower: one that falls behind the
 *       retained log receives a snapshot instead;</li>
 *   <li>the entries in flight to each follower by {@link RaftConfig#maxInflightMessages()} messages and
 *       {@link RaftConfig#maxInflightBytes()} plus one batch ({@link RaftConfig#maxBatchBytes()}), since the
 *       window is checked before a batch is added;</li>
 *   <li>held messages by a fixed 4,096, pending reads by {@link RaftConfig#maxPendingReads()}.</li>
 * </ul>
 *
 * @param logEntries       entries retained in memory (the log's suffix past the last compaction)
 * @param logBytes         their payload bytes
 * @param inflightMessages AppendEntries sent to followers and not yet acknowledged, over all followers
 * @param inflightBytes    the entry bytes of those messages
 * @param heldMessages     messages held until this node's term and vote are durable
 * @param pendingReads     linearizable reads waiting for leadership confirmation (leader only)
 */
public record RetainedMemory(long logEntries, long logBytes, int inflightMessages, long inflightBytes, int heldMessages, int pendingReads) {
}
