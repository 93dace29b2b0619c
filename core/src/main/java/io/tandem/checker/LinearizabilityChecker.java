package io.tandem.checker;

import io.tandem.history.EdnWriter;
import io.tandem.history.History;
import io.tandem.history.HistoryException;
import io.tandem.history.Op;
import io.tandem.history.Operation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Checks that a Jepsen history is linearizable with respect to a register {@link Model}.
 *
 * <pre>{@code
 * HistoryBuilder h = History.builder();
 * h.invoke(10, 0, Keyword.of("write"), 1);
 * h.invoke(12, 1, Keyword.of("read"), null);
 * h.ok(15, 0, 1);
 * h.ok(17, 1, 1);
 * CheckResult r = LinearizabilityChecker.check(h.build(), Model.casRegister(), CheckOptions.defaults());
 * }</pre>
 *
 * <p>The history's order is its real-time order: an operation precedes another if its completion comes
 * before the other's invocation. {@code :time} is not consulted (Knossos-era files have none).
 * Per key, the search is Wing–Gong–Lowe ({@link WglSearch}). Deterministic: the same history and options
 * always give the same verdict, unless a wall-clock {@link CheckOptions#timeout()} cuts the search
 * short, which yields {@link CheckResult.Unknown}, never a verdict.
 */
public final class LinearizabilityChecker {
    private static final int REPORT_PREFIX_TAIL = 8;
    private static final int REPORT_CONCURRENT = 16;
    private static final int SUMMARY_CONCURRENT = 3;

    private LinearizabilityChecker() {}

    /** Checks with {@link CheckOptions#defaults()}. */
    public static CheckResult check(History history, Model model) {
        return check(history, model, CheckOptions.defaults());
    }

    /**
     * Checks a history.
     *
     * @throws HistoryException if the history is malformed (a completion without invocation, an op the
     *     model does not know, a cas value that is not {@code [old new]}, a kv value that is not a
     *     {@code [key value]} tuple); the message names the line when the history came from text
     */
    public static CheckResult check(History history, Model model, CheckOptions options) {
        Partitioner.Prepared prepared = Partitioner.prepare(history, model, options.nilReads());
        Budget budget = new Budget(options.maxSteps(), options.maxMemoryBytes(), options.timeout());
        List<Violation> violations = new ArrayList<>();
        String unknown = null;
        long steps = 0;
        for (Partition partition : prepared.partitions()) {
            WglSearch search = new WglSearch(partition);
            WglSearch.Outcome outcome = search.run(budget);
            steps += search.steps();
            switch (outcome) {
                case LINEARIZABLE -> { }
                case NOT_LINEARIZABLE -> violations.add(violation(history, model, partition, search));
                case BUDGET_EXHAUSTED, MEMORY_EXHAUSTED -> {
                    if (unknown == null) {
                        String limit = outcome == WglSearch.Outcome.MEMORY_EXHAUSTED
                                ? "memory limit of " + (options.maxMemoryBytes() >> 20) + " MiB for remembering dead ends reached"
                                : budget.timedOut() ? "timed out after " + options.timeout()
                                : "search budget of " + budget.maxSteps() + " steps exhausted";
                        unknown = limit + " while checking " + keyName(partition.key()) + " ("
                                + partition.ops().size() + " operations)";
                    }
                }
            }
        }
        if (!violations.isEmpty()) {
            violations.sort(Comparator.comparingInt(v -> v.blocked().completedAt()));
            return new CheckResult.Invalid(prepared.operations(), violations);
        }
        if (unknown != null) {
            return new CheckResult.Unknown(prepared.operations(), unknown);
        }
        return new CheckResult.Valid(prepared.operations(), prepared.partitions().size(), steps);
    }

    private static Violation violation(History history, Model model, Partition partition, WglSearch search) {
        RegisterOp blocked = search.blocked();
        List<RegisterOp> prefix = search.deepestPrefix();
        Object valueAfter = partition.values().value(search.stateAfterDeepestPrefix());
        List<RegisterOp> concurrent = new ArrayList<>();
        Set<RegisterOp> inPrefix = Collections.newSetFromMap(new IdentityHashMap<>());
        inPrefix.addAll(prefix);
        for (RegisterOp op : partition.ops()) {
            if (op != blocked && op.callAt() < blocked.returnAt() && op.returnAt() > blocked.callAt()) {
                concurrent.add(op);
            }
        }
        int total = partition.ops().size();
        String where = partition.key() == null ? "" : keyName(partition.key()) + ": ";
        String value = EdnWriter.toEdn(valueAfter);

        StringBuilder summary = new StringBuilder()
                .append(where).append(describe(history, blocked)).append(" cannot be linearized; the longest linearizable prefix found has ")
                .append(prefix.size()).append(" of ").append(total).append(" operations and leaves the register at ").append(value);
        if (!concurrent.isEmpty()) {
            summary.append("; concurrent: ");
            appendList(summary, history, concurrent, SUMMARY_CONCURRENT, ", ");
        }

        StringBuilder report = new StringBuilder()
                .append("Not linearizable").append(partition.key() == null ? "" : " (" + keyName(partition.key()) + ")")
                .append(": no linearization can include ").append(describe(history, blocked)).append(".\n")
                .append("Longest linearizable prefix found: ").append(prefix.size()).append(" of ").append(total)
                .append(" operations (model ").append(model.name()).append(", initial value ")
                .append(EdnWriter.toEdn(partition.values().value(partition.initial()))).append(")");
        if (prefix.size() > REPORT_PREFIX_TAIL) {
            report.append(", the last ").append(REPORT_PREFIX_TAIL).append(" of them");
        }
        report.append(":\n");
        for (int i = Math.max(0, prefix.size() - REPORT_PREFIX_TAIL); i < prefix.size(); i++) {
            report.append("  ").append(i + 1).append(". ").append(describe(history, prefix.get(i))).append('\n');
        }
        report.append("after which the register holds ").append(value).append(".\n");
        if (concurrent.isEmpty()) {
            report.append("No operation was concurrent with it.");
        } else {
            report.append("Operations concurrent with it:");
            for (int i = 0; i < Math.min(REPORT_CONCURRENT, concurrent.size()); i++) {
                RegisterOp op = concurrent.get(i);
                report.append("\n  ").append(describe(history, op));
                if (inPrefix.contains(op)) {
                    report.append(" [in the prefix]");
                }
            }
            if (concurrent.size() > REPORT_CONCURRENT) {
                report.append("\n  ... and ").append(concurrent.size() - REPORT_CONCURRENT).append(" more");
            }
        }
        List<Operation> prefixOps = prefix.stream().map(RegisterOp::source).toList();
        List<Operation> concurrentOps = concurrent.stream().map(RegisterOp::source).toList();
        return new Violation(partition.key(), blocked.source(), prefixOps, valueAfter, concurrentOps,
                summary.toString(), report.toString());
    }

    private static void appendList(StringBuilder sb, History history, List<RegisterOp> ops, int limit, String separator) {
        for (int i = 0; i < Math.min(limit, ops.size()); i++) {
            if (i > 0) {
                sb.append(separator);
            }
            sb.append(describe(history, ops.get(i)));
        }
        if (ops.size() > limit) {
            sb.append(separator).append("... and ").append(ops.size() - limit).append(" more");
        }
    }

    /** E.g. {@code process 3 :cas [1 2] (:ok, lines 17-19)} or {@code process 4 :read -> 3 (:ok, lines 5-9)}. */
    static String describe(History history, RegisterOp op) {
        Operation source = op.source();
        StringBuilder sb = new StringBuilder("process ").append(EdnWriter.toEdn(source.process())).append(' ')
                .append(EdnWriter.toEdn(source.f())).append(op.kind() == RegisterOp.READ ? " -> " : " ")
                .append(EdnWriter.toEdn(op.value())).append(" (");
        int invokedAt = source.invokedAt();
        if (!source.isCompleted()) {
            sb.append("never completed, invoked at ").append(history.where(invokedAt));
        } else {
            int completedAt = source.completedAt();
            sb.append(EdnWriter.toEdn(source.completion().type().keyword())).append(", ");
            if (history.line(invokedAt) > 0) {
                sb.append("lines ").append(history.line(invokedAt)).append('-').append(history.line(completedAt));
            } else {
                sb.append("ops #").append(invokedAt).append("-#").append(completedAt);
            }
        }
        Object error = source.completion() == null ? null : source.completion().error();
        if (error != null && source.outcome() != Op.Type.OK) {
            sb.append(", error ").append(abbreviate(EdnWriter.toEdn(error)));
        }
        return sb.append(')').toString();
    }

    private static String keyName(Object key) {
        return key == null ? "the register" : "key " + EdnWriter.toEdn(key);
    }

    private static String abbreviate(String text) {
        return text.length() <= 60 ? text : text.substring(0, 60) + "...";
    }
}
