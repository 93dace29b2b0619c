package io.tandem.history;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Small helpers shared by the reader, the writer and the op model. Not public API. */
final class EdnValues {
    private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private EdnValues() {}

    /** Immutable copy that, unlike {@link List#copyOf}, allows nil ({@code null}) elements. */
    static List<Object> immutableList(List<?> items) {
        return Collections.unmodifiableList(new ArrayList<>(items));
    }

    static Map<Object, Object> immutableMap(Map<?, ?> map) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }

    static Set<Object> immutableSet(Set<?> set) {
        return Collections.unmodifiableSet(new LinkedHashSet<>(set));
    }

    /**
     * Integers are {@code Long} whenever they fit, so that {@code 1} and {@code 1N} (equal in Clojure)
     * are also equal here; only values outside the long range stay {@code BigInteger}.
     */
    static Object normalizeInteger(BigInteger value) {
        return value.compareTo(LONG_MIN) >= 0 && value.compareTo(LONG_MAX) <= 0 ? (Object) value.longValue() : value;
    }

    /** True for the EDN integer types this library produces ({@code Long}, {@code BigInteger}). */
    static boolean isInteger(Object value) {
        return value instanceof Long || value instanceof BigInteger || value instanceof Integer
                || value instanceof Short || value instanceof Byte;
    }
}
