package io.tandem.bench.vsync;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MulticastWindowTest {
    @Test
    void smallSlotsGetTheLargestWindow() {
        assertThat(MulticastBenchmark.windowFor(512)).as("64 B payload").isEqualTo(2048);
        assertThat(MulticastBenchmark.windowFor(1152)).as("1 KiB payload").isEqualTo(2048);
    }

    @Test
    void eightKibSlotsGetTwoHundredFiftySixAndLargerOnesNoFewerThanSixtyFour() {
        assertThat(MulticastBenchmark.windowFor(8320)).as("8 KiB payload").isEqualTo(256);
        assertThat(MulticastBenchmark.windowFor(1 << 20)).as("a slot larger than the ring budget").isEqualTo(64);
    }

    @Test
    void aWindowAboveSixtyFourNeverHoldsMoreThanTheRingBudgetNorMoreSendsThanTheQueueTakes() {
        for (int slot = 512; slot <= 64 * 1024; slot += 64) {
            int w = MulticastBenchmark.windowFor(slot);
            assertThat(Integer.bitCount(w)).as("power of two at slot %d", slot).isEqualTo(1);
            assertThat(w).isBetween(64, MulticastBenchmark.MAX_WINDOW);
            if (w > 64) assertThat((long) w * slot).as("ring at slot %d", slot).isLessThanOrEqualTo(MulticastBenchmark.RING_BYTES_PER_ROW);
        }
        // The benchmark's senders keep 2W sends in flight; the channel takes 4096 queued (withMaxQueuedSends).
        assertThat(2 * MulticastBenchmark.MAX_WINDOW).isLessThanOrEqualTo(4096);
        assertThat(MulticastBenchmark.windowFor(2176)).as("2 KiB payload").isEqualTo(1024);
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

    @Test
    void theDefaultJGroupsStackIsTheLegacyOneWithSequencerBetweenGmsAndMfc() {
        String xml = MulticastBenchmark.jgroupsStack(24900, "127.0.0.1[24900]", true);
        assertThat(xml).contains("bind_port=\"24900\"").contains("initial_hosts=\"127.0.0.1[24900]\"").contains("thread_pool.max_threads=\"8\"");
        assertThat(xml.indexOf("<pbcast.GMS")).isLessThan(xml.indexOf("<SEQUENCER/>"));
        assertThat(xml.indexOf("<SEQUENCER/>")).isLessThan(xml.indexOf("<MFC/>"));
        assertThat(MulticastBenchmark.jgroupsStack(24900, "127.0.0.1[24900]", false)).doesNotContain("SEQUENCER");
    }

    @Test
    void theDocumentedStackPutsSequencerAboveTheFlowControlAsSequencerXmlDoes() throws Exception {
        MulticastBenchmark.JGroupsStack before = MulticastBenchmark.currentJGroupsStack();
        try {
            MulticastBenchmark.useJGroupsStack(MulticastBenchmark.JGroupsStack.parse("documented"));
            String xml = MulticastBenchmark.jgroupsStack(24901, "127.0.0.1[24901]", true);
            assertThat(xml.indexOf("<UFC")).isLessThan(xml.indexOf("<MFC"));
            assertThat(xml.indexOf("<MFC")).isLessThan(xml.indexOf("<SEQUENCER/>"));
            assertThat(xml).contains("thread_pool.max_threads=\"200\"");
            // JGroups accepts every attribute of it (a misspelt one is an error when the stack is built; nothing is bound before connect).
            java.nio.file.Path f = java.nio.file.Files.createTempFile("jgroups-stack-test", ".xml");
            try {
                java.nio.file.Files.writeString(f, xml);
                new org.jgroups.JChannel(f.toString()).close();
            } finally {
                java.nio.file.Files.delete(f);
            }
        } finally {
            MulticastBenchmark.useJGroupsStack(before);
        }
    }

    @Test
    void anUnknownJGroupsStackIsAClearError() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> MulticastBenchmark.JGroupsStack.parse("fast"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--jgroups-stack wants documented or legacy");
    }

    @Test
    void theWarmUpIsAdaptiveUpToTwentySecondsUnlessToldOtherwise() {
        assertThat(MulticastBenchmark.maxWarmup(2, Double.NaN)).isEqualTo(MulticastBenchmark.DEFAULT_MAX_WARMUP);
        assertThat(MulticastBenchmark.maxWarmup(30, Double.NaN)).as("a longer minimum wins").isEqualTo(30);
        assertThat(MulticastBenchmark.maxWarmup(2, 2)).as("the fixed warm-up of old").isEqualTo(2);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> MulticastBenchmark.maxWarmup(4, 2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void warmOnceTheJitIsAtMostItsShareAndTheRateStoppedRising() {
        // Readings: JIT CPU s, JVM CPU s, deliveries so far; one second apart; 3 s of CPU over the two seconds.
        double[] two = {10, 100, 0};
        assertThat(MulticastBenchmark.warm(two, new double[] {10.05, 101.5, 1000}, new double[] {10.1, 103, 2000}, 5))
                .as("JIT 3.3 %%, rate flat").isTrue();
        assertThat(MulticastBenchmark.warm(two, new double[] {10.05, 101.5, 1000}, new double[] {10.1, 103, 2040}, 5))
                .as("rate up 4 %%").isTrue();
        assertThat(MulticastBenchmark.warm(two, new double[] {10.05, 101.5, 1000}, new double[] {10.1, 103, 2100}, 5))
                .as("rate still rising 10 %%").isFalse();
        assertThat(MulticastBenchmark.warm(two, new double[] {10.2, 101.5, 1000}, new double[] {10.4, 103, 2000}, 5))
                .as("JIT 13 %% of the CPU").isFalse();
        assertThat(MulticastBenchmark.warm(two, new double[] {Double.NaN, 101.5, 1000}, new double[] {Double.NaN, Double.NaN, 2000}, 5))
                .as("/proc unreadable: not known to be warm").isFalse();
    }
}
