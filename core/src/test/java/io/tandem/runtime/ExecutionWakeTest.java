package io.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The loop's rule for waking execution (raft27): entries nobody here waits for are queued quietly and run at the latest
 * with every {@link ExecutionWake#QUIET_HAND_OFFS}th hand-off or once the quiet delay passed (the loop's park is cut to
 * it); entries someone waits for wake execution at once, and with them the quiet ones queued before. A simulated clock
 * and a model of the loop's and the execution thread's use of the rule, as {@link NodeRuntime} uses it.
 */
class ExecutionWakeTest {
    private static final long MS = 1_000_000L;

    /** The loop and the execution queue around a rule: hand-offs, turns, parks; when each batch ran. */
    private static final class Model {
        final long[] clock = {0};
        final ExecutionWake wake;
        final List<String> queued = new ArrayList<>();
        final List<String> ran = new ArrayList<>();
        int wakeUps;

        /** A rule with this quiet delay reading the model's clock; {@code brokenTwin}: the twin that ignores waiters. */
        Model(long quietNanos, boolean brokenTwin) {
            this.wake = brokenTwin ? new IgnoresWaiters(quietNanos, clock) : new ExecutionWake(quietNanos, () -> clock[0]);
        }

        /** Around a given rule (its own clock). */
        Model(ExecutionWake wake) {
            this.wake = wake;
        }

        /** The loop hands over a batch at {@code at} (ms) and ends its turn; {@code someoneWaits}: a request is pending here. */
        void handOff(long at, String batch, boolean someoneWaits) {
            clock[0] = at * MS;
            queued.add(batch);
            if (wake.entriesWakeNow(someoneWaits)) runAll();
            else turnEnds();
        }

        /** The end of a loop turn at the current time: wakes execution if the quiet work is due. */
        void turnEnds() {
            if (wake.waiting() && wake.dueAt(clock[0])) runAll();
        }

        /** The loop parks at {@code at} (ms) for up to {@code wait} ns and runs a turn at the end of the (possibly cut) park. */
        void park(long at, long wait) {
            clock[0] = at * MS;
            clock[0] += wake.waiting() ? wake.parkNanos(wait, clock[0]) : wait;
            turnEnds();
        }

        private void runAll() {
            wake.woken();
            wakeUps++;
            for (String b : queued) ran.add(b + "@" + clock[0] / MS);
            queued.clear();
        }
    }

    private static Model clocked(long quietNanos, boolean brokenTwin) {
        return new Model(quietNanos, brokenTwin);
    }

    /** Broken twin: queues entries quietly even while a request here waits for them. */
    private static final class IgnoresWaiters extends ExecutionWake {
        IgnoresWaiters(long quietNanos, long[] clock) {
            super(quietNanos, () -> clock[0]);
        }

        @Override
        boolean entriesWakeNow(boolean someoneWaits) {
            return super.entriesWakeNow(false);
        }
    }

    @Test
    void offByDefaultEveryHandOffWakesExecutionWithoutReadingTheClock() {
        ExecutionWake rule = new ExecutionWake(0, () -> {
            throw new AssertionError("the clock is read only for quiet work");
        });
        Model m = new Model(rule);
        for (int i = 0; i < 6; i++) m.handOff(i, "b" + i, false);
        assertThat(m.wakeUps).isEqualTo(6);
        assertThat(m.ran).containsExactly("b0@0", "b1@1", "b2@2", "b3@3", "b4@4", "b5@5");
        assertThat(RuntimeConfig.DEFAULTS.quietApply()).isZero();
    }

    @Test
    void underSteadyEntriesNobodyWaitsForExecutionWakesOncePerQuietHandOffsInOrder() {
        Model m = clocked(5 * MS, false);
        for (int i = 0; i < 8; i++) m.handOff(i, "b" + i, false); // one AppendEntries per ms, nobody waits here
        assertThat(m.wakeUps).isEqualTo(8 / ExecutionWake.QUIET_HAND_OFFS);
        assertThat(m.ran).containsExactly("b0@3", "b1@3", "b2@3", "b3@3", "b4@7", "b5@7", "b6@7", "b7@7");
    }

    @Test
    void whenEntriesStopTheLoopsParkIsCutSoThatQuietWorkRunsWithinTheDelay() {
        Model m = clocked(5 * MS, false);
        m.handOff(10, "b0", false);
        m.handOff(11, "b1", false);
        m.park(11, 10 * MS); // the loop's longest park: cut to b0's deadline, 15 ms
        assertThat(m.ran).containsExactly("b0@15", "b1@15");
        assertThat(m.wake.waiting()).isFalse();
        m.park(15, 10 * MS); // nothing queued: the park is not cut
        assertThat(m.wakeUps).isEqualTo(1);
    }

    @Test
    void entriesSomeoneWaitsForWakeExecutionAtOnceAndTheQuietOnesBeforeThemRunFirst() {
        Model m = clocked(5 * MS, false);
        m.handOff(0, "quiet", false);
        m.handOff(1, "awaited", true); // a request is pending here now
        assertThat(m.ran).containsExactly("quiet@1", "awaited@1");
        // A session lookup queued quietly with a shorter delay keeps the earlier deadline.
        m.handOff(2, "q2", false);           // due at 7
        m.wake.queuedQuietly(1 * MS);        // a lookup at 2: due at 3
        m.park(2, 10 * MS);
        assertThat(m.ran).endsWith("q2@3");
    }

    @Test
    void theBrokenTwinThatIgnoresWaitersDelaysAnAwaitedEntry() {
        Model twin = clocked(5 * MS, true);
        twin.handOff(0, "awaited", true);
        assertThat(twin.ran).as("the twin leaves an entry a request waits for in the queue").isEmpty();
        twin.park(0, 10 * MS);
        assertThat(twin.ran).containsExactly("awaited@5");
        Model right = clocked(5 * MS, false);
        right.handOff(0, "awaited", true);
        assertThat(right.ran).containsExactly("awaited@0");
    }

    @Test
    void theDelayIsValidated() {
        assertThatThrownBy(() -> new ExecutionWake(-1, () -> 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("quietApplyNanos must be >= 0");
        assertThatThrownBy(() -> RuntimeConfig.DEFAULTS.withQuietApply(java.time.Duration.ofMillis(101)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("quietApply must be in [0, 100 ms]");
        assertThatThrownBy(() -> RuntimeConfig.DEFAULTS.withQuietApply(java.time.Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThat(RuntimeConfig.DEFAULTS.withQuietApply(java.time.Duration.ofMillis(5)).quietApply()).isEqualTo(java.time.Duration.ofMillis(5));
    }
}
