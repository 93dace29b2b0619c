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

    private record Scenario(String name, History history, Model model, int runs) {}

    public static void main(String[] args) {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 9;
        History oneKey = RegisterHistoryGenerator.generate(new Config(2_000, 10, 0, 5, 2, 0, Bug.NONE), 2);
        History oneKeyNoInfo = RegisterHistoryGenerator.generate(new Config(2_000, 10, 0, 5, 0, 0, Bug.NONE), 2);
        List<Scenario> scenarios = List.of(
                new Scenario("10k ops, 100 keys, 10 processes, 2% :info", RegisterHistoryGenerator.generate(
                        new Config(10_000, 10, 100, 5, 2, 50, Bug.NONE), 1), Model.kv(), runs),
                new Scenario("2k ops, 1 key, 10 processes, 2% :info", oneKey, Model.casRegister(), runs),
                new Scenario("2k ops, 1 key, 5 processes, 5% :info", RegisterHistoryGenerator.generate(
                        new Config(2_000, 5, 0, 5, 5, 50, Bug.NONE), 3), Model.casRegister(), runs),
                new Scenario("10k ops, 1 key, 10 processes, 2% :info", RegisterHistoryGenerator.generate(
                        new Config(10_000, 10, 0, 5, 2, 50, Bug.NONE), 4), Model.casRegister(), runs),
                new Scenario("10k ops, 100 keys, 10 processes, 2% :info, one bad read mid-way", withBadReadMidway(
                        RegisterHistoryGenerator.generate(new Config(10_000, 10, 100, 5, 2, 50, Bug.NONE), 5)), Model.kv(), runs),
                new Scenario("2k ops, 1 key, 10 processes, 0% :info, impossible last read", withImpossibleRead(oneKeyNoInfo),
                        Model.casRegister(), runs),
                new Scenario("2k ops, 1 key, 10 processes, 2% :info, impossible last read", withImpossibleRead(oneKey),
                        Model.casRegister(), Math.min(runs, 3)));
        System.out.printf("%s, %d cores; each scenario is run as many times to warm up, then measured%n",
                Runtime.version(), Runtime.getRuntime().availableProcessors());
        for (Scenario s : scenarios) {
            CheckResult result = null;
            long[] checkNanos = new long[s.runs()];
            long[] parseNanos = new long[s.runs()];
            String text = s.history().toEdn();
            for (int i = -s.runs(); i < s.runs(); i++) {
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
            String verdict = switch (result) {
                case CheckResult.Valid v -> "valid, " + v.steps() + " steps";
                case CheckResult.Invalid i -> "INVALID";
                case CheckResult.Unknown u -> "unknown: " + u.reason();
            };
            System.out.printf("%-62s %d runs: check median %8.1f ms (min %.1f, max %.1f), parse median %.1f ms; %s; %s%n",
                    s.name(), s.runs(), median(checkNanos), min(checkNanos), max(checkNanos), median(parseNanos),
                    verdict, outcomes);
        }
    }

    /** Makes the :ok read nearest the middle of a keyed history return a value nobody wrote. */
    private static History withBadReadMidway(History history) {
        List<Op> ops = new ArrayList<>(history.ops());
        for (int i = ops.size() / 2; i < ops.size(); i++) {
            Op op = ops.get(i);
            if (op.type() == Op.Type.OK && op.f().equals(RegisterHistoryGenerator.READ)) {
                ops.set(i, op.withValue(List.of(((List<?>) op.value()).getFirst(), 99L)));
                return History.of(ops);
            }
        }
        throw new IllegalStateException("no :ok read in the second half");
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
