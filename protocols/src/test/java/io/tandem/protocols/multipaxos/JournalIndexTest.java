package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.TreeMap;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.junit.jupiter.api.Test;

/** The acceptor's index of its journal records answers as a map from journal index to slots would. */
class JournalIndexTest {
    @Test
    void agreesWithAMapOverRandomAppendsAndDrops() {
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(19);
        JournalIndex index = new JournalIndex();
        TreeMap<Long, long[]> model = new TreeMap<>();
        long next = 7; // a restarted journal need not start at 1
        for (int step = 0; step < 50_000; step++) {
            if (random.nextInt(100) < 85) {
                long first = 1 + random.nextInt(100_000);
                long last = first + random.nextInt(300);
                index.add(next, first, last);
                model.put(next, new long[] {first, last});
                next++;
            } else {
                long through = next - 1 - random.nextInt(500);
                index.dropThrough(through);
                model.headMap(through, true).clear();
            }
            assertThat(index.isEmpty()).isEqualTo(model.isEmpty());
            assertThat(index.size()).isEqualTo(model.size());
            if (!model.isEmpty()) {
                assertThat(index.firstIndex()).isEqualTo(model.firstKey());
                assertThat(index.lastIndex()).isEqualTo(model.lastKey());
                long probe = model.firstKey() + random.nextInt(model.size());
                assertThat(index.firstSlot(probe)).isEqualTo(model.get(probe)[0]);
                assertThat(index.lastSlot(probe)).isEqualTo(model.get(probe)[1]);
            }
        }
    }

    @Test
    void indexesMustFollowEachOther() {
        JournalIndex index = new JournalIndex();
        index.add(3, 10, 12);
        assertThatThrownBy(() -> index.add(5, 13, 13)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> index.firstSlot(4)).isInstanceOf(IndexOutOfBoundsException.class);
        index.dropThrough(3);
        index.add(9, 1, 1); // empty again: the next record may start anywhere (a journal compacted to its end)
        assertThat(index.firstSlot(9)).isEqualTo(1);
    }
}
