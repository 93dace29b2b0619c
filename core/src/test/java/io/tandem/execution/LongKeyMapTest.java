package io.tandem.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LongKeyMapTest {
    /**
     * Random puts, replacements and removals against a {@link HashMap}, over few keys (long probe runs that
     * wrap around the end of the table, so the backward shift on removal meets every case) and over random
     * ones (growth), with every key checked after each step of the small run.
     */
    @Test
    void behavesLikeAHashMapThroughPutsRemovalsAndGrowth() {
        for (long seed = 1; seed <= 20; seed++) {
            Random random = new Random(seed);
            LongKeyMap<String> map = new LongKeyMap<>();
            Map<Long, String> model = new HashMap<>();
            List<Long> universe = new ArrayList<>();
            boolean small = seed % 2 == 0;
            for (int i = 0; i < (small ? 24 : 3_000); i++) universe.add(small ? i - 5L : random.nextLong());
            universe.add(0L);
            universe.add(Long.MIN_VALUE);
            for (int step = 0; step < 20_000; step++) {
                long key = universe.get(random.nextInt(universe.size()));
                if (random.nextInt(3) == 0) {
                    assertThat(map.remove(key)).isEqualTo(model.remove(key));
                } else {
                    String value = "v" + step;
                    assertThat(map.put(key, value)).isEqualTo(model.put(key, value));
                }
                assertThat(map.size()).isEqualTo(model.size());
                if (small) for (long k : universe) assertThat(map.get(k)).as("key %d at step %d", k, step).isEqualTo(model.get(k));
            }
            for (long k : universe) assertThat(map.get(k)).isEqualTo(model.get(k));
            map.clear();
            assertThat(map.size()).isZero();
            for (long k : universe) assertThat(map.get(k)).isNull();
        }
    }

    @Test
    void refusesNullValues() {
        assertThatThrownBy(() -> new LongKeyMap<String>().put(1, null)).isInstanceOf(NullPointerException.class);
    }
}
