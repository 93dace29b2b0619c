package io.tandem.checker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.tandem.checker.RegisterHistoryGenerator.Bug;
import io.tandem.checker.RegisterHistoryGenerator.Config;
import io.tandem.history.History;
import io.tandem.history.Op;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Random histories, with and without injected bugs, checked by both the real checker and the
 * brute-force oracle: every verdict must agree. Seeds are fixed, so a failure replays exactly; the
 * failing history is printed.
 */
class RandomHistoryCrossCheckTest {
    private static final int HISTORIES_PER_CASE = 600;

    @ParameterizedTest
    @EnumSource(Bug.class)
    void singleRegisterVerdictsMatchTheBruteForceOracle(Bug bug) {
        Config config = new Config(10, 3, 0, 2, 15, 30, bug);
        crossCheck(config, 1_000L * bug.ordinal(), false);
    }

    @ParameterizedTest
    @EnumSource(Bug.class)
    void keyedRegisterVerdictsMatchTheBruteForceOracle(Bug bug) {
        Config config = new Config(10, 3, 2, 2, 15, 30, bug);
        crossCheck(config, 50_000L + 1_000L * bug.ordinal(), true);
    }

    @ParameterizedTest
    @EnumSource(value = Bug.class, names = {"NONE", "STALE_READ", "LOST_WRITE"})
    void historiesFullOfIndeterminateOperationsMatchTheBruteForceOracle(Bug bug) {
        // Mostly :info and never-completed operations, with repeated values: exercises the search's
        // reductions for unknown outcomes (skipping no-op steps, ordering identical operations, dominance).
        Config config = new Config(10, 4, 0, 2, 45, 70, bug);
        crossCheck(config, 200_000L + 1_000L * bug.ordinal(), false);
    }

    @Test
    void mutatedReadsAndOutcomesMatchTheBruteForceOracle() {
        // Beyond the generator's bugs: rewrite one random completion's value or type, which produces
        // illegal histories of every shape (and some legal ones).
        SplittableRandom random = new SplittableRandom(77);
        Map<Verdict, Integer> seen = new EnumMap<>(Verdict.class);
        for (int i = 0; i < HISTORIES_PER_CASE; i++) {
            History original = RegisterHistoryGenerator.generate(new Config(6, 3, 0, 3, 10, 20, Bug.NONE), 90_000 + i);
            History mutated = mutate(original, random);
            for (NilReads nilReads : NilReads.values()) {
                seen.merge(compare(mutated, false, nilReads, "mutation " + i), 1, Integer::sum);
            }
        }
        assertThat(seen.getOrDefault(Verdict.VALID, 0)).isGreaterThan(HISTORIES_PER_CASE / 10);
        assertThat(seen.getOrDefault(Verdict.INVALID, 0)).isGreaterThan(HISTORIES_PER_CASE / 10);
    }

    @Test
    void generatedHistoriesWithoutBugsAreAlwaysValid() {
        // Larger than the oracle can handle, but linearizable by construction.
        for (int seed = 0; seed < 40; seed++) {
            Config config = new Config(400, 6, seed % 2 == 0 ? 0 : 5, 4, 5, 50, Bug.NONE);
            History history = RegisterHistoryGenerator.generate(config, seed);
            CheckResult result = LinearizabilityChecker.check(history, config.keys() == 0 ? Model.casRegister() : Model.kv());
            if (!result.isValid()) {
                fail("seed " + seed + ": " + result.summary() + "\n" + history.toEdn());
            }
        }
    }

    private enum Verdict { VALID, INVALID }

    private static void crossCheck(Config config, long firstSeed, boolean keyed) {
        Map<Verdict, Integer> seen = new EnumMap<>(Verdict.class);
        for (int i = 0; i < HISTORIES_PER_CASE; i++) {
            History history = RegisterHistoryGenerator.generate(config, firstSeed + i);
            for (NilReads nilReads : NilReads.values()) {
                seen.merge(compare(history, keyed, nilReads, "seed " + (firstSeed + i)), 1, Integer::sum);
            }
        }
        if (config.bug() == Bug.NONE) {
            assertThat(seen.getOrDefault(Verdict.INVALID, 0)).as("bug-free histories are linearizable").isZero();
        } else {
            // The bug does not always show (a stale read may return the current value), but often does.
            assertThat(seen.getOrDefault(Verdict.INVALID, 0)).as("verdicts " + seen).isGreaterThan(HISTORIES_PER_CASE / 50);
        }
    }

    private static Verdict compare(History history, boolean keyed, NilReads nilReads, String label) {
        boolean expected = BruteForceChecker.isLinearizable(history, keyed, nilReads);
        CheckResult actual = LinearizabilityChecker.check(history, keyed ? Model.kv() : Model.casRegister(),
                CheckOptions.defaults().withNilReads(nilReads));
        if (actual instanceof CheckResult.Unknown || actual.isValid() != expected) {
            fail(label + " with " + nilReads + " nil reads: oracle says " + (expected ? "valid" : "invalid")
                    + ", checker says " + actual.summary() + "\n" + history.toEdn());
        }
        if (actual instanceof CheckResult.Invalid invalid) {
            // The report must point at an operation that really is in the history.
            assertThat(history.ops()).contains(invalid.first().blocked().invocation());
        }
        return expected ? Verdict.VALID : Verdict.INVALID;
    }

    /** Replaces one completion's value (with a nearby value or nil) or turns an :ok into :fail or :info. */
    private static History mutate(History history, SplittableRandom random) {
        List<Op> ops = new ArrayList<>(history.ops());
        List<Integer> completions = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            if (ops.get(i).type() != Op.Type.INVOKE) {
                completions.add(i);
            }
        }
        if (completions.isEmpty()) {
            return history;
        }
        int at = completions.get(random.nextInt(completions.size()));
        Op op = ops.get(at);
        Op replacement = switch (random.nextInt(4)) {
            case 0, 1 -> op.f().equals(RegisterHistoryGenerator.READ)
                    ? op.withValue(random.nextInt(4) == 0 ? null : (long) random.nextInt(3))
                    : op;
            case 2 -> new Op(op.index(), op.time(), Op.Type.FAIL, op.process(), op.f(), op.value(), op.extras());
            default -> new Op(op.index(), op.time(), Op.Type.INFO, op.process(), op.f(), op.value(), op.extras());
        };
        ops.set(at, replacement);
        return History.of(ops);
    }
}
