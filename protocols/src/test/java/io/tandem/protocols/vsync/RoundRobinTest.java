package io.tandem.protocols.vsync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The pure parts: round-robin arithmetic against a brute-force oracle (derecho.md §9.1 T9), and the config's validation. */
class RoundRobinTest {
    @Test
    void positionsAndTheirInverseFollowTheErratum() {
        // g = k·S + s (derecho.md Appendix A.1): S = 3, sender 1's message 4 is at 13.
        assertThat(RoundRobin.position(3, 1, 4)).isEqualTo(13);
        for (int senders = 1; senders <= 6; senders++) {
            for (long g = 0; g < 100; g++) {
                int s = RoundRobin.senderOf(senders, g);
                long k = RoundRobin.indexOf(senders, g);
                assertThat(RoundRobin.position(senders, s, k)).isEqualTo(g);
            }
        }
    }

    @Test
    void theReceivedPrefixMatchesABruteForceWalkOfTheOrder() {
        // The spec's example (derecho.md §4.2), in counts: recv = [5,3,4] as indexes is [6,4,5] held; the prefix ends before (sender 1, #4) = 13.
        assertThat(RoundRobin.prefix(new long[] {6, 4, 5}, 3)).isEqualTo(13);
        SplittableRandom random = new SplittableRandom(7);
        for (int trial = 0; trial < 2000; trial++) {
            int senders = 1 + random.nextInt(5);
            long[] held = new long[senders];
            for (int s = 0; s < senders; s++) held[s] = random.nextInt(20);
            long walk = 0;
            while (held[RoundRobin.senderOf(senders, walk)] > RoundRobin.indexOf(senders, walk)) walk++;
            assertThat(RoundRobin.prefix(held, senders)).as("held %s", java.util.Arrays.toString(held)).isEqualTo(walk);
        }
    }

    @Test
    void nullsFillExactlyTheTurnsOthersWaitFor() {
        // Sender 1 of 2 is idle; sender 0 sent 3 (indexes 0..2): position 5 (= sender 0, #2) waits for nothing from
        // sender 1 beyond its #1, so sender 1 owes 2 messages; sender 0 owes sender 1's count.
        assertThat(RoundRobin.owed(new long[] {3, 0}, 2, 1)).isEqualTo(2);
        assertThat(RoundRobin.owed(new long[] {0, 3}, 2, 0)).isEqualTo(3);
        SplittableRandom random = new SplittableRandom(11);
        for (int trial = 0; trial < 2000; trial++) {
            int senders = 2 + random.nextInt(4);
            long[] held = new long[senders];
            for (int s = 0; s < senders; s++) held[s] = random.nextInt(10);
            int me = random.nextInt(senders);
            long owed = RoundRobin.owed(held, senders, me);
            long[] after = held.clone();
            after[me] = Math.max(held[me], owed);
            // Once I sent what I owe, everything the others sent is in the prefix unless another sender is missing.
            long prefixWithoutMe = Long.MAX_VALUE;
            long last = 0;
            for (int s = 0; s < senders; s++) {
                if (s != me) prefixWithoutMe = Math.min(prefixWithoutMe, RoundRobin.position(senders, s, held[s]));
                if (held[s] > 0) last = Math.max(last, RoundRobin.position(senders, s, held[s] - 1) + 1);
            }
            assertThat(RoundRobin.prefix(after, senders)).isGreaterThanOrEqualTo(Math.min(prefixWithoutMe, last));
            // And not one null more than needed: one message fewer would leave another sender's last message waiting for me.
            if (owed > held[me]) {
                long[] short1 = after.clone();
                short1[me] = owed - 1;
                long lastOfOthers = 0;
                for (int s = 0; s < senders; s++) if (s != me && held[s] > 0) lastOfOthers = Math.max(lastOfOthers, RoundRobin.position(senders, s, held[s] - 1) + 1);
                assertThat(RoundRobin.prefix(short1, senders)).isLessThan(lastOfOthers);
            }
        }
    }

    @Test
    void theConfigRefusesSettingsThatCannotWork() {
        assertThatThrownBy(() -> VsyncConfig.DEFAULTS.withWindow(0, 512)).hasMessageContaining("window");
        assertThatThrownBy(() -> VsyncConfig.DEFAULTS.withWindow(16, 50)).hasMessageContaining("slotBytes");
        assertThatThrownBy(() -> VsyncConfig.DEFAULTS.withTimers(Duration.ofMillis(20), Duration.ofMillis(30), Duration.ofMillis(10), Duration.ZERO))
                .hasMessageContaining("suspicionNanos");
        assertThatThrownBy(() -> new VsyncEngine(io.tandem.engine.NodeId.of("x"), java.util.List.of(io.tandem.engine.NodeId.of("a")), VsyncConfig.DEFAULTS))
                .hasMessageContaining("not among the members");
        assertThat(VsyncConfig.DEFAULTS.smcPayloadBytes()).isEqualTo(512 - VsyncConfig.SLOT_HEADER);
        assertThat(VsyncConfig.DEFAULTS.maxPayloadBytes()).as("large messages by RDMC").isEqualTo(VsyncConfig.DEFAULT_MAX_LARGE_PAYLOAD);
    }

    @Test
    void theRowLayoutIsAlignedAndHoldsTheWholeRing() {
        VsyncRow row = new VsyncRow(VsyncConfig.DEFAULTS);
        assertThat(row.layout.rowBytes() % 64).isZero();
        VsyncRow.Block block = row.blocks.getFirst();
        assertThat(block.slots.length()).isEqualTo(VsyncConfig.DEFAULTS.window() * VsyncConfig.DEFAULTS.slotBytes());
        assertThat(block.index.offset()).isGreaterThan(row.lastCounter.offset()); // the guard is outside the control range
        assertThat(row.trimReady.offset()).isGreaterThan(row.lastCounter.offset()); // so is the trim flag
        assertThat(row.wedged.offset()).isLessThan(row.lastCounter.offset());
        // With three subgroups every block's counters are in the control range, and every guard and ring outside it.
        VsyncRow three = new VsyncRow(VsyncConfig.DEFAULTS, 3);
        assertThat(three.layout.rowBytes() % 64).isZero();
        for (VsyncRow.Block b : three.blocks) {
            assertThat(b.delivered.offset()).isLessThanOrEqualTo(three.lastCounter.offset());
            assertThat(b.index.offset()).isGreaterThan(three.lastCounter.offset());
            assertThat(b.slots.offset()).isGreaterThan(three.lastCounter.offset());
        }
    }
}
