package io.tandem.kv.client;

import java.util.Arrays;
import java.util.Optional;

/**
 * The outcome of a compare-and-set.
 *
 * @param succeeded whether the comparison matched and the update took effect
 * @param current   when it did not match: the key's value at that moment (null: absent); null on success
 */
public record CasResult(boolean succeeded, byte[] current) {
    public Optional<byte[]> currentValue() {
        return Optional.ofNullable(current);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CasResult(boolean s, byte[] c) && s == succeeded && Arrays.equals(c, current);
    }

    @Override
    public int hashCode() {
        return 31 * Boolean.hashCode(succeeded) + Arrays.hashCode(current);
    }

    @Override
    public String toString() {
        return succeeded ? "CasResult[succeeded]" : "CasResult[failed, current " + (current == null ? "absent" : current.length + " bytes") + "]";
    }
}
