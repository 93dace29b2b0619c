package io.tandem.checker;

import io.tandem.history.Operation;
import java.util.ArrayList;
import java.util.List;

/**
 * The operations on one key (or on the single register), checked independently of every other key.
 *
 * @param key the key, or {@code null} for the single-register model
 * @param ops the operations in invocation order
 * @param values the table mapping value ids back to EDN values
 * @param initial the value id of the register's initial value
 */
record Partition(Object key, List<RegisterOp> ops, Partitioner.ValueTable values, int initial) {
    static final class Builder {
        private final Object key;
        private final Partitioner.ValueTable values = new Partitioner.ValueTable();
        private final int initial;
        private final List<RegisterOp> ops = new ArrayList<>();

        Builder(Object key, Object initialValue) {
            this.key = key;
            this.initial = values.intern(Partitioner.normalize(initialValue));
        }

        int intern(Object value) {
            return values.intern(value);
        }

        void add(Operation source, int kind, int a, int b, int callAt, int returnAt, Object value) {
            ops.add(new RegisterOp(source, kind, a, b, callAt, returnAt, value));
        }

        Partition build() {
            return new Partition(key, List.copyOf(ops), values, initial);
        }
    }
}
