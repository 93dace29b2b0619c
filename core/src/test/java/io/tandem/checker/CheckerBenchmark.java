package io.tandem.checker;

import io.tandem.checker.RegisterHistoryGenerator.Bug;
import io.tandem.checker.RegisterHistoryGenerator.Config;
import io.tandem.history.History;
import io.tandem.history.Keyword;
import io.tandem.history.Op;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Measures the checker on generated histories (not a unit test: it asserts nothing and is not run by
 * {@code mvn verify}). Run it with:
 *
 * <pre>
 * ./mvnw -q -B -o -pl core test-compile
 * java -cp core/target/classes:core/target/test-classes io.tandem.checker.CheckerBenchmark [runs]
 * </pre>
 *
 * Prints, per scenario, the median, min and max wall time of the check over {@code runs} runs (after
 * as many warm-up runs), plus the time to parse the history's EDN text.
 */
public final class CheckerBenchmark {
    private CheckerBenchmark() {}

    private record Scenario(String name, History history, Model model) {}

    public static void main(String[] args) {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 9;
        List<Scenario> scenarios = List.of(
                new Scenario("10k ops, 100 keys, 10 processes, ~2% :info", RegisterHistoryGenerator.generate(
                        new Config(10_000, 10, 100, 5, 2, 50, Bug.NONE), 1), Model.kv()),
                new Scenario("2k ops, 1 key, 10 processes, ~2% :info", RegisterHistoryGenerator.generate(
                        new Config(2_000, 10, 0, 5, 2, 50, Bug.NONE), 2), Model.casRegister()),
                new Scenario("2k ops, 1 key, 5 processes, ~5% :info", RegisterHistoryGenerator.generate(
                        new Config(2_000, 5, 0, 5, 5, 50, Bug.NONE), 3), Model.casRegister()),
                new Scenario("2k ops, 1 key, 10 processes, ~2% :info, one impossible read at the end",
                        withImpossibleRead(RegisterHistoryGenerator.generate(new Config(2_000, 10, 0, 5, 2, 0, Bug.NONE), 2)),
                        Model.casRegister()),
                new Scenario("10k ops, 1 key, 10 processes, ~2% :info", RegisterHistoryGenerator.generate(
                        new Config(10_000, 10, 0, 5, 2, 50, Bug.NONE), 4), Model.casRegister()));
        System.out.printf("%s, %d cores, %d runs per scenario after %d warm-up runs%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors(), runs, runs);
        for (Scenario s : scenarios) {
            CheckResult result = null;
            long[] checkNanos = new long[runs];
            long[] parseNanos = new long[runs];
            String text = s.history().toEdn();
            for (int i = -runs; i < runs; i++) {
                long t0 = System.nanoTime();
                History parsed = History.parse(text);
                long t1 = System.nanoTime();
                result = LinearizabilityChecker.check(parsed, s.model(), CheckOptions.defaults());
                long t2 = System.nanoTime();
                if (i >= 0) {
                    parseNanos[i] = t1 - t0;
                    checkNanos[i] = t2 - t1;
                }
            }
            Map<Op.Type, Integer> outcomes = RegisterHistoryGenerator.outcomes(s.history());
            String steps = result instanceof CheckResult.Valid v ? v.steps() + " steps" : "";
            System.out.printf("%-75s check median %8.1f ms (min %.1f, max %.1f) | parse %.1f ms | %s %s | %s%n",
                    s.name(), median(checkNanos), min(checkNanos), max(checkNanos), median(parseNanos),
                    result.getClass().getSimpleName(), steps, outcomes);
        }
    }

    /** Appends a read of a value nobody wrote, invoked after everything completed: always illegal. */
    private static History withImpossibleRead(History history) {
        List<Op> ops = new ArrayList<>(history.ops());
        long time = ops.getLast().time();
        Keyword read = Keyword.of("read");
        ops.add(new Op(ops.size(), time + 1, Op.Type.INVOKE, 1_000_000L, read, null));
        ops.add(new Op(ops.size(), time + 2, Op.Type.OK, 1_000_000L, read, 99L));
        return History.of(ops);
    }

    private static double median(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2] / 1e6;
    }

    private static double min(long[] nanos) {
        return Arrays.stream(nanos).min().orElse(0) / 1e6;
    }

    private static double max(long[] nanos) {
        return Arrays.stream(nanos).max().orElse(0) / 1e6;
    }
}
