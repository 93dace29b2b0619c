package io.tandem.bench.vsync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.bench.SteadyState;
import java.util.List;
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
            assertThatThrownBy(() -> MulticastBenchmark.idleStrategy(bad))
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
        assertThatThrownBy(() -> MulticastBenchmark.JGroupsStack.parse("fast"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--jgroups-stack wants documented or legacy");
    }

    @Test
    void theWarmUpIsThePeerHarnessRuleOverTwoSecondsUpToTwentyUnlessToldOtherwise() {
        assertThat(MulticastBenchmark.warmupRule(2, -1, 5)).isEqualTo(new SteadyState(2, MulticastBenchmark.DEFAULT_MAX_WARMUP, 2, 0.05, 5));
        assertThat(MulticastBenchmark.warmupRule(30, -1, 5).maxSeconds()).as("a longer minimum wins").isEqualTo(30);
        assertThat(MulticastBenchmark.warmupRule(2, 2, 5).adaptive()).as("the fixed warm-up of old").isFalse();
        assertThatThrownBy(() -> MulticastBenchmark.warmupRule(4, 2, 5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--max-warmup must be >= --warmup");
        assertThatThrownBy(() -> MulticastBenchmark.seconds("--warmup", "2.5")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--warmup wants whole seconds >= 0, was '2.5'");
        assertThatThrownBy(() -> MulticastBenchmark.seconds("--max-warmup", "-1")).isInstanceOf(IllegalArgumentException.class);
        assertThat(MulticastBenchmark.seconds("--warmup", "3")).isEqualTo(3);
    }

    @Test
    void warmOnceTheJitIsAtMostItsShareOverTwoSecondsAndTheRateStoppedRising() {
        SteadyState rule = MulticastBenchmark.warmupRule(2, -1, 5);
        // Four seconds of 1000 deliveries, 1.5 s of CPU a second; JIT seconds so far at the end of each second.
        List<Long> flat = List.of(1000L, 1000L, 1000L, 1000L);
        List<Double> cpu = List.of(101.5, 103.0, 104.5, 106.0);
        assertThat(rule.done(flat, List.of(10.0, 10.05, 10.1, 10.15), cpu)).as("JIT 3.3 %%, rate flat").isTrue();
        assertThat(rule.done(flat.subList(0, 3), List.of(10.0, 10.05, 10.1), cpu.subList(0, 3)))
                .as("three seconds: two spans are not yet there").isFalse();
        assertThat(rule.done(List.of(1000L, 1000L, 1030L, 1030L), List.of(10.0, 10.05, 10.1, 10.15), cpu)).as("rate up 3 %%").isTrue();
        assertThat(rule.done(List.of(1000L, 1000L, 1100L, 1100L), List.of(10.0, 10.05, 10.1, 10.15), cpu))
                .as("rate still rising 10 %%").isFalse();
        assertThat(rule.done(flat, List.of(10.0, 10.05, 10.25, 10.45), cpu)).as("JIT 13 %% of the CPU over the last 2 s").isFalse();
        assertThat(rule.done(flat, List.of(10.0, 10.05, Double.NaN, Double.NaN), cpu)).as("/proc unreadable: not known to be warm").isFalse();
        List<Long> twenty = new java.util.ArrayList<>();
        List<Double> nan = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            twenty.add(1000L * (i + 1));
            nan.add(Double.NaN);
        }
        assertThat(rule.done(twenty, nan, nan)).as("still rising and unreadable: warm at the longest warm-up").isTrue();
    }
}
