package io.tandem.storage;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The loop's back-off after a slow NO_FSYNC round ({@link InlineBackoff}), on a simulated clock: a one-off slow round
 * (a preempted loop) hands the disk thread about a millisecond of rounds, not 100 ms; a disk slow on every round still
 * reaches the full back-off within a few rounds and then holds the loop once per back-off, as the fixed back-off did.
 */
class InlineBackoffTest {
    private static final long MS = 1_000_000L;

    @Test
    void aOneOffSlowRoundBacksOffForTheFirstBackoffOnly() {
        InlineBackoff b = new InlineBackoff();
        assertThat(b.ran(0, 100_000)).isZero(); // 0.1 ms: not slow
        assertThat(b.active(200_000)).isFalse();
        assertThat(b.ran(10 * MS, 13 * MS)).isEqualTo(MS); // preempted for 3 ms
        assertThat(b.active(13 * MS + MS / 2)).isTrue();
        assertThat(b.active(14 * MS)).isFalse();
        // Fast rounds for longer than the maximum back-off: the next slow round starts over at the first back-off.
        long t = 14 * MS;
        for (int i = 0; i < 200; i++, t += MS) assertThat(b.ran(t, t + 20_000)).isZero();
        assertThat(b.ran(t, t + 2 * MS)).isEqualTo(MS);
    }

    @Test
    void slowRoundsSoonAfterEachOtherDoubleTheBackoffUpToTheMaximum() {
        InlineBackoff b = new InlineBackoff();
        long t = 0;
        long[] expected = {1, 2, 4, 8, 16, 32, 64, 100, 100, 100};
        for (long ms : expected) {
            long backoff = b.ran(t, t + 5 * MS);
            assertThat(backoff).isEqualTo(ms * MS);
            t += 5 * MS + backoff; // the loop's next own round comes as the back-off ends, and is slow again
            assertThat(b.active(t - 1)).isTrue();
            assertThat(b.active(t)).isFalse();
        }
    }

    @Test
    void aStalledDiskHoldsTheLoopForAtMostSevenMoreRoundsThanAFixedBackoff() {
        // Rounds come every 1 ms; every round the loop runs itself takes 5 ms (the disk is stalled); over 10 s of it.
        assertThat(loopRoundsOnAStalledDisk(new InlineBackoff(), 10_000 * MS)).isLessThanOrEqualTo(100 + 7 + 1);
        assertThat(loopRoundsOnAStalledDisk(new FixedBackoff(), 10_000 * MS)).isLessThanOrEqualTo(100 + 1);
    }

    @Test
    void theCheckCatchesABackoffThatNeverGrows() {
        // A broken twin that always backs off for the first back-off only: a stalled disk would hold the loop on most rounds.
        assertThat(loopRoundsOnAStalledDisk(new NeverGrows(), 10_000 * MS)).isGreaterThan(100 + 7 + 1);
    }

    /** How many rounds the loop runs itself over {@code span} when each of those takes 5 ms (others: the disk thread's). */
    private static int loopRoundsOnAStalledDisk(InlineBackoff b, long span) {
        int onLoop = 0;
        for (long t = 0; t < span; ) {
            if (b.active(t)) {
                t += MS; // the disk thread takes this round; the loop goes on
                continue;
            }
            onLoop++;
            b.ran(t, t + 5 * MS);
            t += 5 * MS;
        }
        return onLoop;
    }

    /** The back-off before follow26: the maximum at once. */
    private static final class FixedBackoff extends InlineBackoff {
        FixedBackoff() {
            firstNanos = maxNanos;
        }
    }

    /** Broken twin: never grows past the first back-off. */
    private static final class NeverGrows extends InlineBackoff {
        NeverGrows() {
            maxNanos = firstNanos;
        }
    }
}
