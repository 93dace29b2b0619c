package io.tandem.history;

import java.math.BigInteger;
import java.util.Objects;

/**
 * A Clojure ratio such as {@code 1/3}. Not part of the EDN specification, but Clojure's printer emits
 * ratios and tolerant reading of Jepsen output is worth one small type. Kept exactly as written (not
 * reduced), so it round-trips.
 */
public record Ratio(BigInteger numerator, BigInteger denominator) {
    public Ratio {
        Objects.requireNonNull(numerator, "numerator");
        Objects.requireNonNull(denominator, "denominator");
        if (denominator.signum() == 0) {
            throw new IllegalArgumentException("a ratio cannot have a zero denominator");
        }
    }

    @Override
    public String toString() {
        return numerator + "/" + denominator;
    }
}
