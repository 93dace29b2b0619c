package io.tandem.kv.btree;

/**
 * The outcome of a compare-and-set.
 *
 * @param applied  whether the key held the expected value (or was absent, if absence was expected)
 *                 and the new value or deletion took effect
 * @param previous the key's value before the operation, {@code null} if it was absent; on failure
 *                 this is the current value, which the caller needs to retry
 */
public record CasOutcome(boolean applied, byte[] previous) {
    @Override
    public String toString() {
        return "CasOutcome[applied=" + applied + ", previous=" + Entry.preview(previous) + "]";
    }
}
