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

    @Test
    void theRecordKeyIsTheWallSlopeLessTheBandwidthTerm() {
        // An exact line: 200 us + 4 us per record; 152 B at 152 MB/s is 1 us, so 3 us per record remain.
        List<double[]> walls = List.of(new double[] {1, 204_000}, new double[] {8, 232_000}, new double[] {40, 360_000});
        assertThat(CostCalibration.wallSlope(walls)).isCloseTo(4_000.0, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(CostCalibration.recordNanos(walls, 152, 152e6)).isEqualTo(3_000L);
        // Session 17's 02:42 UTC measurement (p50 256.8 / 308.1 / 432.2 us), default table's 403.5 MB/s: 4.31 us - 0.38 us.
        List<double[]> measured = List.of(new double[] {1, 256_800}, new double[] {8, 308_100}, new double[] {40, 432_200});
        assertThat(CostCalibration.recordNanos(measured, 152, 403_515_408)).isBetween(3_920L, 3_940L);
        // A wall time that does not grow with the records gives 0, never a negative key.
        assertThat(CostCalibration.recordNanos(List.of(new double[] {1, 300_000}, new double[] {40, 290_000}), 152, 403_515_408)).isZero();
    }
}
