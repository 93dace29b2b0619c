package io.tandem.history;

import java.util.Objects;

/**
 * A client invocation paired with its completion, as {@link History#operations()} returns it.
 *
 * @param invokedAt position of the invocation in {@link History#ops()}
 * @param invocation the {@code :invoke} op
 * @param completedAt position of the completion, or -1 if the invocation never completed
 * @param completion the {@code :ok}, {@code :fail} or {@code :info} op, or {@code null} if the
 *     invocation never completed (Knossos treats such an invocation as {@code :info})
 */
public record Operation(int invokedAt, Op invocation, int completedAt, Op completion) {
    public Operation {
        Objects.requireNonNull(invocation, "invocation");
        if (invocation.type() != Op.Type.INVOKE) {
            throw new IllegalArgumentException("not an invocation: " + invocation);
        }
        if ((completion == null) != (completedAt < 0)) {
            throw new IllegalArgumentException("completedAt must be -1 exactly when there is no completion");
        }
        if (completion != null && completion.type() == Op.Type.INVOKE) {
            throw new IllegalArgumentException("not a completion: " + completion);
        }
    }

    /** {@code OK}, {@code FAIL} or {@code INFO}; an invocation that never completed counts as {@code INFO}. */
    public Op.Type outcome() {
        return completion == null ? Op.Type.INFO : completion.type();
    }

    /** True if the invocation has a completion op in the history. */
    public boolean isCompleted() {
        return completion != null;
    }

    public Object process() {
        return invocation.process();
    }

    /** The invocation's {@code :f}, which a completion repeats. */
    public Object f() {
        return invocation.f();
    }
}
