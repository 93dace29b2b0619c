package io.tandem.bench.vsync;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MulticastWindowTest {
    @Test
    void smallSlotsGetTheLargestWindow() {
        assertThat(MulticastBenchmark.windowFor(512)).as("64 B payload").isEqualTo(256);
        assertThat(MulticastBenchmark.windowFor(1152)).as("1 KiB payload").isEqualTo(256);
    }

    @Test
    void largeSlotsKeepSixtyFourSlots() {
        assertThat(MulticastBenchmark.windowFor(8320)).as("8 KiB payload").isEqualTo(64);
        assertThat(MulticastBenchmark.windowFor(1 << 20)).as("a slot larger than the ring budget").isEqualTo(64);
    }

    @Test
    void aWindowAboveSixtyFourNeverHoldsMoreThanTheRingBudget() {
        for (int slot = 512; slot <= 64 * 1024; slot += 64) {
            int w = MulticastBenchmark.windowFor(slot);
            assertThat(Integer.bitCount(w)).as("power of two at slot %d", slot).isEqualTo(1);
            assertThat(w).isBetween(64, 256);
            if (w > 64) assertThat((long) w * slot).as("ring at slot %d", slot).isLessThanOrEqualTo(MulticastBenchmark.RING_BYTES_PER_ROW);
        }
        assertThat(MulticastBenchmark.windowFor(2176)).as("2 KiB payload").isEqualTo(128);
    }

    @Test
    void anIdleOptionSetsSpinsAndYieldsAndKeepsBackoffsParks() {
        io.tandem.runtime.IdleStrategy idle = MulticastBenchmark.idleStrategy("20,2");
        assertThat(idle.spins()).isEqualTo(20);
        assertThat(idle.yields()).isEqualTo(2);
        assertThat(idle.minPark()).isEqualTo(io.tandem.runtime.IdleStrategy.BACKOFF.minPark());
        assertThat(idle.maxPark()).isEqualTo(io.tandem.runtime.IdleStrategy.BACKOFF.maxPark());
    }

    @Test
    void aMalformedIdleOptionIsAClearError() {
        for (String bad : new String[] {"20", "20,x", "-1,2", "1,2,3", ""}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> MulticastBenchmark.idleStrategy(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("--idle wants spins,yields");
        }
    }
}
