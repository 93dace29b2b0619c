package io.tandem.history;

import java.util.Objects;

/**
 * An EDN symbol such as {@code foo}, {@code jepsen.history.Op} or {@code clojure.lang.AFn}. Histories
 * rarely contain symbols outside tags and datafied exceptions, so they are kept as plain values.
 *
 * @param name the symbol text, including any namespace
 */
public record Symbol(String name) {
    public Symbol {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a symbol needs a name");
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
