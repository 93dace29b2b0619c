package io.tandem.execution;

import java.util.Arrays;

/**
 * A hash map from primitive {@code long} keys to objects (open addressing, linear probing, deletion by
 * backward shift, no tombstones). The session table looks a session up twice for every command on every
 * replica ({@link SessionTable#decide}, then {@link SessionTable#record}); with a {@code HashMap<Long, ...>}
 * each lookup boxed the client id (client ids are random, so never a cached {@code Long}) and compared
 * boxes: issue 25. No iteration order is offered, so nothing can depend on one (the table keeps its own
 * use order). Not thread-safe; null values are not allowed.
 */
final class LongKeyMap<V> {
    private static final int MIN_CAPACITY = 16;

    private long[] keys = new long[MIN_CAPACITY];
    private Object[] values = new Object[MIN_CAPACITY];
    private int size;

    int size() {
        return size;
    }

    @SuppressWarnings("unchecked")
    V get(long key) {
        int mask = keys.length - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            Object v = values[i];
            if (v == null) return null;
            if (keys[i] == key) return (V) v;
        }
    }

    /** Maps {@code key} to {@code value}; returns the value it replaced, or null. */
    @SuppressWarnings("unchecked")
    V put(long key, V value) {
        if (value == null) throw new NullPointerException("value");
        int mask = keys.length - 1;
        int i = slot(key, mask);
        for (; values[i] != null; i = (i + 1) & mask) {
            if (keys[i] == key) {
                V old = (V) values[i];
                values[i] = value;
                return old;
            }
        }
        keys[i] = key;
        values[i] = value;
        // At most half full: probes stay short and a free slot always ends a search.
        if (++size > keys.length >>> 1) grow();
        return null;
    }

    /** Removes {@code key}; returns its value, or null if it was not there. */
    @SuppressWarnings("unchecked")
    V remove(long key) {
        int mask = keys.length - 1;
        int i = slot(key, mask);
        for (; values[i] != null; i = (i + 1) & mask) {
            if (keys[i] == key) break;
        }
        if (values[i] == null) return null;
        V old = (V) values[i];
        // Backward shift: move later entries of the run into the hole when their home slot allows it,
        // so every remaining key stays reachable from its home slot without tombstones.
        int hole = i;
        for (int j = (i + 1) & mask; values[j] != null; j = (j + 1) & mask) {
            int home = slot(keys[j], mask);
            // j may fill the hole if its home is not in (hole, j] (cyclically).
            boolean homeBetween = hole <= j ? hole < home && home <= j : hole < home || home <= j;
            if (!homeBetween) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                hole = j;
            }
        }
        values[hole] = null;
        keys[hole] = 0;
        size--;
        return old;
    }

    void clear() {
        if (keys.length > MIN_CAPACITY) {
            keys = new long[MIN_CAPACITY];
            values = new Object[MIN_CAPACITY];
        } else {
            Arrays.fill(keys, 0);
            Arrays.fill(values, null);
        }
        size = 0;
    }

    private void grow() {
        long[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new Object[oldKeys.length * 2];
        int mask = keys.length - 1;
        for (int k = 0; k < oldKeys.length; k++) {
            if (oldValues[k] == null) continue;
            int i = slot(oldKeys[k], mask);
            while (values[i] != null) i = (i + 1) & mask;
            keys[i] = oldKeys[k];
            values[i] = oldValues[k];
        }
    }

    /** Spreads the key's bits (client ids may be sequential in tests, random in clients). */
    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }
}
