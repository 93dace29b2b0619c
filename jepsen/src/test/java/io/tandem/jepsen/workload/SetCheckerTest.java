package io.tandem.jepsen.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.history.History;
import io.tandem.history.HistoryBuilder;
import io.tandem.history.Keyword;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SetCheckerTest {
    private static final Keyword ADD = Keyword.of("add");
    private static final Keyword READ = Keyword.of("read");

    /** A small history DSL: times are implicit, one step per call. */
    private static final class H {
        final HistoryBuilder b = History.builder();
        long t;

        H add(long p, long set, long e) {
            b.invoke(++t, p, ADD, List.of(set, e));
            return this;
        }

        H ok(long p, Object value) {
            b.ok(++t, p, value);
            return this;
        }

        H info(long p, Object value) {
            b.info(++t, p, value, Keyword.of("timeout"));
            return this;
        }

        H read(long p, long set) {
            b.invoke(++t, p, READ, Arrays.asList(set, null));
            return this;
        }

        H saw(long p, long set, Long... elements) {
            b.ok(++t, p, List.of(set, List.of(elements)));
            return this;
        }

        CheckOutcome check() {
            return SetChecker.check(b.build());
        }
    }

    private static long count(CheckOutcome o, String key) {
        return (Long) o.results().get(Keyword.of(key));
    }

    @Test
    void everyAcknowledgedElementInEveryLaterReadIsValid() {
        CheckOutcome o = new H().add(0, 0, 1).ok(0, List.of(0L, 1L)).read(1, 0).saw(1, 0, 1L)
                .add(0, 0, 2).ok(0, List.of(0L, 2L)).read(1, 0).saw(1, 0, 1L, 2L).check();
        assertThat(o.verdict()).isEqualTo(Verdict.VALID);
        assertThat(count(o, "acknowledged-count")).isEqualTo(2);
    }

    @Test
    void anAcknowledgedElementMissingFromTheLastReadIsLost() {
        CheckOutcome o = new H().add(0, 0, 1).ok(0, List.of(0L, 1L)).add(0, 0, 2).ok(0, List.of(0L, 2L))
                .read(1, 0).saw(1, 0, 1L).check();
        assertThat(o.verdict()).isEqualTo(Verdict.INVALID);
        assertThat(count(o, "lost-count")).isEqualTo(1);
        assertThat(o.results().get(Keyword.of("lost"))).isEqualTo(List.of(List.of(0L, 2L)));
    }

    @Test
    void anElementMissingFromAReadAfterItWasSeenButBackLaterIsStale() {
        CheckOutcome o = new H().add(0, 0, 5).info(0, List.of(0L, 5L)) // unknown outcome ...
                .read(1, 0).saw(1, 0, 5L)                                  // ... but a read saw it
                .read(2, 0).saw(2, 0)                                      // then a later read misses it
                .read(1, 0).saw(1, 0, 5L).check();
        assertThat(o.verdict()).isEqualTo(Verdict.INVALID);
        assertThat(count(o, "stale-count")).isEqualTo(1);
        assertThat(count(o, "recovered-count")).isEqualTo(1);
    }

    @Test
    void aReadConcurrentWithTheAddMayMissIt() {
        CheckOutcome o = new H().add(0, 0, 1).read(1, 0).ok(0, List.of(0L, 1L)).saw(1, 0)
                .read(1, 0).saw(1, 0, 1L).check();
        assertThat(o.verdict()).isEqualTo(Verdict.VALID);
    }

    @Test
    void duplicatedAndUnexpectedElementsAreAnomalies() {
        CheckOutcome dup = new H().add(0, 0, 1).ok(0, List.of(0L, 1L)).read(1, 0).saw(1, 0, 1L, 1L).check();
        assertThat(dup.verdict()).isEqualTo(Verdict.INVALID);
        assertThat(count(dup, "duplicated-count")).isEqualTo(1);
        CheckOutcome ghost = new H().add(0, 0, 1).ok(0, List.of(0L, 1L)).read(1, 0).saw(1, 0, 1L, 9L).check();
        assertThat(ghost.verdict()).isEqualTo(Verdict.INVALID);
        assertThat(count(ghost, "unexpected-count")).isEqualTo(1);
    }

    @Test
    void withoutAReadAfterTheLastAcknowledgedAddTheVerdictIsUnknown() {
        CheckOutcome o = new H().read(1, 0).saw(1, 0).add(0, 0, 1).ok(0, List.of(0L, 1L)).check();
        assertThat(o.verdict()).isEqualTo(Verdict.UNKNOWN);
    }

    @Test
    void setsAreCheckedIndependently() {
        CheckOutcome o = new H().add(0, 0, 1).ok(0, List.of(0L, 1L)).add(0, 1, 2).ok(0, List.of(1L, 2L))
                .read(1, 0).saw(1, 0, 1L).read(1, 1).saw(1, 1, 2L).check();
        assertThat(o.verdict()).isEqualTo(Verdict.VALID);
        assertThat(count(o, "sets")).isEqualTo(2);
    }
}
