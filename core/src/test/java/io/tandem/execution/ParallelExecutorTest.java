package io.tandem.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.engine.ClientRequest.Session;
import io.tandem.engine.Committed;
import io.tandem.execution.ParallelHarness.Command;
import io.tandem.execution.ParallelHarness.Replica;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * Convergence of the parallel executors (opt-psmr.md §8.1 C1-C3, C6-C8, C12) on a small state
 * machine with static and dynamic dependencies; the B+-tree's own tests are in the kvstore module.
 */
class ParallelExecutorTest {
    /**
     * {@code -Dpsmr.soak=true}: the runs on real threads at their full size and four times the stepped seeds. The default
     * build keeps the real-thread runs small: every lock-step command and every fuzzed park or yield waits for the OS to
     * run a thread again, which takes milliseconds on a loaded machine (the full-size runs took minutes at load 30-50).
     * The interleavings are covered by the stepped sweeps, deterministic and replayable by seed; the threads check the
     * threaded machinery (publishing, the idle and work conditions, blocking channels, concurrent applies).
     */
    static final boolean SOAK = Boolean.getBoolean("psmr.soak");
    /** Commands of a run on real, fuzzed threads. */
    static final int THREADED_COMMANDS = SOAK ? 6_000 : 500;
    /** Stepped schedules per thread count in the sweeps (each a pair of replicas in the optimistic one). */
    static final int STEPPED_SEEDS = SOAK ? 40 : 10;

