package io.tandem.protocols.multipaxos;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The values a replica executed in its newest run of consecutive slots, kept for peers that catch up
 * ({@link Replica}'s {@code retained}). Slots are executed one after another, so a ring of positions from
 * {@link #firstSlot()} replaces the tree map this used to be (session 17).
 *
 * <p>The values are kept in their journal encoding ({@link ValueCodec}), appended to chunks of {@link #CHUNK_BYTES}
 * bytes, and decoded again only when a peer asks for them (session 19). A replica keeps every slot executed since its
 * last snapshot (250,000 in the peer benchmark): as value objects (a command, its session, its payload array: three
 * objects per slot) they outlived every young collection, which copied them each time (50-216 ms pauses every 1-4 s
 * in mp18's GC logs); as bytes they are a few large arrays and a ring of longs.
 */
final class ExecutedValues {
    /** Values are appended to chunks of this size; a larger value gets a chunk of its own. */
    static final int CHUNK_BYTES = 64 << 10;

    /** Per kept slot: its chunk's sequence number (high 32 bits) and the offset in that chunk (low 32 bits). */
    private long[] ring = new long[1024];
    private int head;
    private int size;
    private long first = 1;

    /** Chunks from sequence number {@link #firstChunk}; the last one is being filled. */
    private final List<byte[]> chunks = new ArrayList<>();
    private long firstChunk;
    private int fill;
    /** A buffer over the last chunk, reused by every append to it (was one {@code ByteBuffer.wrap} per value). */
    private ByteBuffer last;

    /**
     * Keeps {@code value} as slot {@code slot}'s. A slot that does not follow the last one kept (execution
     * jumped, as after installing a snapshot) starts a new run: what is kept is always consecutive.
     */
    void append(long slot, Value value) {
        if (size > 0 && slot != first + size) clear();
        if (size == 0) first = slot;
        int bytes = ValueCodec.encodedSize(value);
        if (chunks.isEmpty() || fill + bytes > chunks.getLast().length) {
            chunks.add(new byte[Math.max(CHUNK_BYTES, bytes)]);
            last = ByteBuffer.wrap(chunks.getLast());
            fill = 0;
        }
        long chunk = firstChunk + chunks.size() - 1;
        // The same bytes at the same offset as wrap(chunk, fill, bytes): the limit keeps a wrong size from spilling.
        last.limit(fill + bytes).position(fill);
        ValueCodec.encode(value, last);
        if (size == ring.length) grow();
        ring[(head + size) & (ring.length - 1)] = chunk << 32 | fill;
        fill += bytes;
        size++;
    }

    /** Slot {@code slot}'s value (decoded anew: equal to the one kept, not the same object), or null if it is not kept. */
    Value get(long slot) {
        if (slot < first || slot - first >= size) return null;
        long at = ring[(head + (int) (slot - first)) & (ring.length - 1)];
        byte[] chunk = chunks.get((int) ((at >>> 32) - firstChunk));
        int offset = (int) at;
        return ValueCodec.decode(ByteBuffer.wrap(chunk, offset, chunk.length - offset));
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The first slot kept; only meaningful when not {@link #isEmpty()}. */
    long firstSlot() {
        return first;
    }

    /** Forgets every slot up to and including {@code slot}, and the chunks only those slots used. */
    void dropThrough(long slot) {
        if (size == 0 || slot < first) return;
        int k = (int) Math.min(size, slot - first + 1);
        head = (head + k) & (ring.length - 1);
        first += k;
        size -= k;
        if (size == 0) {
            clear();
            return;
        }
        long keepFrom = ring[head] >>> 32;
        int drop = (int) (keepFrom - firstChunk);
        if (drop > 0) {
            chunks.subList(0, drop).clear();
            firstChunk = keepFrom;
        }
    }

    void clear() {
        head = 0;
        size = 0;
        firstChunk += chunks.size();
        chunks.clear();
        last = null;
        fill = 0;
    }

    int size() {
        return size;
    }

    /** Bytes held in chunks (tests). */
    long chunkBytes() {
        long total = 0;
        for (byte[] c : chunks) total += c.length;
        return total;
    }

    private void grow() {
        long[] bigger = new long[ring.length * 2];
        for (int i = 0; i < size; i++) bigger[i] = ring[(head + i) & (ring.length - 1)];
        ring = bigger;
        head = 0;
    }

    @Override
    public String toString() {
        return "ExecutedValues[" + (size == 0 ? "empty" : first + ".." + (first + size - 1)) + ", chunks " + chunks.size() + ", ring " + ring.length + "]";
    }
}
