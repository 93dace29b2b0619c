package io.tandem.sim.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Laws of the virtual-time replay of the parallel executors (opt-psmr.md §5.4, §8.2 Mode S); virtual time only. */
class PsmrModelTest {
    private static final long EXEC = 1_000;
    private static final long CHECK = 100;
    private static final long BARRIER = 500;

    /** Independent commands spread evenly: K workers drain the log K times faster (route cost 0). */
    @Test
    void independentCommandsScaleLinearly() {
        for (int k : new int[] {1, 2, 4, 8, 16}) {
            List<PsmrModel.Entry> log = new ArrayList<>();
            for (int i = 0; i < 1_600; i++) log.add(new PsmrModel.Entry(1L << (i % k), 0, EXEC, false));
            PsmrModel.Result r = PsmrModel.replay(k, 0, BARRIER, log);
            assertThat(r.nanos()).isEqualTo(1_600 * EXEC / k);
            assertThat(r.executed()).isEqualTo(1_600);
            assertThat(r.synchronous()).isZero();
        }
    }

    /**
     * Every command to every worker (P-SMR at 100 % dependent): each pays the barrier of its K-1 other
     * participants, so the drain is the sequential time plus (K-1) barriers per command, and more workers are slower.
     */
    @Test
    void allDependentCommandsPayTheBarrierAndSlowDownWithMoreWorkers() {
        long previous = 0;
        for (int k = 1; k <= 16; k++) {
            long all = (1L << k) - 1;
            List<PsmrModel.Entry> log = new ArrayList<>();
            for (int i = 0; i < 100; i++) log.add(new PsmrModel.Entry(all, 0, EXEC, false));
            PsmrModel.Result r = PsmrModel.replay(k, 0, BARRIER, log);
            assertThat(r.nanos()).isEqualTo(100 * (EXEC + BARRIER * (k - 1)));
            assertThat(r.synchronous()).isEqualTo(k == 1 ? 0 : 100);
            assertThat(r.nanos()).isGreaterThanOrEqualTo(PsmrModel.sequential(java.util.Collections.nCopies(100, EXEC)).nanos());
            if (k > 1) assertThat(r.nanos()).isGreaterThan(previous);
            previous = r.nanos();
        }
    }

    /** A synchronous entry waits for its slowest participant (head-of-line blocking, opt-psmr.md §2.5) and holds no one else. */
    @Test
    void synchronousEntryStartsWhenItsLastParticipantArrives() {
        List<PsmrModel.Entry> log = List.of(
                new PsmrModel.Entry(0b001, 0, 5_000, false), // worker 0 busy until 5,000
                new PsmrModel.Entry(0b010, 0, 1_000, false), // worker 1 until 1,000
                new PsmrModel.Entry(0b011, 0, 1_000, false), // workers 0 and 1: start 5,000, one barrier, end 6,500
                new PsmrModel.Entry(0b100, 0, 2_000, false)); // worker 2 is not held: ends at 2,000
        PsmrModel.Result r = PsmrModel.replay(3, 0, BARRIER, log);
        assertThat(r.nanos()).isEqualTo(5_000 + BARRIER + 1_000);
        assertThat(r.synchronous()).isEqualTo(1);
    }

    /** The reader is a sequential stage: nothing drains faster than one route per entry, however many workers. */
    @Test
    void theReaderBoundsEveryExecutor() {
        SplittableRandom random = new SplittableRandom(1);
        for (int k : new int[] {1, 4, 16}) {
            List<PsmrModel.Entry> log = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) log.add(new PsmrModel.Entry(1L << random.nextInt(k), 0, 10, false));
            assertThat(PsmrModel.replay(k, 300, BARRIER, log).nanos()).isGreaterThanOrEqualTo(1_000 * 300L);
        }
    }

    /**
     * A failed check costs the check and no execution; its conservative copy runs in lock-step. With fails rarer than the
     * barrier is costly, the optimistic log drains faster than the conservative one (the paper's claim, §3.2).
     */
    @Test
    void optimisticBeatsConservativeWhenFailsAreRare() {
        int k = 8;
        long all = (1L << k) - 1;
        SplittableRandom random = new SplittableRandom(7);
        List<PsmrModel.Entry> conservative = new ArrayList<>();
        List<PsmrModel.Entry> optimistic = new ArrayList<>();
        List<PsmrModel.Entry> copies = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            int home = random.nextInt(k);
            conservative.add(new PsmrModel.Entry(all, 0, EXEC, false));
            boolean fails = random.nextInt(100) < 3;
            optimistic.add(new PsmrModel.Entry(1L << home, CHECK, EXEC, fails));
            if (fails) copies.add(new PsmrModel.Entry(all, 0, EXEC, false));
        }
        optimistic.addAll(copies);
        PsmrModel.Result c = PsmrModel.replay(k, 0, BARRIER, conservative);
        PsmrModel.Result o = PsmrModel.replay(k, 0, BARRIER, optimistic);
        assertThat(o.executed()).isEqualTo(c.executed());
        assertThat(o.synchronous()).isEqualTo(copies.size());
        assertThat(o.nanos()).isLessThan(c.nanos());
    }

    @Test
    void refusesMalformedEntries() {
        assertThatThrownBy(() -> new PsmrModel.Entry(0, 0, 1, false)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PsmrModel.Entry(0b11, 0, 1, true)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PsmrModel.replay(2, 0, 0, List.of(new PsmrModel.Entry(0b100, 0, 1, false)))).isInstanceOf(IllegalArgumentException.class);
    }
}
