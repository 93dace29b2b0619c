package io.tandem.protocols.multipaxos;

import java.util.Arrays;

/**
 * Which slots each record of the acceptor's journal holds: for journal index {@code i} from {@link #firstIndex()},
 * the first and last slot of its run. Two longs per record in two arrays, so the acceptor can find the records a
 * Phase 1b needs and the prefix a garbage collection may compact without holding a vote object per slot in the heap
 * (session 19: the per-slot vote map of a snapshot period, 250,000 slots in the peer benchmark, survived every young
 * collection and was copied by each). The values themselves stay in the journal.
 */
final class JournalIndex {
    private long[] firstSlots = new long[256];
    private long[] lastSlots = new long[256];
    private int head;
    private int size;
    private long firstIndex = 1;

    /** Records journal index {@code index} holding slots {@code firstSlot..lastSlot}; indexes are appended in order. */
    void add(long index, long firstSlot, long lastSlot) {
        if (size == 0) {
            firstIndex = index;
            head = 0;
        } else if (index != firstIndex + size) {
            throw new IllegalStateException("journal index " + index + " does not follow " + (firstIndex + size - 1));
        }
        if (head + size == firstSlots.length) makeRoom();
        firstSlots[head + size] = firstSlot;
        lastSlots[head + size] = lastSlot;
        size++;
    }

    /** Forgets every record up to and including journal index {@code index}. */
    void dropThrough(long index) {
        if (size == 0 || index < firstIndex) return;
        int k = (int) Math.min(size, index - firstIndex + 1);
        head += k;
        size -= k;
        firstIndex += k;
        if (size == 0) head = 0;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** The first journal index described; only meaningful when not {@link #isEmpty()}. */
    long firstIndex() {
        return firstIndex;
    }

    long lastIndex() {
        return firstIndex + size - 1;
    }

    long firstSlot(long index) {
        return firstSlots[head + offset(index)];
    }

    long lastSlot(long index) {
        return lastSlots[head + offset(index)];
    }

    private int offset(long index) {
        if (index < firstIndex || index >= firstIndex + size) throw new IndexOutOfBoundsException("journal index " + index + " not described");
        return (int) (index - firstIndex);
    }

    /** Moves the live part to the front, or doubles the arrays when more than half of them is live. */
    private void makeRoom() {
        if (size > firstSlots.length / 2) {
            firstSlots = Arrays.copyOfRange(firstSlots, head, head + firstSlots.length * 2);
            lastSlots = Arrays.copyOfRange(lastSlots, head, head + lastSlots.length * 2);
        } else {
            System.arraycopy(firstSlots, head, firstSlots, 0, size);
            System.arraycopy(lastSlots, head, lastSlots, 0, size);
        }
        head = 0;
    }
}
