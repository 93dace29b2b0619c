package io.tandem.jepsen.generator;

import io.tandem.history.Op;
import java.util.Objects;

/**
 * How a client says an operation ended (verification.md §1.4): {@code :ok} took effect (with the
 * result value), {@code :fail} definitely did not, {@code :info} may or may not have.
 *
 * @param error the {@code :error} of the completion, or {@code null}
 */
public record Completion(Op.Type type, Object value, Object error) {
    public Completion {
        Objects.requireNonNull(type, "type");
        if (type == Op.Type.INVOKE) throw new IllegalArgumentException("a completion cannot be an invocation");
    }

    public static Completion ok(Object value) {
        return new Completion(Op.Type.OK, value, null);
    }

    public static Completion fail(Object value, Object error) {
        return new Completion(Op.Type.FAIL, value, error);
    }

    public static Completion info(Object value, Object error) {
        return new Completion(Op.Type.INFO, value, error);
    }
}
