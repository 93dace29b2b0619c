package io.tandem.history;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * An EDN list {@code (a b c)}. Vectors are read as plain {@link List}s; lists get this type so the
 * writer can print them back with parentheses. Like Clojure, where {@code (= '(1 2) [1 2])}, an EdnList
 * is {@link List#equals equal} to any list with the same elements.
 */
public final class EdnList extends AbstractList<Object> implements RandomAccess {
    private final List<Object> items;

    private EdnList(List<Object> items) {
        this.items = items;
    }

    /** A list of the given elements ({@code null} elements stand for nil). */
    public static EdnList of(List<?> items) {
        return new EdnList(EdnValues.immutableList(items));
    }

    @Override
    public Object get(int index) {
        return items.get(index);
    }

    @Override
    public int size() {
        return items.size();
    }
}
