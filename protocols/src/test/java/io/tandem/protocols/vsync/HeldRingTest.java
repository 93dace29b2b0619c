package io.tandem.protocols.vsync;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.ClientRequest;
import io.tandem.protocols.vsync.VsyncEngine.Held;
import java.util.ArrayDeque;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The held ring gives the same messages in the same order as the queue of {@link Held} it replaced. */
class HeldRingTest {

    @Test
    void matchesAQueueOfHeldThroughGrowthAndWrapAround() {
        ShardState.HeldRing ring = new ShardState.HeldRing();
        ArrayDeque<Held> queue = new ArrayDeque<>();
        Random random = new Random(19);
        long next = 0;
        for (int step = 0; step < 20_000; step++) {
            int op = random.nextInt(10);
            if (op < 5) { // add; runs of adds grow the ring past its first capacity many times
                ClientRequest.Session session = random.nextBoolean() ? ClientRequest.Session.NONE
                        : new ClientRequest.Session(1 + random.nextInt(5), next + 1, 0);
                Held h = new Held(random.nextInt(3), next++, random.nextLong(), session, new byte[random.nextInt(4)]);
                ring.add(h.kind(), h.index(), h.requestId(), h.session(), h.payload());
                queue.add(h);
            } else if (op < 8) {
                Held expected = queue.pollFirst();
                Held got = ring.pollFirst();
                if (expected == null) assertThat(got).isNull();
                else assertSame(got, expected);
            } else if (op < 9) {
                queue.pollFirst();
                ring.dropFirst();
            } else {
                assertThat(ring.size()).isEqualTo(queue.size());
                int i = 0;
                for (Held h : queue) assertSame(ring.get(i++), h);
            }
            assertThat(ring.isEmpty()).isEqualTo(queue.isEmpty());
        }
    }

    private static void assertSame(Held got, Held expected) {
        assertThat(got).isEqualTo(new Held(expected.kind(), expected.index(), expected.requestId(), expected.session(), expected.payload()));
        assertThat(got.payload()).isSameAs(expected.payload()); // the bytes handed over, not a copy
    }
}
