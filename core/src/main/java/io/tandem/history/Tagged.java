package io.tandem.history;

import java.util.Objects;

/**
 * A tagged EDN element {@code #tag value} that this library does not interpret, such as
 * {@code #inst "2024-01-01T00:00:00Z"}, {@code #uuid "..."}, a printed Clojure record
 * ({@code #jepsen.history.Op{...}}) or an unreadable object ({@code #object[...]}). Keeping the tag
 * means such values survive a read/write round trip unchanged.
 *
 * @param tag the tag symbol, without the {@code #}
 * @param value the element that followed the tag (any EDN value, {@code null} for nil)
 */
public record Tagged(Symbol tag, Object value) {
    public Tagged {
        Objects.requireNonNull(tag, "tag");
    }

    @Override
    public String toString() {
        return EdnWriter.toEdn(this);
    }
}
