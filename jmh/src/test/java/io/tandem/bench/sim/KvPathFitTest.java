package io.tandem.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The split of a thread group's CPU per put into a per-put and a per-wake-up part (KvPathCalibration.fit). */
class KvPathFitTest {
    @Test
    void pointsOnALineGiveItsInterceptAndSlope() {
        // 2 us per put plus 10 us per wake-up, at 1, 0.5, 0.1 and 0.02 wake-ups per put
        double[] x = {1, 0.5, 0.1, 0.02};
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) y[i] = 2_000 + 10_000 * x[i];
        KvPathCalibration.Split s = KvPathCalibration.fit(x, y);
        assertThat(s.perPut()).isCloseTo(2_000, within(1e-6));
        assertThat(s.perWakeup()).isCloseTo(10_000, within(1e-6));
        assertThat(s.rms()).isCloseTo(0, within(1e-6));
    }

    @Test
    void noPartIsNegative() {
        KvPathCalibration.Split throughOrigin = KvPathCalibration.fit(new double[] {1, 0.5, 0.1}, new double[] {12_000, 5_000, 800});
        assertThat(throughOrigin.perPut()).isZero();
        assertThat(throughOrigin.perWakeup()).isPositive();
        KvPathCalibration.Split flat = KvPathCalibration.fit(new double[] {1, 0.5, 0.1}, new double[] {1_000, 2_000, 3_000});
        assertThat(flat.perWakeup()).isZero();
        assertThat(flat.perPut()).isCloseTo(2_000, within(1e-6));
    }

    @Test
    void threadsAreGroupedByTheirNativeNames() {
        assertThat(KvPathCalibration.group("tandem-loop-r0")).isEqualTo("loop");
        assertThat(KvPathCalibration.group("tandem-clients-")).isEqualTo("server-io");
        assertThat(KvPathCalibration.group("tandem-kv-clien")).isEqualTo("client");
        assertThat(KvPathCalibration.group("C2 CompilerThre")).isEqualTo("jit");
        assertThat(KvPathCalibration.group("GC Thread#0")).isEqualTo("gc");
        assertThat(KvPathCalibration.group("java")).isEqualTo("client");
    }
}
