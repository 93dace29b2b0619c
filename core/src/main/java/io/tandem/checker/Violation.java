package io.tandem.checker;

import io.tandem.history.Operation;
import java.util.List;

/**
 * Why one key (or the single register) is not linearizable: the search's deepest point.
 *
 * <p>The checker explores linearizations as a tree; {@code linearizedPrefix} is the longest sequence of
 * operations it managed to linearize (in linearization order, {@code :info} operations included when
 * they took effect), and {@code blocked} is the earliest-completing operation that no extension of that
 * prefix could place. {@code concurrent} are the operations whose real-time interval overlaps
 * {@code blocked}'s (operations with unknown outcomes never end), whether in the prefix or not.
 *
 * @param key the key, or {@code null} for the single-register model
 * @param blocked the operation that could not be linearized
 * @param linearizedPrefix longest linearizable prefix found
 * @param valueAfterPrefix the register's value after that prefix ({@code null} for nil)
 * @param concurrent the operations concurrent with {@code blocked}, in invocation order
 * @param summary one line naming the blocked operation, its source lines and the prefix
 * @param report several lines with the prefix's tail and the concurrent operations
 */
public record Violation(Object key, Operation blocked, List<Operation> linearizedPrefix, Object valueAfterPrefix,
                        List<Operation> concurrent, String summary, String report) {
    public Violation {
        linearizedPrefix = List.copyOf(linearizedPrefix);
        concurrent = List.copyOf(concurrent);
    }
}
