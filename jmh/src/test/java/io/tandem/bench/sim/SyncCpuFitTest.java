package io.tandem.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The split of the storage thread's CPU per sync into wake-up, per-sync and per-record parts ({@code --sync-cpu}). */
class SyncCpuFitTest {
    @Test
    void recoversTheTermsOfExactMeasurements() {
        // W 60,000, F 5,000, E 1,000 ns: parked batches of 1, 8 and 40, and streaming at 100 records per sync.
        List<double[]> regimes = List.of(new double[] {1, 1, 66_000}, new double[] {1, 8, 73_000}, new double[] {1, 40, 105_000},
                new double[] {0, 100, 105_000});
        assertThat(CostCalibration.syncCpuFit(regimes)).containsExactly(60_000L, 5_000L, 1_000L);
    }

    @Test
    void aTermThatWouldComeOutNegativeIsHeldAtZeroAndTheBestOfTheRestWins() {
        // The 21:29 UTC measurement of session 15: unconstrained, F comes out at -22 us; held at 0, W 80.4 us and E 0.83 us
        // fit best (holding W at 0 instead leaves four times the squared error).
        List<double[]> regimes = List.of(new double[] {1, 1, 71_000}, new double[] {1, 8, 95_400}, new double[] {1, 40, 115_700},
                new double[] {0, 139.1, 115_100});
        long[] wfe = CostCalibration.syncCpuFit(regimes);
        assertThat(wfe[1]).isZero();
        assertThat(wfe[0]).isBetween(80_300L, 80_500L);
        assertThat(wfe[2]).isBetween(830L, 840L);
    }
}
