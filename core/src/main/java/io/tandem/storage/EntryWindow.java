package io.tandem.storage;

import java.util.Arrays;

/**
 * The retained suffix of the log in memory, as a ring of entries indexed by log index: appends at
 * the end, truncation of a suffix and dropping of a prefix are O(removed), lookups O(1).
 * Single-threaded (the engine's loop).
 */
final class EntryWindow {
    private LogEntry[] ring = new LogEntry[64];
    private int head;
    private int size;
    private long first;

    EntryWindow(long firstIndex) {
        this.first = firstIndex;
    }

    long firstIndex() {
        return first;
    }

    long lastIndex() {
        return first + size - 1;
    }

    LogEntry get(long index) {
        if (index < first || index > lastIndex()) {
            throw new IndexOutOfBoundsException("log index " + index + " outside [" + first + ", " + lastIndex() + "]");
        }
        return ring[slot(index - first)];
    }

    void add(LogEntry entry) {
        if (size == ring.length) grow();
        ring[slot(size)] = entry;
        size++;
    }

    /** Removes entries with index {@code >= index}, which lies in [first, last + 1]. */
    void truncateFrom(long index) {
        int keep = (int) (index - first);
        for (int i = keep; i < size; i++) ring[slot(i)] = null;
        size = keep;
    }

    /** Removes entries with index {@code <= index}, which lies in [first - 1, last]. */
    void dropThrough(long index) {
        int drop = (int) (index - first + 1);
        for (int i = 0; i < drop; i++) ring[slot(i)] = null;
        head = slot(drop);
        size -= drop;
        first = index + 1;
    }

    /** Empties the window; the next entry added has index {@code nextIndex}. */
    void reset(long nextIndex) {
        Arrays.fill(ring, null);
        head = 0;
        size = 0;
        first = nextIndex;
    }

    private int slot(long offset) {
        return (int) ((head + offset) & (ring.length - 1));
    }

    private void grow() {
        LogEntry[] bigger = new LogEntry[ring.length * 2];
        for (int i = 0; i < size; i++) bigger[i] = ring[slot(i)];
        ring = bigger;
        head = 0;
    }
}
