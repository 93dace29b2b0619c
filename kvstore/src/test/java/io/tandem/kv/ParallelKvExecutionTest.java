package io.tandem.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ClientRequest.Session;
import io.tandem.engine.Committed;
import io.tandem.execution.ExecutionMode;
import io.tandem.execution.ExecutorFactory;
import io.tandem.execution.ParallelExecutor;
import io.tandem.execution.ParallelHarness;
import io.tandem.execution.ParallelHarness.Command;
import io.tandem.execution.ParallelHarness.Replica;
import io.tandem.execution.ParallelOptions;
import io.tandem.execution.SequentialExecutor;
import io.tandem.execution.WorkerChannels;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The B+-tree under P-SMR and optimistic P-SMR (opt-psmr.md §8.1): replicas with randomized thread
 * scheduling reach the same tree, entry for entry and node for node (C1-C3, C12); the broken
 * variants (hash partitioning, a check without the range conditions) are caught (C6).
 */
class ParallelKvExecutionTest {
    static final int ORDER = 5; // at most 4 entries per leaf: constant splits and merges (C3)
    static final long KEY_MAX = 2_000;
    static final KvCodec CODEC = new KvCodec(KvLimits.DEFAULTS);
    /**
     * {@code -Dpsmr.soak=true}: the runs on real threads at their full size (8,000 commands) and four times the stepped
     * seeds. The default build keeps the real-thread runs small: every lock-step command (under P-SMR half the commands
     * go to every worker) and every fuzzed park or yield waits for the OS to run a thread again, milliseconds on a
     * loaded machine (this class took 1,308 s at load 33-40 with full-size runs). The interleavings are covered by the
     * stepped sweeps, deterministic and replayable by seed; the threads check the threaded machinery and the tree's
     * really concurrent applies (copy-on-write segments installed by CAS).
     */
    static final boolean SOAK = Boolean.getBoolean("psmr.soak");
    /** Prefill puts and then commands of a run on real, fuzzed threads (a full-size run: 600 and 8,000). */
    static final int THREADED_PREFILL = SOAK ? 600 : 150;
    static final int THREADED_COMMANDS = SOAK ? 8_000 : 250;
    /** Stepped schedules per configuration in the sweeps (each a pair of replicas in the optimistic one). */
    static final int STEPPED_SEEDS = SOAK ? 16 : 3;

    static byte[] key(long k) {
        return ByteBuffer.allocate(8).putLong(k).array();
    }

    /** Prefill by random insertion, then reads (a CAS that changes nothing) and 50/50 puts/deletes. */
    static List<Command> workload(long seed, int n, double dependent, boolean sessions) {
        return workload(seed, 600, n, dependent, sessions);
    }

