package io.tandem.jepsen.generator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class StaggerTest {
    @Test
    void opsAreScheduledAUniformZeroToTwiceTheMeanGapApartOverAllThreads() {
        Stagger s = new Stagger(100); // mean gap 10 ms
        SplittableRandom r = new SplittableRandom(7);
        long first = s.schedule(1_000, r);
        assertThat(first).isEqualTo(1_000); // the first op is due at once
        long previous = first;
        long sum = 0;
        int n = 10_000;
        for (int i = 0; i < n; i++) {
            // "now" stays behind: a schedule that has fallen behind keeps its slots (it catches up), it does not restart.
            long at = s.schedule(0, r);
            long gap = at - previous;
            assertThat(gap).isBetween(0L, 20_000_000L - 1);
            sum += gap;
            previous = at;
        }
        assertThat(sum / (double) n).isBetween(9_500_000.0, 10_500_000.0);
    }
}
