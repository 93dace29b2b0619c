package io.tandem.protocols.raft;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Deliberately broken Raft engines, which prove that the simulator, the linearizability checker and
 * the slowness detector can fail. Test code only: each plants one bug by overriding one of
 * {@link RaftEngine}'s seams ({@link RaftEngine#commitQuorum}, {@link RaftEngine#termAndVoteDurable},
 * {@link RaftEngine#windowOpen}, {@link RaftEngine#onRead}, {@link RaftEngine#acknowledgementCounted}, {@link RaftEngine#acknowledgeableIndex}, {@link RaftEngine#transferEndsLease}, {@link RaftEngine#candidateUpToDate},
 * {@link RaftEngine#prevEntryMatches}, {@link RaftEngine#followerCommit}, {@link RaftEngine#logContinuesSnapshot}, {@link RaftEngine#readableInTerm}) or
 * one setting of its config; the shipped engine has no flag for it.
 */
public final class BrokenRaft extends RaftProtocol {
    public enum Bug {
        /** The leader commits an entry as soon as its own disk has it, without a quorum (safety bug). */
        COMMIT_WITHOUT_QUORUM,
        /** Votes are sent and counted before the term and vote are durable (safety bug after a crash). */
        VOTE_BEFORE_PERSIST,
        /** The leader pushes every new entry to a follower regardless of its window: an unbounded per-follower queue (fail-slow bug). */
        UNBOUNDED_FOLLOWER_QUEUE,
        /** Commit waits for every voter, so the slowest follower decides the latency of every command (fail-slow bug). */
        WAIT_FOR_ALL_FOLLOWERS,
        /** Every read is served from the local state of whichever node gets it, without a read index (stale reads). */
        STALE_READS,
        /** A new leader commits the entries it inherited from earlier terms by counting their replicas (Raft Figure 8, §5.4.2). */
        COMMIT_EARLIER_TERM_BY_COUNTING,
        /** The lease ignores clock drift ({@code maxClockDrift} 0): a leader whose clock runs slow serves reads after a new leader was elected (thesis §6.4.1). */
        LEASE_WITHOUT_DRIFT_BOUND,
        /** A follower acknowledges appended entries before its disk synced them (safety bug after a crash). */
        ACK_BEFORE_DURABLE,
        /** A leader that hands over leadership keeps serving reads from its lease (thesis §6.4.1). */
        LEASE_KEPT_ACROSS_TRANSFER,
        /** Votes (and pre-votes) without the election restriction: a candidate missing committed entries can win (§5.4.1). */
        VOTE_FOR_STALE_LOG,
        /** A follower appends entries without checking the term of the entry before them (§5.3 consistency check). */
        SKIP_PREV_TERM_CHECK,
        /** A follower commits up to the leader's commit index even past the entries the message verified (Figure 2, step 5). */
        COMMIT_PAST_VERIFIED,
        /** A follower restarts its election timer on any higher-term vote request, even one it refuses (liveness bug with pre-vote off: a hopeless candidate delays the electable one). */
        REFUSED_VOTE_RESTARTS_TIMER,
        /** A stale read is served at once, ignoring its minimum index (the client asked for state at least that new). */
        STALE_READ_IGNORES_MIN_INDEX,
        /** A follower installing a snapshot keeps the entries after its index without checking their term there: a deposed leader's conflicting suffix survives above the snapshot (§7, receiver steps 6-7). */
        SNAPSHOT_KEEPS_CONFLICTING_SUFFIX,
        /** A new leader serves reads (lease and read index) before an entry of its own term committed, at a commit index that may lag (thesis §6.4). */
        READ_BEFORE_TERM_COMMITS;

        /** The registry name, e.g. {@code raft-broken-commit-without-quorum}. */
        public String protocolName() {
            return NAME + "-broken-" + name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private final Bug bug;

    public BrokenRaft(Bug bug, RaftConfig config) {
        this(bug, config, null);
    }

    private BrokenRaft(Bug bug, RaftConfig config, Set<String> toleratedWarnings) {
        super(config, toleratedWarnings);
        this.bug = bug;
    }

    public Bug bug() {
        return bug;
    }

    @Override
    public String name() {
        return bug.protocolName();
    }

    @Override
    public BrokenRaft checkingSlowness(String... toleratedKinds) {
        return (BrokenRaft) super.checkingSlowness(toleratedKinds);
    }

    @Override
    RaftProtocol copy(RaftConfig newConfig, Set<String> tolerated) {
        return new BrokenRaft(bug, newConfig, tolerated);
    }

    @Override
    RaftEngine newEngine(NodeId self, List<NodeId> members, RaftConfig engineConfig) {
        return engine(bug, self, members, engineConfig);
    }

    /** One node of a broken group, for harnesses that make engines themselves. */
    public static RaftEngine engine(Bug bug, NodeId self, List<NodeId> members, RaftConfig config) {
        return switch (bug) {
            case COMMIT_WITHOUT_QUORUM -> new RaftEngine(self, members, config) {
                @Override
                int commitQuorum(int voters) {
                    return 1; // the leader's own durable write alone
                }
            };
            case WAIT_FOR_ALL_FOLLOWERS -> new RaftEngine(self, members, config) {
                @Override
                int commitQuorum(int voters) {
                    return voters; // stricter, so still safe, but never quorum-tolerant
                }
            };
            case VOTE_BEFORE_PERSIST -> new RaftEngine(self, members, config) {
                @Override
                boolean termAndVoteDurable() {
                    return true;
                }
            };
            case UNBOUNDED_FOLLOWER_QUEUE -> new RaftEngine(self, members, config) {
                @Override
                boolean windowOpen(Peer p) {
                    return true;
                }
            };
            case COMMIT_EARLIER_TERM_BY_COUNTING -> new RaftEngine(self, members, config) {
                @Override
                void acknowledgementCounted(LeaderState leader) {
                    // Commits the highest index a majority of voters holds, whatever its term.
                    List<Long> matches = new java.util.ArrayList<>();
                    for (NodeId v : configuration().voters()) matches.add(leader.commits.matchOf(v));
                    matches.sort(java.util.Comparator.reverseOrder());
                    advanceCommit(matches.get(matches.size() / 2));
                }
            };
            case LEASE_WITHOUT_DRIFT_BOUND -> new RaftEngine(self, members, config.toBuilder().maxClockDrift(java.time.Duration.ZERO).build());
            case ACK_BEFORE_DURABLE -> new RaftEngine(self, members, config) {
                @Override
                long acknowledgeableIndex() {
                    return lastIndex();
                }
            };
            case LEASE_KEPT_ACROSS_TRANSFER -> new RaftEngine(self, members, config) {
                @Override
                boolean transferEndsLease() {
                    return false;
                }
            };
            case VOTE_FOR_STALE_LOG -> new RaftEngine(self, members, config) {
                @Override
                boolean candidateUpToDate(long lastLogIndex, long lastLogTerm) {
                    return true;
                }
            };
            case READ_BEFORE_TERM_COMMITS -> new RaftEngine(self, members, config) {
                @Override
                boolean readableInTerm(LeaderState leader) {
                    return true;
                }
            };
            case SNAPSHOT_KEEPS_CONFLICTING_SUFFIX -> new RaftEngine(self, members, config) {
                @Override
                boolean logContinuesSnapshot(long lastIncludedIndex, long lastIncludedTerm) {
                    return true; // the index alone, not its term
                }
            };
            case SKIP_PREV_TERM_CHECK -> new RaftEngine(self, members, config) {
                @Override
                boolean prevEntryMatches(long prevIndex, long prevTerm) {
                    return true;
                }
            };
            case COMMIT_PAST_VERIFIED -> new RaftEngine(self, members, config) {
                @Override
                long followerCommit(long leaderCommit, long verifiedIndex) {
                    return leaderCommit;
                }
            };
            case REFUSED_VOTE_RESTARTS_TIMER -> new RaftEngine(self, members, config) {
                @Override
                boolean refusedCandidateRestartsTimer() {
                    return true;
                }
            };
            case STALE_READ_IGNORES_MIN_INDEX -> new RaftEngine(self, members, config) {
                @Override
                void onRead(ClientRequest r) {
                    super.onRead(r.readPolicy() instanceof ReadPolicy.Stale ? ClientRequest.read(r.requestId(), r.payload(), ReadPolicy.stale(0)) : r);
                }
            };
            case STALE_READS -> new RaftEngine(self, members, config) {
                @Override
                void onRead(ClientRequest r) {
                    super.onRead(ClientRequest.read(r.requestId(), r.payload(), ReadPolicy.stale(0)));
                }
            };
        };
    }
}