    /** A mix of single-worker and overlapping multi-worker appends and growing commands that sometimes "split". */
    static List<Command> workload(long seed, int n, double growShare, boolean sessions) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Command> out = new ArrayList<>();
        long[] masks = {0b11, 0b1100_0000, 0b1000_0001, 0b0011_1100, 0b1111_1111, 0b0001_0010};
        long client = 77;
        long sequence = 0;
        List<byte[]> bySequence = new ArrayList<>();
        bySequence.add(null);
        for (int i = 1; i <= n; i++) {
            byte[] c;
            double x = r.nextDouble();
            if (x < growShare) c = CellMachine.grow(r.nextInt(CellMachine.CELLS), i);
            else if (x < growShare + 0.1) c = CellMachine.append(masks[r.nextInt(masks.length)], i);
            else c = CellMachine.append(1L << r.nextInt(CellMachine.CELLS), i);
            Session s = Session.NONE;
            if (sessions && r.nextInt(4) == 0) {
                sequence++;
                s = new Session(client, sequence, Math.max(1, sequence - 8));
                out.add(new Command(c, s));
                bySequence.add(c);
                // a client retry of a recent command (the same bytes), ordered again: must not apply twice
                if (r.nextInt(3) == 0 && sequence > 2) {
                    long again = sequence - r.nextInt(2);
                    out.add(new Command(bySequence.get((int) again), new Session(client, again, Math.max(1, sequence - 8))));
                }
                continue;
            }
            out.add(new Command(c, s));
        }
        return out;
    }

    static Replica parallel(ExecutionMode mode, int threads, CellMachine.Check check, ParallelOptions.Schedule schedule, long fuzz, long batchSeed,
                            IntFunction<WorkerChannels> channels) {
        CellMachine m = new CellMachine(check, threads);
        ParallelOptions o = new ParallelOptions(mode, threads, schedule, channels, fuzz);
        return new Replica(m, r -> new ParallelExecutor(m, r, ExecutorFactory.Limits.DEFAULTS, o), batchSeed);
    }

    static Replica parallel(ExecutionMode mode, int threads, long fuzz, long batchSeed) {
        return parallel(mode, threads, CellMachine.Check.CORRECT, new ParallelOptions.Schedule.Threads(), fuzz, batchSeed, WorkerChannels::pairwise);
    }

    static Replica stepped(ExecutionMode mode, int threads, long seed, CellMachine.Check check, IntFunction<WorkerChannels> channels) {
        return parallel(mode, threads, check, new ParallelOptions.Schedule.Stepped(seed), 0, seed * 7 + 1, channels);
    }

    static Replica sequential(long batchSeed) {
        CellMachine m = new CellMachine(1);
        return new Replica(m, r -> new SequentialExecutor(m, r, ExecutorFactory.Limits.DEFAULTS), batchSeed);
    }

    static String digest(Replica r) {
        return ((CellMachine) r.machine).digest();
    }

    static void close(List<Replica> replicas) {
        for (Replica r : replicas) if (r.executor instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** C12: the commands replayed sequentially in the order they took effect give the same state. */
    static void assertOracle(Replica r) {
        CellMachine oracle = new CellMachine(1);
        long i = 1;
        for (byte[] c : r.effective) oracle.apply(i++, c);
        assertThat(oracle.digest()).isEqualTo(digest(r));
    }

    @Test
    void psmrOnFuzzedThreadsReachesTheSequentialStateForEveryThreadCount() {
        List<Committed> log = ParallelHarness.initialLog(workload(1, THREADED_COMMANDS, 0.3, true));
        Replica reference = sequential(5);
        ParallelHarness.run(log, List.of(reference));
        for (int k = 1; k <= 4; k++) {
            List<Replica> replicas = List.of(parallel(ExecutionMode.PSMR, k, 11 + k, 3), parallel(ExecutionMode.PSMR, k, 97 + k, 4));
            try {
                ParallelHarness.run(log, replicas);
                for (Replica r : replicas) assertSameAsSequential(r, reference, "P-SMR on threads with " + k + " workers");
            } finally {
                close(replicas);
            }
        }
    }

    /** C2 on deterministic schedules: every thread count, {@link #STEPPED_SEEDS} interleavings each, the full workload. */
    @Test
    void psmrOnSteppedSchedulesReachesTheSequentialStateForEveryThreadCountAndSeed() {
        List<Committed> log = ParallelHarness.initialLog(workload(1, 6_000, 0.3, true));
        Replica reference = sequential(5);
        ParallelHarness.run(log, List.of(reference));
        for (int k = 1; k <= 4; k++) {
            for (long seed = 1; seed <= STEPPED_SEEDS; seed++) {
                Replica r = stepped(ExecutionMode.PSMR, k, 100 * k + seed, CellMachine.Check.CORRECT, WorkerChannels::pairwise);
                ParallelHarness.run(log, List.of(r));
                assertSameAsSequential(r, reference, "P-SMR with " + k + " workers, stepped seed " + (100 * k + seed));
            }
        }
    }

    static void assertSameAsSequential(Replica r, Replica reference, String what) {
        assertThat(digest(r)).as(what).isEqualTo(digest(reference));
        assertThat(r.outcomes).as("replies of %s", what).isEqualTo(reference.outcomes);
        assertThat(((CellMachine) r.machine).raceDetected).as(what).isNull();
    }

    @Test
    void optimisticReplicasOnFuzzedThreadsConvergeAndNeverRunAFailedCommand() {
        for (int k = 2; k <= 4; k++) {
            List<Committed> log = ParallelHarness.initialLog(workload(2 + k, THREADED_COMMANDS, 0.5, true));
            List<Replica> replicas = List.of(parallel(ExecutionMode.OPT_PSMR, k, 5 + k, 6), parallel(ExecutionMode.OPT_PSMR, k, 50 + k, 7));
            try {
                List<Committed> finalLog = ParallelHarness.run(log, replicas);
                assertOptimisticReplicasAgree(log, finalLog, replicas, k);
            } finally {
                close(replicas);
            }
        }
    }

    /**
     * C2 on deterministic schedules: pairs of replicas with different interleavings and flush boundaries, every pair
     * equal to the others too (every replica fails the same commands, so every pair ends with the same log).
     */
    @Test
    void optimisticReplicasOnSteppedSchedulesConvergeAndNeverRunAFailedCommand() {
        for (int k = 2; k <= 4; k++) {
            List<Committed> log = ParallelHarness.initialLog(workload(2 + k, 6_000, 0.5, true));
            Replica first = null;
            for (long seed = 1; seed <= STEPPED_SEEDS; seed++) {
                List<Replica> replicas = List.of(
                        stepped(ExecutionMode.OPT_PSMR, k, 100 * k + seed, CellMachine.Check.CORRECT, WorkerChannels::pairwise),
                        stepped(ExecutionMode.OPT_PSMR, k, 1_000 + 100 * k + seed, CellMachine.Check.CORRECT, WorkerChannels::pairwise));
                List<Committed> finalLog = ParallelHarness.run(log, replicas);
                assertOptimisticReplicasAgree(log, finalLog, replicas, k);
                if (first == null) first = replicas.get(0);
                assertThat(digest(replicas.get(0))).as("%d workers, stepped seed %d", k, 100 * k + seed).isEqualTo(digest(first));
                assertThat(replicas.get(0).outcomes).as("%d workers, stepped seed %d", k, 100 * k + seed).isEqualTo(first.outcomes);
            }
        }
    }

    /** The optimistic run's claims: replicas converge, some checks fail and come back as copies, no failed command ran (C12 oracle). */
    static void assertOptimisticReplicasAgree(List<Committed> log, List<Committed> finalLog, List<Replica> replicas, int k) {
        assertThat(finalLog.size()).as("failed commands came back as copies").isGreaterThan(log.size());
        Replica a = replicas.get(0);
        Replica b = replicas.get(1);
        assertThat(digest(a)).isEqualTo(digest(b));
        assertThat(a.outcomes).isEqualTo(b.outcomes);
        for (Replica r : replicas) {
            ParallelExecutor x = (ParallelExecutor) r.executor;
            assertThat(x.stats().failed()).as("fails with %d workers", k).isPositive();
            assertThat(x.pendingRetries()).isZero();
            assertThat(((CellMachine) r.machine).raceDetected).isNull();
            assertOracle(r);
        }
        assertThat(((ParallelExecutor) a.executor).stats().failed()).isEqualTo(((ParallelExecutor) b.executor).stats().failed());
        // every command of the log answered exactly once (copies answer their original)
        assertThat(a.outcomes).hasSize(log.size());
    }

    @Test
    void steppedScheduleIsDeterministicAndEverySeedConverges() {
        List<Committed> log = ParallelHarness.initialLog(workload(3, 2_000, 0.4, true));
        Replica first = stepped(ExecutionMode.OPT_PSMR, 3, 1, CellMachine.Check.CORRECT, WorkerChannels::pairwise);
        ParallelHarness.run(log, List.of(first));
        for (long seed = 2; seed <= 60; seed++) {
            Replica r = stepped(ExecutionMode.OPT_PSMR, 3, seed, CellMachine.Check.CORRECT, WorkerChannels::pairwise);
            ParallelHarness.run(log, List.of(r));
            for (int i = 0; i < Math.min(r.outcomes.size(), first.outcomes.size()); i++) {
                if (!r.outcomes.get(i).equals(first.outcomes.get(i))) {
                    throw new AssertionError("seed " + seed + " first differs at " + i + ": " + r.outcomes.get(i) + " vs " + first.outcomes.get(i) + " around " + first.outcomes.subList(Math.max(0, i - 3), i + 1));
                }
            }
            assertThat(digest(r)).as("seed %d", seed).isEqualTo(digest(first));
            assertThat(r.outcomes).as("seed %d", seed).isEqualTo(first.outcomes);
        }
        Replica p = stepped(ExecutionMode.PSMR, 3, 9, CellMachine.Check.CORRECT, WorkerChannels::pairwise);
        Replica s = sequential(1);
        ParallelHarness.run(log, List.of(p, s));
        assertThat(digest(p)).isEqualTo(digest(s));
    }

    /** opt-psmr.md C8: overlapping destination sets {0,1}, {1,2}, {0,2}, {0,1,2} interleaved, many schedules. */
    @Test
    void barrierWithOverlappingDestinationsNeverDeadlocksNorReorders() {
        SplittableRandom r = new SplittableRandom(8);
        long[] masks = {0b0000_1111, 0b0011_1100, 0b1100_0011, 0b1111_1111, 0b0000_0001, 0b0000_1000, 0b1000_0000};
        List<Command> commands = new ArrayList<>();
        for (int i = 1; i <= 20_000; i++) commands.add(new Command(CellMachine.append(masks[r.nextInt(masks.length)], i), Session.NONE));
        List<Committed> log = ParallelHarness.initialLog(commands);
        Replica s = sequential(2);
        ParallelHarness.run(log, List.of(s));
        for (long seed = 1; seed <= 10; seed++) {
            Replica p = stepped(ExecutionMode.PSMR, 3, seed, CellMachine.Check.CORRECT, WorkerChannels::pairwise);
            ParallelHarness.run(log, List.of(p));
            assertThat(digest(p)).isEqualTo(digest(s));
        }
    }

    /** Pitfall 3, in test code: one counting semaphore per executor instead of pairwise channels. */
    static WorkerChannels sharedSemaphorePerExecutor(int threads) {
        Semaphore[] mine = new Semaphore[threads];
        for (int i = 0; i < threads; i++) mine[i] = new Semaphore(0);
        return new WorkerChannels() {
            @Override
            public void release(int from, int to) {
                mine[to].release();
            }

            @Override
            public boolean acquire(int from, int to, boolean block) throws InterruptedException {
                if (block) {
                    mine[to].acquire();
                    return true;
                }
                return mine[to].tryAcquire();
            }
        };
    }

    @Test
    void aSharedSemaphorePerExecutorIsCaught() {
        SplittableRandom r = new SplittableRandom(9);
        long[] masks = {0b0000_1111, 0b0011_1100, 0b1100_0011, 0b0000_0001, 0b0000_1000, 0b1000_0000};
        List<Command> commands = new ArrayList<>();
        for (int i = 1; i <= 3_000; i++) commands.add(new Command(CellMachine.append(masks[r.nextInt(masks.length)], i), Session.NONE));
        List<Committed> log = ParallelHarness.initialLog(commands);
        Replica s = sequential(2);
        ParallelHarness.run(log, List.of(s));
        int caught = 0;
        for (long seed = 1; seed <= 20; seed++) {
            Replica p = stepped(ExecutionMode.PSMR, 3, seed, CellMachine.Check.CORRECT, ParallelExecutorTest::sharedSemaphorePerExecutor);
            try {
                ParallelHarness.run(log, List.of(p));
                if (!digest(p).equals(digest(s))) caught++;
            } catch (IllegalStateException deadlock) {
                caught++;
            }
        }
        assertThat(caught).as("schedules on which the broken barrier diverged or deadlocked").isPositive();
    }

    @Test
    void aCheckThatReadsConcurrentlyChangedStateIsCaught() {
        List<Committed> log = ParallelHarness.initialLog(workload(4, 3_000, 0.6, false));
        int caught = 0;
        for (long seed = 1; seed <= 10; seed++) {
            Replica a = stepped(ExecutionMode.OPT_PSMR, 4, seed, CellMachine.Check.READS_FOREIGN_STATE, WorkerChannels::pairwise);
            Replica b = stepped(ExecutionMode.OPT_PSMR, 4, seed + 1000, CellMachine.Check.READS_FOREIGN_STATE, WorkerChannels::pairwise);
            ParallelHarness.run(log, List.of(a, b));
            if (!digest(a).equals(digest(b)) || !a.outcomes.equals(b.outcomes) || ((CellMachine) a.machine).raceDetected != null) caught++;
        }
        assertThat(caught).as("seeds on which replicas with the nondeterministic check diverged").isPositive();
    }

    @Test
    void aCheckThatLetsSplitsRunInParallelIsCaughtByTheOwnershipDetector() {
        List<Committed> log = ParallelHarness.initialLog(workload(5, 2_000, 0.6, false));
        Replica a = stepped(ExecutionMode.OPT_PSMR, 4, 3, CellMachine.Check.ALWAYS_PASS, WorkerChannels::pairwise);
        ParallelHarness.run(log, List.of(a));
        assertThat(((CellMachine) a.machine).raceDetected).isNotNull();
    }

    @Test
    void snapshotIsAConsistentCutWithSessionsAndPendingRetries() throws IOException {
        List<Committed> log = ParallelHarness.initialLog(workload(6, 3_000, 0.5, true));
        Replica whole = stepped(ExecutionMode.OPT_PSMR, 3, 1, CellMachine.Check.CORRECT, WorkerChannels::pairwise);
        List<Committed> finalLog = ParallelHarness.run(log, List.of(whole));

        // A second replica applies the first half of the original log (failed attempts pending), snapshots,
        // and a fresh replica continues from that snapshot with the rest of the final log.
        Replica first = stepped(ExecutionMode.OPT_PSMR, 3, 2, CellMachine.Check.CORRECT, WorkerChannels::pairwise);
        for (int i = 0; i < 1_500; i++) first.executor.apply(finalLog.get(i));
        first.executor.flush();
        assertThat(((ParallelExecutor) first.executor).pendingRetries()).as("failed attempts waiting at the cut").isPositive();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        first.executor.writeSnapshot(bytes);
        first.resubmits.clear();

        Replica restored = stepped(ExecutionMode.OPT_PSMR, 3, 3, CellMachine.Check.CORRECT, WorkerChannels::pairwise);
        restored.executor.restoreSnapshot(new ByteArrayInputStream(bytes.toByteArray()));
        assertThat(restored.executor.appliedIndex()).isEqualTo(1_500);
        for (int i = 1_500; i < finalLog.size(); i++) restored.executor.apply(finalLog.get(i));
        restored.executor.flush();
        assertThat(digest(restored)).isEqualTo(digest(whole));
        List<String> tail = new ArrayList<>(first.outcomes);
        tail.addAll(restored.outcomes);
        assertThat(tail).isEqualTo(whole.outcomes);
        assertThat(((ParallelExecutor) restored.executor).pendingRetries()).isZero();

        // another thread count cannot take this snapshot: a clear error
        Replica other = stepped(ExecutionMode.OPT_PSMR, 2, 3, CellMachine.Check.CORRECT, WorkerChannels::pairwise);
        assertThatThrownBy(() -> other.executor.restoreSnapshot(new ByteArrayInputStream(bytes.toByteArray())))
                .isInstanceOf(IOException.class).hasMessageContaining("3 workers");
    }

    @Test
    void exactlyOnceAcrossRetriesMatchesTheSequentialExecutor() {
        List<Committed> log = ParallelHarness.initialLog(workload(7, 4_000, 0.0, true));
        Replica s = sequential(3);
        Replica p = parallel(ExecutionMode.PSMR, 2, 3, 4);
        try {
            ParallelHarness.run(log, List.of(s, p));
            assertThat(p.outcomes).isEqualTo(s.outcomes);
            assertThat(p.outcomes).anyMatch(o -> o.contains("=dup"));
        } finally {
            close(List.of(p));
        }
    }

    @Test
    void aStateMachineWithoutConflictsIsRefusedClearly() {
        io.tandem.statemachine.StateMachine plain = new io.tandem.statemachine.StateMachine() {
            @Override
            public byte[] apply(long index, byte[] command) {
                return command;
            }

            @Override
            public byte[] query(byte[] query) {
                return query;
            }

            @Override
            public void snapshot(java.io.OutputStream out) {}

            @Override
            public void restore(java.io.InputStream in) {}
        };
        assertThatThrownBy(() -> ParallelExecutors.forMode(ExecutionMode.PSMR, 2).create(plain, null, ExecutorFactory.Limits.DEFAULTS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ParallelStateMachine");
        assertThatThrownBy(() -> ExecutionMode.parse("fast")).hasMessageContaining("sequential, psmr or opt-psmr");
        assertThat(ExecutionMode.parse("OPT-PSMR")).isEqualTo(ExecutionMode.OPT_PSMR);
    }
}