    static List<Command> workload(long seed, int prefill, int n, double dependent, boolean sessions) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Command> out = new ArrayList<>();
        for (int i = 0; i < prefill; i++) out.add(new Command(CODEC.encode(new KvCommand.Put(key(r.nextLong(KEY_MAX)), new byte[] {1})), Session.NONE));
        long sequence = 0;
        for (int i = 0; i < n; i++) {
            byte[] k = key(r.nextLong(KEY_MAX));
            KvCommand c;
            if (r.nextDouble() >= dependent) c = new KvCommand.CompareAndSet(k, null, null);
            else if (r.nextBoolean()) c = new KvCommand.Put(k, ByteBuffer.allocate(4).putInt(i).array());
            else c = new KvCommand.Delete(k);
            Session s = Session.NONE;
            if (sessions && r.nextInt(3) == 0) {
                sequence++;
                s = new Session(5, sequence, Math.max(1, sequence - 4));
                if (r.nextInt(4) == 0) out.add(new Command(CODEC.encode(c), s)); // a retry ordered twice
            }
            out.add(new Command(CODEC.encode(c), s));
        }
        return out;
    }

    /** Snapshots with the shape, so that images compare nodes too. */
    static KvStateMachine machine(KeyPartitioning p) {
        KvStateMachine m = new KvStateMachine(KvLimits.DEFAULTS, ORDER, p);
        m.runsInParallel(1);
        return m;
    }

    static Replica parallel(ExecutionMode mode, int threads, KeyPartitioning p, ParallelOptions.Schedule schedule, long fuzz, long batches) {
        KvStateMachine m = machine(p);
        ParallelOptions o = new ParallelOptions(mode, threads, schedule, WorkerChannels::pairwise, fuzz);
        return new Replica(m, r -> new ParallelExecutor(m, r, ExecutorFactory.Limits.DEFAULTS, o), batches);
    }

    static Replica threaded(ExecutionMode mode, int threads, long fuzz, long batches) {
        return parallel(mode, threads, KeyPartitioning.longKeys(KEY_MAX), new ParallelOptions.Schedule.Threads(), fuzz, batches);
    }

    static Replica sequential() {
        KvStateMachine m = machine(KeyPartitioning.longKeys(KEY_MAX));
        return new Replica(m, r -> new SequentialExecutor(m, r, ExecutorFactory.Limits.DEFAULTS), 1);
    }

    /** Entries and shape: the tree's snapshot stream holds both. */
    static byte[] image(Replica r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            ((KvStateMachine) r.machine).snapshot(out);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return out.toByteArray();
    }

    static void close(List<Replica> rs) {
        for (Replica r : rs) if (r.executor instanceof ParallelExecutor p) p.close();
    }

    static void assertTreeValid(Replica r) {
        ((KvStateMachine) r.machine).state().verifyStructure();
    }

    @Test
    void psmrReachesTheSequentialTreeOnFuzzedThreads() {
        // Under P-SMR every put and delete is a lock-step command of every worker: a third of the optimistic runs' size
        // (a module run at load 12-31 took 42 s for this test with 150 + 250).
        List<Committed> log = ParallelHarness.initialLog(SOAK ? workload(1, 8_000, 0.5, true) : workload(1, 50, 80, 0.5, true));
        Replica s = sequential();
        ParallelHarness.run(log, List.of(s));
        for (int k = 1; k <= 4; k++) {
            List<Replica> rs = List.of(threaded(ExecutionMode.PSMR, k, 3 + k, 2), threaded(ExecutionMode.PSMR, k, 30 + k, 3));
            try {
                ParallelHarness.run(log, rs);
                for (Replica r : rs) assertSameTree(r, s, "P-SMR tree on threads with " + k + " workers");
            } finally {
                close(rs);
            }
        }
    }

    /** C1-C3 on deterministic schedules: every thread count, {@link #STEPPED_SEEDS} interleavings each, the full workload. */
    @Test
    void psmrReachesTheSequentialTreeOnSteppedSchedules() {
        List<Committed> log = ParallelHarness.initialLog(workload(1, 8_000, 0.5, true));
        Replica s = sequential();
        ParallelHarness.run(log, List.of(s));
        for (int k = 1; k <= 4; k++) {
            for (long seed = 1; seed <= STEPPED_SEEDS; seed++) {
                long schedule = 100 * k + seed;
                Replica r = stepped(ExecutionMode.PSMR, k, schedule);
                ParallelHarness.run(log, List.of(r));
                assertSameTree(r, s, "P-SMR tree with " + k + " workers, stepped seed " + schedule);
            }
        }
    }

    static void assertSameTree(Replica r, Replica sequential, String what) {
        assertTreeValid(r);
        assertThat(image(r)).as(what).isEqualTo(image(sequential));
        assertThat(r.outcomes).as("replies of %s", what).isEqualTo(sequential.outcomes);
    }

    /** Optimistic P-SMR on the real tree, its workers' steps interleaved from {@code seed}, flush boundaries from it too. */
    static Replica stepped(ExecutionMode mode, int threads, long seed) {
        return parallel(mode, threads, KeyPartitioning.longKeys(KEY_MAX), new ParallelOptions.Schedule.Stepped(seed), 0, seed * 7 + 1);
    }

    /** On threads: every thread count, one dependent share each (all three with {@code -Dpsmr.soak=true}); the stepped sweep below runs all. */
    @Test
    void optimisticReplicasConvergeOnFuzzedThreadsAndMatchTheReplayOfTheirOrder() {
        double[] shares = {0.1, 0.5, 1.0, 0.5};
        for (int k = 1; k <= 4; k++) {
            for (double dependent : SOAK ? new double[] {0.1, 0.5, 1.0} : new double[] {shares[k - 1]}) {
                List<Committed> log = ParallelHarness.initialLog(workload(10 + k, THREADED_PREFILL, THREADED_COMMANDS, dependent, true));
                List<Replica> rs = List.of(threaded(ExecutionMode.OPT_PSMR, k, 7 + k, 4), threaded(ExecutionMode.OPT_PSMR, k, 70 + k, 5));
                try {
                    ParallelHarness.run(log, rs);
                    assertOptimisticReplicasAgree(rs, k, String.format("%d workers on threads, %.0f%% dependent", k, 100 * dependent));
                } finally {
                    close(rs);
                }
            }
        }
    }

    /**
     * C2/C3/C12 on deterministic schedules: for every thread count and dependent share, pairs of replicas with different
     * interleavings and flush boundaries; every pair equal to the others too (all fail the same commands, so every
     * pair ends with the same log).
     */
    @Test
    void optimisticReplicasConvergeOnSteppedSchedulesAndMatchTheReplayOfTheirOrder() {
        for (int k = 1; k <= 4; k++) {
            for (double dependent : new double[] {0.1, 0.5, 1.0}) {
                List<Committed> log = ParallelHarness.initialLog(workload(10 + k, 8_000, dependent, true));
                byte[] firstImage = null;
                List<String> firstOutcomes = null;
                for (long seed = 1; seed <= STEPPED_SEEDS; seed++) {
                    long schedule = 100 * k + (long) (10 * dependent) * 1_000 + seed;
                    List<Replica> rs = List.of(stepped(ExecutionMode.OPT_PSMR, k, schedule), stepped(ExecutionMode.OPT_PSMR, k, schedule + 50));
                    ParallelHarness.run(log, rs);
                    String what = String.format("%d workers, %.0f%% dependent, stepped seeds %d and %d", k, 100 * dependent, schedule, schedule + 50);
                    assertOptimisticReplicasAgree(rs, k, what);
                    if (firstImage == null) {
                        firstImage = image(rs.get(0));
                        firstOutcomes = rs.get(0).outcomes;
                    }
                    assertThat(image(rs.get(0))).as(what).isEqualTo(firstImage);
                    assertThat(rs.get(0).outcomes).as(what).isEqualTo(firstOutcomes);
                }
            }
        }
    }

    /** Two replicas of one run: equal trees node for node, equal replies and fail counts, valid trees, each equal to the replay of its effective order (C12). */
    static void assertOptimisticReplicasAgree(List<Replica> rs, int k, String what) {
        Replica a = rs.get(0);
        Replica b = rs.get(1);
        assertThat(image(a)).as(what).isEqualTo(image(b));
        assertThat(a.outcomes).as(what).isEqualTo(b.outcomes);
        for (Replica r : rs) {
            assertTreeValid(r);
            ParallelExecutor x = (ParallelExecutor) r.executor;
            if (k > 1) {
                assertThat(x.stats().failed()).as(what).isPositive(); // capacity 4: constant splits (C3)
                assertThat(x.stats().checked()).isGreaterThan(x.stats().failed());
            }
            assertThat(x.pendingRetries()).isZero();
            // C12: the commands replayed sequentially in the order they took effect
            KvStateMachine oracle = machine(KeyPartitioning.longKeys(KEY_MAX));
            long i = 1;
            for (byte[] c : r.effective) oracle.apply(i++, c);
            ByteArrayOutputStream o = new ByteArrayOutputStream();
            try {
                oracle.snapshot(o);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            assertThat(image(r)).as("replay of the effective order, %s", what).isEqualTo(o.toByteArray());
        }
        assertThat(((ParallelExecutor) a.executor).stats().failed()).as(what).isEqualTo(((ParallelExecutor) b.executor).stats().failed());
    }

    @Test
    void steppedSchedulesAgreeOnEverySeed() {
        List<Committed> log = ParallelHarness.initialLog(workload(3, 3_000, 0.6, false));
        Replica first = parallel(ExecutionMode.OPT_PSMR, 3, KeyPartitioning.longKeys(KEY_MAX), new ParallelOptions.Schedule.Stepped(1), 0, 1);
        ParallelHarness.run(log, List.of(first));
        for (long seed = 2; seed <= 30; seed++) {
            Replica r = parallel(ExecutionMode.OPT_PSMR, 3, KeyPartitioning.longKeys(KEY_MAX), new ParallelOptions.Schedule.Stepped(seed), 0, seed);
            ParallelHarness.run(log, List.of(r));
            assertThat(image(r)).as("seed %d", seed).isEqualTo(image(first));
            assertThat(r.outcomes).isEqualTo(first.outcomes);
        }
    }

    /** Hash partitioning (pitfall 12), in test code: a leaf's keys belong to several workers. */
    static KeyPartitioning hashed(boolean claimsEveryLeaf) {
        return new KeyPartitioning() {
            @Override
            public int workerOf(byte[] key, int threads) {
                return Math.floorMod(Arrays.hashCode(key), threads);
            }

            @Override
            public boolean covers(int worker, int threads, byte[] low, byte[] high) {
                return claimsEveryLeaf;
            }
        };
    }

    /** Range partitioning without conditions (b) and (c): the check looks at the fill only. */
    static KeyPartitioning rangesWithoutBounds() {
        KeyPartitioning real = KeyPartitioning.longKeys(KEY_MAX);
        return new KeyPartitioning() {
            @Override
            public int workerOf(byte[] key, int threads) {
                return real.workerOf(key, threads);
            }

            @Override
            public boolean covers(int worker, int threads, byte[] low, byte[] high) {
                return true;
            }
        };
    }

    /**
     * Two replicas on different stepped schedules (deterministic: a seed that catches a variant always does). A
     * variant's check passes commands whose leaf another worker changes in parallel mode, so verdicts depend on the
     * interleaving: replicas diverge, or a segment refuses a structural change.
     */
    private static boolean diverges(KeyPartitioning p, long seed) {
        List<Committed> log = ParallelHarness.initialLog(workload(seed, 6_000, 1.0, false));
        List<Replica> rs = List.of(
                parallel(ExecutionMode.OPT_PSMR, 2, p, new ParallelOptions.Schedule.Stepped(seed), 0, 1),
                parallel(ExecutionMode.OPT_PSMR, 2, p, new ParallelOptions.Schedule.Stepped(seed + 99), 0, 2));
        try {
            ParallelHarness.run(log, rs);
            return !Arrays.equals(image(rs.get(0)), image(rs.get(1))) || !rs.get(0).outcomes.equals(rs.get(1).outcomes);
        } catch (IllegalStateException | AssertionError e) {
            return true; // a worker refused a structural change in parallel mode, or the tree broke
        }
    }

    @Test
    void hashPartitioningIsCaught() {
        assertThat(diverges(hashed(true), 1)).as("hash partitioning caught on stepped seeds 1 and 100").isTrue();
    }

    @Test
    void aCheckWithoutTheRangeConditionsIsCaught() {
        assertThat(diverges(rangesWithoutBounds(), 1)).as("a check without conditions (b)/(c) caught on stepped seeds 1 and 100").isTrue();
    }

    /** How often the variants are caught, over many stepped seeds (a check of the test's teeth, not part of the build). */
    static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        int hash = 0, ranges = 0, real = 0;
        for (long seed = 1; seed <= n; seed++) {
            if (diverges(hashed(true), seed)) hash++;
            if (diverges(rangesWithoutBounds(), seed)) ranges++;
            if (diverges(KeyPartitioning.longKeys(KEY_MAX), seed)) real++;
        }
        System.out.println("of " + n + " seeds: hash partitioning caught on " + hash + ", a check without the range conditions on " + ranges
                + ", the real partitioning (must be 0) on " + real);
    }

    @Test
    void hashPartitioningDoneHonestlyFailsAlmostEveryInsertAndDelete() {
        // With the real range conditions a hashed key's leaf is never one worker's: nearly every
        // insert and delete fails its check and runs conservatively, so hashing gains nothing (pitfall 12).
        List<Committed> log = ParallelHarness.initialLog(workload(5, 3_000, 1.0, false));
        Replica r = parallel(ExecutionMode.OPT_PSMR, 2, hashed(false), new ParallelOptions.Schedule.Stepped(5), 0, 1);
        ParallelHarness.run(log, List.of(r));
        ParallelExecutor x = (ParallelExecutor) r.executor;
        assertThat(x.stats().failRate()).isGreaterThan(0.4);
    }

    @Test
    void aRestoredReplicaKeepsTheShapeAndTheVerdicts() throws IOException {
        List<Committed> log = ParallelHarness.initialLog(workload(6, 4_000, 0.7, true));
        Replica whole = parallel(ExecutionMode.OPT_PSMR, 3, KeyPartitioning.longKeys(KEY_MAX), new ParallelOptions.Schedule.Stepped(1), 0, 1);
        List<Committed> full = ParallelHarness.run(log, List.of(whole));
        Replica first = parallel(ExecutionMode.OPT_PSMR, 3, KeyPartitioning.longKeys(KEY_MAX), new ParallelOptions.Schedule.Stepped(2), 0, 1);
        for (int i = 0; i < 2_500; i++) first.executor.apply(full.get(i));
        first.executor.flush();
        ByteArrayOutputStream snap = new ByteArrayOutputStream();
        first.executor.writeSnapshot(snap);
        Replica restored = parallel(ExecutionMode.OPT_PSMR, 3, KeyPartitioning.longKeys(KEY_MAX), new ParallelOptions.Schedule.Stepped(3), 0, 1);
        restored.executor.restoreSnapshot(new ByteArrayInputStream(snap.toByteArray()));
        for (int i = 2_500; i < full.size(); i++) restored.executor.apply(full.get(i));
        restored.executor.flush();
        assertThat(image(restored)).isEqualTo(image(whole));
        List<String> both = new ArrayList<>(first.outcomes);
        both.addAll(restored.outcomes);
        assertThat(both).isEqualTo(whole.outcomes);
    }

    @Test
    void longKeyPartitioningHasNoOffByOneAtTheTop() {
        KeyPartitioning p = KeyPartitioning.longKeys(KEY_MAX);
        for (int k = 1; k <= 8; k++) {
            assertThat(p.workerOf(key(KEY_MAX), k)).isEqualTo(k - 1);
            assertThat(p.workerOf(key(0), k)).isZero();
            int last = 0;
            for (long x = 0; x <= KEY_MAX; x++) {
                int w = p.workerOf(key(x), k);
                assertThat(w).isBetween(last, k - 1);
                last = w;
            }
        }
        KeyPartitioning huge = KeyPartitioning.longKeys(Long.MAX_VALUE);
        assertThat(huge.workerOf(key(Long.MAX_VALUE), 3)).isEqualTo(2);
        assertThat(KeyPartitioning.parse("longs:100").workerOf(key(60), 2)).isEqualTo(1);
    }
}
