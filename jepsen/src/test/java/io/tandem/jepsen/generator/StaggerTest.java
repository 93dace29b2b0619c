package io.tandem.jepsen.generator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class StaggerTest {
    @Test
    void opsAreScheduledAUniformZeroToTwiceTheMeanGapApartOverAllThreads() {
        Stagger s = new Stagger(100); // mean gap 10 ms
        SplittableRandom r = new SplittableRandom(7);
        long previous = s.schedule(1_000, r);
        assertThat(previous).isEqualTo(1_000); // the first op is due at once
        long sum = 0;
        int n = 10_000;
        for (int i = 0; i < n; i++) {
            long at = s.schedule(0, r); // threads asking early get the scheduled slot
            long gap = at - previous;
            assertThat(gap).isBetween(0L, 20_000_000L - 1);
            sum += gap;
            previous = at;
        }
        assertThat(sum / (double) n).isBetween(9_500_000.0, 10_500_000.0);
    }

    @Test
    void aLateThreadGoesAtOnceAndTheScheduleRestartsFromThereWithoutABurst() {
        Stagger s = new Stagger(100);
        SplittableRandom r = new SplittableRandom(8);
        s.schedule(0, r);
        long late = 5_000_000_000L; // every thread was stuck for five seconds
        assertThat(s.schedule(late, r)).isEqualTo(late);
        long next = s.schedule(late, r); // asked at the same instant: not due before its gap
        assertThat(next - late).isBetween(0L, 20_000_000L - 1);
        long after = s.schedule(late, r);
        assertThat(after).isGreaterThanOrEqualTo(next);
    }
}
