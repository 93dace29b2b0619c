package io.tandem.protocols.multipaxos;

/**
 * The values a replica executed in its newest run of consecutive slots, kept for peers that catch up
 * ({@link Replica}'s {@code retained}). Slots are executed one after another, so a ring of values from
 * {@link #firstSlot()} replaces the tree map this used to be: one array store per executed slot
 * instead of a tree insertion with its entry and boxed key (session 17: the map's insertions and
 * rebalancing were a visible share of every replica's loop), and dropping a prefix after a snapshot
 * costs a store per dropped slot instead of a tree deletion each.
 */
final class ExecutedValues {
    private Value[] ring = new Value[1024];
    private int head;
    private int size;
    private long first = 1;

    /**
     * Keeps {@code value} as slot {@code slot}'s. A slot that does not follow the last one kept (execution
     * jumped, as after installing a snapshot) starts a new run: what is kept is always consecutive.
     */
    void append(long slot, Value value) {
        if (size > 0 && slot != first + size) clear();
        if (size == 0) first = slot;
        if (size == ring.length) grow();
        ring[(head + size) & (ring.length - 1)] = value;
        size++;
    }

    /** Slot {@code slot}'s value, or null if it is not kept. */
    Value get(long slot) {
        if (slot < first || slot - first >= size) return null;
        return ring[(head + (int) (slot - first)) & (ring.length - 1)];
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The first slot kept; only meaningful when not {@link #isEmpty()}. */
    long firstSlot() {
        return first;
    }

    /** Forgets every slot up to and including {@code slot}. */
    void dropThrough(long slot) {
        while (size > 0 && first <= slot) {
            ring[head] = null;
            head = (head + 1) & (ring.length - 1);
            first++;
            size--;
        }
    }

    void clear() {
        java.util.Arrays.fill(ring, null);
        head = 0;
        size = 0;
    }

    int size() {
        return size;
    }

    private void grow() {
        Value[] bigger = new Value[ring.length * 2];
        for (int i = 0; i < size; i++) bigger[i] = ring[(head + i) & (ring.length - 1)];
        ring = bigger;
        head = 0;
    }
}
