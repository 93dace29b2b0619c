package io.tandem.jepsen.workload;

import io.tandem.history.Keyword;

/** A checker's verdict, as {@code :valid?} writes it: {@code true}, {@code false} or {@code :unknown}. */
public enum Verdict {
    // In order of severity: the worse of two verdicts is the later one.
    VALID, UNKNOWN, INVALID;

    /** The {@code :valid?} value. */
    public Object edn() {
        return switch (this) {
            case VALID -> Boolean.TRUE;
            case INVALID -> Boolean.FALSE;
            case UNKNOWN -> Keyword.of("unknown");
        };
    }

    /** The runner's exit status: 0 valid, 1 an anomaly, 2 unknown (Jepsen's convention). */
    public int exitCode() {
        return switch (this) {
            case VALID -> 0;
            case INVALID -> 1;
            case UNKNOWN -> 2;
        };
    }

    /** The worse of two verdicts: invalid beats unknown beats valid. */
    public Verdict and(Verdict other) {
        return ordinal() >= other.ordinal() ? this : other;
    }
}
