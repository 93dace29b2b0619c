package io.tandem.protocols.raft;

import io.tandem.engine.NodeId;
import io.tandem.protocols.failslow.QuorumTracker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The Raft leader's quorum tracking, on the leader's loop for every proposal round (DESIGN §3 rule 1). It lives
 * in the jmh module but in the package it measures, because {@link CommitTracker} is a package-private engine
 * internal (a split package on the benchmark classpath, so no public API exists only for
 * benchmarks).
 *
 * <ul>
 *   <li>{@code quorumDecision}: one {@link QuorumTracker} from creation to YES: a majority-of-{@code voters} wait
 *       and every member's acknowledgement (the late ones are ignored).</li>
 *   <li>{@code commitPipelined}: the {@link CommitTracker} as a loaded leader drives it: every operation proposes
 *       the next entry as a round of its own (one entry per round, the worst case: under load rounds cover many
 *       entries), the leader's durable write acknowledges it, and each follower acknowledges the entry
 *       {@code lag} behind (a pipeline of {@code lag} rounds in flight), completing one round per operation.</li>
 * </ul>
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class QuorumTrackingBenchmark {
    /** A deadline no run reaches: overdue rounds are a separate, rare path. */
    private static final long DEADLINE_NANOS = Long.MAX_VALUE / 4;

    @Param({"3", "5"})
    int voters;

    /** RaftEngine's bound on pending commit rounds (MAX_COMMIT_ROUNDS). */
    private static final int MAX_ROUNDS = 1024;

    @Param({"16", "256"})
    int lag;

    private List<NodeId> members;
    private NodeId leader;
    private List<NodeId> followers;
    private CommitTracker commits;
    private long next;
    private long now;

    @Setup
    public void setUp() {
        members = new ArrayList<>();
        for (int i = 1; i <= voters; i++) members.add(NodeId.of("n" + i));
        leader = members.getFirst();
        followers = members.subList(1, members.size());
        commits = new CommitTracker(members, DEADLINE_NANOS, MAX_ROUNDS, QuorumTracker::majority);
        next = 0;
        now = 0;
    }

    @Benchmark
    public boolean quorumDecision() {
        long t = ++now;
        QuorumTracker q = QuorumTracker.kOfN(members, QuorumTracker.majority(members.size()), t, t + DEADLINE_NANOS);
        for (NodeId m : members) q.ack(m, t);
        return q.isYes();
    }

    @Benchmark
    public void commitPipelined(Blackhole bh) {
        long t = ++now;
        long target = ++next;
        bh.consume(commits.propose(target, t));
        bh.consume(commits.ack(leader, target, t));
        long acked = target - lag;
        if (acked > 0) {
            for (NodeId f : followers) bh.consume(commits.ack(f, acked, t));
        }
    }
}
