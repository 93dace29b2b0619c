package io.tandem.checker;

import io.tandem.history.History;
import io.tandem.history.Keyword;
import io.tandem.history.Op;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The definition of linearizability, executed literally, as the oracle for the real checker: try every
 * order of the operations that respects real time, with every subset of the indeterminate operations
 * left out, and see if a legal sequential execution exists. No memoization, no partitioning, no "unknown
 * operations happen at the end" trick, and its own pairing of invocations with completions, so it shares
 * no reasoning with {@link LinearizabilityChecker}. Exponential: for histories of a handful of operations.
 */
final class BruteForceChecker {
    private static final Keyword READ = Keyword.of("read");
    private static final Keyword WRITE = Keyword.of("write");

    private record Call(Keyword f, Object key, Object argument, Object result, boolean mustHappen, int invokedAt,
                        int completedAt) {}

    private final List<Call> calls = new ArrayList<>();
    private final boolean keyed;
    private final NilReads nilReads;

    private BruteForceChecker(History history, boolean keyed, NilReads nilReads) {
        this.keyed = keyed;
        this.nilReads = nilReads;
        Map<Object, Integer> pending = new HashMap<>();
        List<Op> ops = history.ops();
        Map<Integer, Integer> completionOf = new HashMap<>();
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            if (!op.isClient()) {
                continue;
            }
            if (op.type() == Op.Type.INVOKE) {
                pending.put(op.process(), i);
            } else {
                completionOf.put(Objects.requireNonNull(pending.remove(op.process())), i);
            }
        }
        for (int i = 0; i < ops.size(); i++) {
            Op invoke = ops.get(i);
            if (!invoke.isClient() || invoke.type() != Op.Type.INVOKE) {
                continue;
            }
            Integer done = completionOf.get(i);
            Op.Type outcome = done == null ? Op.Type.INFO : ops.get(done).type();
            if (outcome == Op.Type.FAIL) {
                continue; // definitely had no effect
            }
            boolean ok = outcome == Op.Type.OK;
            Object key = keyed ? ((List<?>) invoke.value()).get(0) : null;
            Object argument = keyed ? ((List<?>) invoke.value()).get(1) : invoke.value();
            Object result = null;
            if (ok) {
                Object completed = ops.get(done).value();
                result = keyed ? ((List<?>) completed).get(1) : completed;
            }
            calls.add(new Call((Keyword) invoke.f(), key, argument, result, ok, i,
                    ok ? done : Integer.MAX_VALUE));
        }
    }

    /** True if the history is linearizable for independent cas registers starting at nil. */
    static boolean isLinearizable(History history, boolean keyed, NilReads nilReads) {
        BruteForceChecker checker = new BruteForceChecker(history, keyed, nilReads);
        return checker.search(new boolean[checker.calls.size()], new HashMap<>());
    }

    private boolean search(boolean[] done, Map<Object, Object> registers) {
        boolean allRequiredDone = true;
        for (int i = 0; i < calls.size(); i++) {
            if (!done[i] && calls.get(i).mustHappen()) {
                allRequiredDone = false;
                break;
            }
        }
        if (allRequiredDone) {
            return true; // the remaining indeterminate operations never took effect
        }
        for (int i = 0; i < calls.size(); i++) {
            if (done[i] || !mayGoNext(i, done)) {
                continue;
            }
            Call c = calls.get(i);
            Object current = registers.get(c.key());
            Map<Object, Object> after = new HashMap<>(registers);
            if (c.f().equals(READ)) {
                if (c.mustHappen() && !(c.result() == null && nilReads == NilReads.LENIENT)
                        && !Objects.equals(current, c.result())) {
                    continue;
                }
            } else if (c.f().equals(WRITE)) {
                after.put(c.key(), c.argument());
            } else {
                List<?> pair = (List<?>) c.argument();
                if (Objects.equals(current, pair.get(0))) {
                    after.put(c.key(), pair.get(1));
                } else if (c.mustHappen()) {
                    continue; // an acknowledged cas must have found its expected value
                }
                // an indeterminate cas that ran against another value failed without effect
            }
            done[i] = true;
            if (search(done, after)) {
                return true;
            }
            done[i] = false;
        }
        return false;
    }

    /** Real time: every acknowledged operation that completed before this one was invoked comes first. */
    private boolean mayGoNext(int candidate, boolean[] done) {
        int invokedAt = calls.get(candidate).invokedAt();
        for (int j = 0; j < calls.size(); j++) {
            if (!done[j] && j != candidate && calls.get(j).completedAt() < invokedAt) {
                return false;
            }
        }
        return true;
    }
}
