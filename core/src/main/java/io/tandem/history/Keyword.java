package io.tandem.history;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An EDN keyword such as {@code :read} or {@code :jepsen/op}. Instances are interned, so the common
 * keywords of a history ({@code :type}, {@code :invoke}, {@code :f}...) cost one object each no matter
 * how many ops mention them.
 *
 * @param name the keyword without its leading colon, including any namespace ({@code "jepsen/op"})
 */
public record Keyword(String name) implements Comparable<Keyword> {
    private static final ConcurrentHashMap<String, Keyword> INTERNED = new ConcurrentHashMap<>();

    public Keyword {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a keyword needs a name");
        }
    }

    /** The keyword {@code :name}; {@code name} must not start with a colon. */
    public static Keyword of(String name) {
        Keyword k = INTERNED.get(name);
        return k != null ? k : INTERNED.computeIfAbsent(name, Keyword::new);
    }

    @Override
    public int compareTo(Keyword other) {
        return name.compareTo(other.name);
    }

    @Override
    public String toString() {
        return ":" + name;
    }
}
