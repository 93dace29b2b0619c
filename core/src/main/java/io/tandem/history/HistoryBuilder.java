package io.tandem.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Records a history as it happens: each client process invokes, then completes, strictly alternating.
 * Indices are assigned densely from 0; the caller supplies times (virtual or {@code System.nanoTime()}
 * minus the test's origin) and, after an {@code :info} completion, continues the thread under a new
 * process number (Jepsen's {@code process + concurrency}), as verification.md §2.2 requires.
 *
 * <p>Not thread-safe: a simulator calls it from its single event loop; a multi-threaded runner must
 * serialize calls, which is also what keeps {@code :index} order equal to real-time order.
 */
public final class HistoryBuilder {
    private final List<Op> ops = new ArrayList<>();
    private final Map<Long, Op> pending = new HashMap<>();

    HistoryBuilder() {}

    /**
     * Records an invocation.
     *
     * @throws IllegalStateException if the process has an invocation that has not completed
     */
    public Op invoke(long time, long process, Object f, Object value) {
        Op earlier = pending.get(process);
        if (earlier != null) {
            throw new IllegalStateException("process " + process + " cannot invoke " + EdnWriter.toEdn(f)
                    + " while " + earlier + " is pending");
        }
        Op op = append(new Op(Op.NONE, time, Op.Type.INVOKE, process, f, value));
        pending.put(process, op);
        return op;
    }

    /** Completes the process's pending invocation with {@code :ok} and the given result value. */
    public Op ok(long time, long process, Object value) {
        return complete(time, process, Op.Type.OK, value, null);
    }

    /** Completes the pending invocation with {@code :fail}: it definitely had no effect. */
    public Op fail(long time, long process, Object value, Object error) {
        return complete(time, process, Op.Type.FAIL, value, error);
    }

    /** Completes the pending invocation with {@code :info}: it may or may not have taken effect. */
    public Op info(long time, long process, Object value, Object error) {
        return complete(time, process, Op.Type.INFO, value, error);
    }

    /**
     * Completes the process's pending invocation; the completion repeats the invocation's {@code :f}.
     *
     * @param error the {@code :error} value, or {@code null} for none
     * @throws IllegalStateException if the process has no pending invocation
     */
    public Op complete(long time, long process, Op.Type type, Object value, Object error) {
        Objects.requireNonNull(type, "type");
        if (type == Op.Type.INVOKE) {
            throw new IllegalArgumentException("use invoke() for invocations");
        }
        Op invocation = pending.remove(process);
        if (invocation == null) {
            throw new IllegalStateException("process " + process + " has no pending invocation to complete with "
                    + type.keyword());
        }
        Map<Object, Object> extras = new LinkedHashMap<>();
        if (error != null) {
            extras.put(Op.ERROR, error);
        }
        return append(new Op(Op.NONE, time, type, process, invocation.f(), value, extras));
    }

    /**
     * Records a fault-injection op ({@code :process :nemesis}, {@code :type :info}, as Jepsen writes both
     * the start and the end of a nemesis operation).
     */
    public Op nemesis(long time, Object f, Object value) {
        return append(new Op(Op.NONE, time, Op.Type.INFO, Op.NEMESIS, f, value));
    }

    /** True if the process has invoked and not yet completed. */
    public boolean isPending(long process) {
        return pending.containsKey(process);
    }

    /** Number of ops recorded so far. */
    public int size() {
        return ops.size();
    }

    /**
     * The history so far. Pending invocations stay uncompleted (checkers treat them as {@code :info});
     * the builder can keep recording afterwards.
     */
    public History build() {
        return History.of(ops);
    }

    private Op append(Op op) {
        Op indexed = op.withIndex(ops.size());
        ops.add(indexed);
        return indexed;
    }
}
