package io.tandem.jepsen.generator;

import io.tandem.history.Keyword;
import java.util.Objects;

/**
 * An operation a client thread is asked to perform: its {@code :f} and its invocation {@code :value}
 * (for the independent workloads a {@code [key value]} tuple, a read's value being {@code [key nil]}).
 */
public record Invocation(Keyword f, Object value) {
    public Invocation {
        Objects.requireNonNull(f, "f");
    }
}
