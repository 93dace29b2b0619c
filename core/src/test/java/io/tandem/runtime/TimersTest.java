package io.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.TimerKey;
import org.junit.jupiter.api.Test;

class TimersTest {
    record Election() implements TimerKey {}

    record Heartbeat() implements TimerKey {}

    record Retry(int peer) implements TimerKey {}

    @Test
    void firesDueTimersInDeadlineOrder() {
        Timers t = new Timers();
        t.schedule(new Heartbeat(), 30);
        t.schedule(new Election(), 10);
        t.schedule(new Retry(2), 20);
        assertThat(t.due(5)).isEmpty();
        assertThat(t.nanosUntilNext(5)).isEqualTo(5);
        assertThat(t.due(25)).containsExactly(new Election(), new Retry(2));
        assertThat(t.due(100)).containsExactly(new Heartbeat());
        assertThat(t.nanosUntilNext(100)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void reArmingAKeyReplacesItsDeadline() {
        Timers t = new Timers();
        t.schedule(new Election(), 10);
        t.schedule(new Election(), 50);
        assertThat(t.due(20)).isEmpty();
        assertThat(t.due(50)).containsExactly(new Election());
        assertThat(t.size()).isZero();
    }

    @Test
    void keysAreComparedByValue() {
        Timers t = new Timers();
        t.schedule(new Retry(1), 10);
        t.schedule(new Retry(2), 10);
        t.cancel(new Retry(1));
        assertThat(t.due(10)).containsExactly(new Retry(2));
    }

    @Test
    void cancelledTimersNeverFireAndDoNotShortenTheWait() {
        Timers t = new Timers();
        t.schedule(new Election(), 10);
        t.schedule(new Heartbeat(), 40);
        t.cancel(new Election());
        assertThat(t.nanosUntilNext(0)).isEqualTo(40);
        assertThat(t.due(100)).containsExactly(new Heartbeat());
    }

    @Test
    void deadlinesSurviveNanoTimeWrapAround() {
        Timers t = new Timers();
        long nearMax = Long.MAX_VALUE - 5;
        t.schedule(new Election(), nearMax + 10); // wraps to a negative value
        assertThat(t.due(nearMax)).isEmpty();
        assertThat(t.due(nearMax + 10)).containsExactly(new Election());
    }

    @Test
    void aKeyArmedWithNoDelayFiresAtTheNextCheckAfterTheDueDeadlines() {
        Timers t = new Timers();
        t.schedule(new Heartbeat(), 10);
        t.scheduleNow(new Retry(1));
        assertThat(t.nanosUntilNext(0)).isZero(); // the loop must not park
        assertThat(t.due(Long.MIN_VALUE / 4)).containsExactly(new Retry(1)); // whatever the clock says
        t.scheduleNow(new Retry(2));
        assertThat(t.due(20)).containsExactly(new Heartbeat(), new Retry(2));
        assertThat(t.due(30)).isEmpty();
        assertThat(t.nanosUntilNext(30)).isEqualTo(Long.MAX_VALUE);
        assertThat(t.size()).isZero();
    }

    @Test
    void reArmingOrCancellingANoDelayKeyWins() {
        Timers t = new Timers();
        t.scheduleNow(new Election());
        t.schedule(new Election(), 100); // re-armed with a deadline: the no-delay arming is void
        t.scheduleNow(new Heartbeat());
        t.cancel(new Heartbeat());
        assertThat(t.nanosUntilNext(0)).isEqualTo(100);
        assertThat(t.due(50)).isEmpty();
        t.schedule(new Retry(3), 100);
        t.scheduleNow(new Retry(3)); // and the other way round
        t.scheduleNow(new Retry(3)); // twice: fires once
        assertThat(t.due(60)).containsExactly(new Retry(3));
        assertThat(t.due(100)).containsExactly(new Election());
    }

    /**
     * Many keys armed, re-armed, cancelled and fired in a random order (Copilot arms a key per slot): every check
     * agrees with a plain model (key -> deadline), so the key table's probing and its removals keep every armed key
     * findable, and it does not grow with keys that came and went.
     */
    @Test
    void manyKeysComingAndGoingAgreeWithAModel() {
        Timers t = new Timers();
        java.util.Map<TimerKey, Long> model = new java.util.HashMap<>();
        java.util.SplittableRandom random = new java.util.SplittableRandom(25);
        long now = 0;
        for (int step = 0; step < 20_000; step++) {
            TimerKey key = switch (random.nextInt(3)) {
                case 0 -> new Retry(random.nextInt(200));
                case 1 -> new Election();
                default -> new Heartbeat();
            };
            switch (random.nextInt(4)) {
                case 0, 1 -> {
                    long deadline = now + 1 + random.nextInt(50);
                    t.schedule(key, deadline);
                    model.put(key, deadline);
                }
                case 2 -> {
                    t.cancel(key);
                    model.remove(key);
                }
                default -> {
                    now += random.nextInt(10);
                    long at = now;
                    java.util.Set<TimerKey> expected = new java.util.HashSet<>();
                    model.entrySet().removeIf(e -> {
                        if (e.getValue() - at > 0) return false;
                        expected.add(e.getKey());
                        return true;
                    });
                    assertThat(new java.util.HashSet<>(t.due(now))).isEqualTo(expected);
                }
            }
            assertThat(t.size()).isEqualTo(model.size());
        }
    }
}
