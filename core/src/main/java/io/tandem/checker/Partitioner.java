package io.tandem.checker;

import io.tandem.history.EdnWriter;
import io.tandem.history.History;
import io.tandem.history.HistoryException;
import io.tandem.history.Keyword;
import io.tandem.history.Op;
import io.tandem.history.Operation;
import io.tandem.history.Symbol;
import io.tandem.history.Tagged;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a history into register operations grouped by key, applying Knossos' preprocessing rules
 * (verification.md §2.2): only client processes count; {@code :fail} operations are dropped (they had
 * no effect); {@code :ok} operations take their value from the completion; {@code :info} operations and
 * invocations that never completed keep the invocation's value and may or may not have taken effect.
 * Operations that constrain nothing are dropped too: reads with an unknown result ({@code :info}, or
 * nil under {@link NilReads#LENIENT}).
 */
final class Partitioner {
    private static final Object SINGLE_KEY = new Object();

    private final History history;
    private final Model model;
    private final NilReads nilReads;
    private final Map<Object, Partition.Builder> partitions = new LinkedHashMap<>();

    private Partitioner(History history, Model model, NilReads nilReads) {
        this.history = history;
        this.model = model;
        this.nilReads = nilReads;
    }

    /** The partitions in order of first appearance, and the number of client operations seen. */
    record Prepared(List<Partition> partitions, int operations) {}

    static Prepared prepare(History history, Model model, NilReads nilReads) {
        return new Partitioner(history, model, nilReads).run();
    }

    private Prepared run() {
        List<Operation> operations = history.operations();
        for (Operation operation : operations) {
            add(operation);
        }
        List<Partition> result = new ArrayList<>(partitions.size());
        for (Map.Entry<Object, Partition.Builder> e : partitions.entrySet()) {
            result.add(e.getValue().build());
        }
        return new Prepared(result, operations.size());
    }

    private void add(Operation operation) {
        Op.Type outcome = operation.outcome();
        Function f = function(operation);
        if (outcome == Op.Type.FAIL) {
            key(operation); // still validate the shape, so a malformed history is reported, not ignored
            return;
        }
        boolean known = outcome == Op.Type.OK;
        Object key = key(operation);
        Object value = registerValue(operation, known);
        Partition.Builder partition = partitions.computeIfAbsent(key,
                k -> new Partition.Builder(k == SINGLE_KEY ? null : k, model.initialValue()));
        int callAt = operation.invokedAt();
        int returnAt = known ? operation.completedAt() : RegisterOp.NEVER;
        switch (f) {
            case READ -> {
                if (!known || (value == null && nilReads == NilReads.LENIENT)) {
                    return; // a read with an unknown result constrains nothing
                }
                partition.add(operation, RegisterOp.READ, partition.intern(value), 0, callAt, returnAt, value);
            }
            case WRITE -> partition.add(operation, RegisterOp.WRITE, partition.intern(value), 0, callAt, returnAt, value);
            case CAS -> {
                if (!(value instanceof List<?> pair) || pair.size() != 2) {
                    throw malformed(operation, "a :cas value must be [old new], found " + EdnWriter.toEdn(value));
                }
                Object expected = normalize(pair.get(0));
                Object replacement = normalize(pair.get(1));
                partition.add(operation, known ? RegisterOp.CAS : RegisterOp.CAS_MAYBE, partition.intern(expected),
                        partition.intern(replacement), callAt, returnAt, value);
            }
        }
    }

    private enum Function { READ, WRITE, CAS }

    private Function function(Operation operation) {
        Object f = operation.f();
        String name = switch (f) {
            case Keyword k -> k.name();
            case String s -> s;
            case Symbol s -> s.name();
            case null, default -> "";
        };
        return switch (name) {
            case "read" -> Function.READ;
            case "write" -> Function.WRITE;
            case "cas" -> Function.CAS;
            default -> throw malformed(operation, "the " + model.name() + " model has no operation :f "
                    + EdnWriter.toEdn(f) + " (expected :read, :write or :cas)");
        };
    }

    /** The partition key: the tuple key for the kv model, a single shared key otherwise. */
    private Object key(Operation operation) {
        if (!(model instanceof Model.KeyedCasRegisters)) {
            return SINGLE_KEY;
        }
        Tuple invoked = tuple(operation.invocation().value());
        if (invoked == null) {
            throw malformed(operation, "the kv model needs [key value] tuples, found :value "
                    + EdnWriter.toEdn(operation.invocation().value()));
        }
        if (operation.completion() != null) {
            Tuple completed = tuple(operation.completion().value());
            if (completed != null && !completed.key().equals(invoked.key())) {
                throw malformed(operation, "the completion's key " + EdnWriter.toEdn(completed.key())
                        + " differs from the invocation's key " + EdnWriter.toEdn(invoked.key()));
            }
        }
        return invoked.key();
    }

    /**
     * The register-level value of the operation: the completion's value for {@code :ok} operations (for a
     * read, the value read), the invocation's otherwise. A write or cas whose {@code :ok} completion does
     * not repeat its value falls back to the invocation's.
     */
    private Object registerValue(Operation operation, boolean known) {
        Object invoked = unwrap(operation.invocation().value());
        if (!known) {
            return invoked;
        }
        Object raw = operation.completion().value();
        Object completed = unwrap(raw);
        boolean isRead = function(operation) == Function.READ;
        if (!isRead && completed == null && (raw == null || model instanceof Model.KeyedCasRegisters)) {
            return invoked;
        }
        return completed;
    }

    private Object unwrap(Object value) {
        if (model instanceof Model.KeyedCasRegisters) {
            Tuple t = tuple(value);
            return t == null ? null : normalize(t.value());
        }
        return normalize(value);
    }

    private record Tuple(Object key, Object value) {}

    private static final Keyword KEY = Keyword.of("key");
    private static final Keyword VALUE = Keyword.of("value");

    /** A {@code [k v]} tuple, or a printed {@code #jepsen.independent.Tuple{:key k, :value v}}; else null. */
    private static Tuple tuple(Object value) {
        if (value instanceof List<?> l && l.size() == 2) {
            return new Tuple(normalize(l.get(0)), l.get(1));
        }
        if (value instanceof Tagged t && t.value() instanceof Map<?, ?> m && m.containsKey(KEY)) {
            return new Tuple(normalize(m.get(KEY)), m.get(VALUE));
        }
        if (value instanceof Map<?, ?> m && m.size() == 2 && m.containsKey(KEY) && m.containsKey(VALUE)) {
            return new Tuple(normalize(m.get(KEY)), m.get(VALUE));
        }
        return null;
    }

    /**
     * Makes numerically equal integers equal objects: a caller building a history in memory may pass
     * {@code Integer}s where a parsed history has {@code Long}s.
     */
    static Object normalize(Object value) {
        return switch (value) {
            case Integer i -> (long) i;
            case Short s -> (long) s;
            case Byte b -> (long) b;
            case BigInteger b when b.bitLength() < 64 -> b.longValue();
            case List<?> l when needsNormalizing(l) -> {
                List<Object> copy = new ArrayList<>(l.size());
                for (Object item : l) {
                    copy.add(normalize(item));
                }
                yield java.util.Collections.unmodifiableList(copy);
            }
            case null, default -> value;
        };
    }

    private static boolean needsNormalizing(List<?> list) {
        for (Object item : list) {
            if (normalize(item) != item) {
                return true;
            }
        }
        return false;
    }

    private HistoryException malformed(Operation operation, String message) {
        int at = operation.isCompleted() ? operation.completedAt() : operation.invokedAt();
        return new HistoryException(history.line(at), message + " (process " + operation.process() + ", "
                + (history.line(at) > 0 ? "" : history.where(at) + ", ") + "op " + history.get(at).toEdn() + ")");
    }

    /** Register values as small ints, so model states are ints and comparisons are cheap. */
    static final class ValueTable {
        private final Map<Object, Integer> ids = new HashMap<>();
        private final List<Object> values = new ArrayList<>();

        int intern(Object value) {
            Integer id = ids.get(value);
            if (id == null) {
                id = values.size();
                ids.put(value, id);
                values.add(value);
            }
            return id;
        }

        Object value(int id) {
            return values.get(id);
        }
    }
}
