package io.tandem.jepsen.nemesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.history.Keyword;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class GrudgesTest {
    private static Map<Integer, Set<Integer>> grudge(String spec, int n, List<Integer> primaries, long seed) {
        return Grudges.of(Keyword.of(spec), n, () -> primaries, new SplittableRandom(seed));
    }

    /** Who node {@code a} can hear from: everyone but its grudge. */
    private static Set<Integer> hears(Map<Integer, Set<Integer>> g, int a, int n) {
        Set<Integer> s = new TreeSet<>();
        for (int i = 1; i <= n; i++) if (!g.getOrDefault(a, Set.of()).contains(i)) s.add(i);
        return s;
    }

    private static void assertSymmetric(Map<Integer, Set<Integer>> g) {
        g.forEach((a, drops) -> drops.forEach(b -> assertThat(g.get(b)).as("%s drops %s, so %s drops %s", a, b, b, a).contains(a)));
    }

    @Test
    void oneIsolatesASingleNodeBothWays() {
        for (long seed = 0; seed < 20; seed++) {
            var g = grudge("one", 5, List.of(), seed);
            assertSymmetric(g);
            long loners = g.values().stream().filter(d -> d.size() == 4).count();
            assertThat(loners).isEqualTo(1);
            assertThat(g.values().stream().filter(d -> d.size() == 1)).hasSize(4);
        }
    }

    @Test
    void majoritySplitsIntoRandomHalves() {
        Set<Set<Integer>> minorities = new HashSet<>();
        for (long seed = 0; seed < 30; seed++) {
            var g = grudge("majority", 5, List.of(), seed);
            assertSymmetric(g);
            Set<Integer> minority = new TreeSet<>();
            g.forEach((node, drops) -> {
                if (drops.size() == 3) minority.add(node);
                else assertThat(drops).hasSize(2);
            });
            assertThat(minority).hasSize(2);
            minorities.add(minority);
        }
        assertThat(minorities.size()).as("the halves are drawn at random").isGreaterThan(3);
    }

    @Test
    void majoritiesRingGivesEveryNodeADifferentMajority() {
        for (int n : new int[] {3, 5, 7}) {
            for (long seed = 0; seed < 10; seed++) {
                var g = grudge("majorities-ring", n, List.of(), seed);
                Set<Set<Integer>> views = new HashSet<>();
                for (int a = 1; a <= n; a++) {
                    Set<Integer> view = hears(g, a, n);
                    assertThat(view).contains(a).hasSize(n / 2 + 1);
                    views.add(view);
                }
                assertThat(views).as("no two nodes see the same majority (n=%d)", n).hasSize(n);
            }
        }
        assertSymmetric(grudge("majorities-ring", 5, List.of(), 3));
    }

    @Test
    void oneWayMakesOneNodeDeafButStillHeard() {
        var g = grudge("one-way", 5, List.of(), 11);
        assertThat(g).hasSize(1);
        var deaf = g.entrySet().iterator().next();
        assertThat(deaf.getValue()).hasSize(4).doesNotContain(deaf.getKey());
    }

    @Test
    void primariesAreEachCutOffAloneAndARandomNodeStandsInWithoutALeader() {
        var g = grudge("primaries", 5, List.of(2), 1);
        assertThat(g.get(2)).containsExactlyInAnyOrder(1, 3, 4, 5);
        assertThat(g.get(1)).containsExactly(2);
        var none = grudge("primaries", 5, List.of(), 1);
        assertThat(none.values().stream().filter(d -> d.size() == 4)).hasSize(1);
    }

    @Test
    void minorityThirdCutsOffLessThanAThird() {
        var g = grudge("minority-third", 7, List.of(), 5);
        assertThat(g.values().stream().filter(d -> d.size() == 5)).hasSize(2); // (7-1)/3 = 2 nodes cut off
        assertSymmetric(g);
    }

    @Test
    void unknownSpecsAreRefused() {
        assertThatThrownBy(() -> grudge("bridge", 5, List.of(), 1)).hasMessageContaining("bridge");
    }

    @Test
    void nodeSpecSizesFollowJepsen() {
        assertThat(Targets.majority(5)).isEqualTo(3);
        assertThat(Targets.majority(4)).isEqualTo(3);
        assertThat(Targets.minorityThird(5)).isEqualTo(1);
        assertThat(Targets.minorityThird(3)).isEqualTo(0);
    }
}
