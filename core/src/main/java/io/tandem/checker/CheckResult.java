package io.tandem.checker;

import java.util.List;

/**
 * The verdict of a linearizability check. {@link Unknown} is never a "probably valid": it means the
 * search ran out of budget or time before finding either a linearization or a proof that none exists.
 */
public sealed interface CheckResult {
    /** Client operations considered (invocations, including those that failed or never completed). */
    int operations();

    /** One line for humans, such as {@code valid (120 operations, 12 keys)}. */
    String summary();

    /** True only for {@link Valid}. */
    default boolean isValid() {
        return this instanceof Valid;
    }

    /**
     * Every key (or the single register) has a linearization.
     *
     * @param keys number of independently checked partitions: keys with an operation that did not
     *     fail (at most 1 for a single register)
     * @param steps search steps taken, a machine-independent measure of the work done
     */
    record Valid(int operations, int keys, long steps) implements CheckResult {
        @Override
        public String summary() {
            return "valid (" + operations + " operations" + (keys > 1 ? ", " + keys + " keys" : "") + ")";
        }
    }

    /**
     * At least one key has no linearization.
     *
     * @param violations one per non-linearizable key, ordered by where in the history the blocked
     *     operation completed; never empty
     */
    record Invalid(int operations, List<Violation> violations) implements CheckResult {
        public Invalid {
            violations = List.copyOf(violations);
            if (violations.isEmpty()) {
                throw new IllegalArgumentException("an invalid result needs a violation");
            }
        }

        /** The violation that shows up earliest in the history. */
        public Violation first() {
            return violations.getFirst();
        }

        @Override
        public String summary() {
            String more = violations.size() == 1 ? "" : " (and " + (violations.size() - 1) + " more non-linearizable keys)";
            return first().summary() + more;
        }

        /** The multi-line report of every violation. */
        public String report() {
            StringBuilder sb = new StringBuilder();
            for (Violation v : violations) {
                if (!sb.isEmpty()) {
                    sb.append('\n');
                }
                sb.append(v.report());
            }
            return sb.toString();
        }
    }

    /**
     * The check gave up.
     *
     * @param reason why, such as which key exhausted the search budget
     */
    record Unknown(int operations, String reason) implements CheckResult {
        @Override
        public String summary() {
            return reason;
        }
    }
}
