package io.tandem.sim.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Bursts share the receiver's wake-up (issue 18, session 15, {@code net.sharedWakeup}): a message sent while one to the same
 * receiver is on the way arrives with it, not after a wake-up of its own; off, every message draws its own latency as
 * before. Virtual time only.
 */
class SharedWakeupTest {
    private static final Distribution SPREAD = Distribution.parse("0:10,1:1000");

    @Test
    void offEveryMessageKeepsItsOwnDrawBitForBit() {
        NetworkModel a = new NetworkModel(SPREAD, 0, new SplittableRandom(7));
        NetworkModel b = new NetworkModel(SPREAD, 0, new SplittableRandom(7));
        b.setSharedWakeups(false);
        for (int i = 0; i < 50; i++) assertThat(b.arrival("c" + (i % 3), "n1", i, 64)).isEqualTo(a.arrival("c" + (i % 3), "n1", i, 64));
    }

    @Test
    void aMessageSentWhileOneToTheSameReceiverIsOnTheWayArrivesNoLaterThanIt() {
        NetworkModel net = new NetworkModel(SPREAD, 0, new SplittableRandom(7));
        net.setSharedWakeups(true);
        long first = net.arrival("a", "n1", 0, 64);
        // From other senders too: the receiver's I/O thread reads every ready connection in the turn it wakes for.
        for (int i = 1; i <= 20; i++) {
            long t = net.arrival(i % 2 == 0 ? "a" : "b", "n1", Math.min(i, first), 64);
            assertThat(t).isLessThanOrEqualTo(Math.max(first, Math.min(i, first) + 10));
        }
    }

    @Test
    void butNotBeforeTheWiresOwnTime() {
        NetworkModel net = new NetworkModel(Distribution.parse("0:100,1:101"), 0, new SplittableRandom(7));
        net.setSharedWakeups(true);
        long first = net.arrival("a", "n1", 0, 64); // 100 or 101
        assertThat(net.arrival("b", "n1", 50, 64)).isEqualTo(150); // the wake-up at ~100 is too early for it: the wire's minimum
        assertThat(first).isBetween(100L, 101L);
    }

    @Test
    void aMessageAfterTheReceiversWakeUpDrawsItsOwn() {
        NetworkModel on = new NetworkModel(SPREAD, 0, new SplittableRandom(7));
        NetworkModel off = new NetworkModel(SPREAD, 0, new SplittableRandom(7));
        on.setSharedWakeups(true);
        long first = on.arrival("a", "n1", 0, 64);
        off.arrival("a", "n1", 0, 64);
        // Sent after the first one arrived: nothing on the way to n1, so the same draw as without the structure.
        assertThat(on.arrival("b", "n1", first + 1, 64)).isEqualTo(off.arrival("b", "n1", first + 1, 64));
    }

    @Test
    void otherReceiversAreUnaffected() {
        NetworkModel on = new NetworkModel(SPREAD, 0, new SplittableRandom(7));
        NetworkModel off = new NetworkModel(SPREAD, 0, new SplittableRandom(7));
        on.setSharedWakeups(true);
        on.arrival("a", "n1", 0, 64);
        off.arrival("a", "n1", 0, 64);
        assertThat(on.arrival("a", "n2", 1, 64)).isEqualTo(off.arrival("a", "n2", 1, 64));
    }

    @Test
    void theTableKeyTurnsItOn() {
        assertThat(CostTable.of(java.util.Map.of("disk.fsync", "1000")).sharedWakeups()).isFalse();
        assertThat(CostTable.of(java.util.Map.of("disk.fsync", "1000", "net.sharedWakeup", "true")).sharedWakeups()).isTrue();
    }
}
