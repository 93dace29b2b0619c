package io.tandem.sst;

import io.tandem.engine.NodeId;
import io.tandem.engine.Regions;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * A Shared State Table (derecho.md §2): one row per member, each written only by its owner and
 * pushed into the peers' copies with one-sided writes; every member reads its local copy of every
 * row. The row's fields come from an {@link SstLayout}; the memory is the transport's (off-heap
 * {@code MemorySegment}s on the real transports), read and written through a {@link VarHandle} with
 * acquire/release (derecho.md §8.3), so a reader that sees a counter also sees every store the
 * owner made before it.
 *
 * <p>Rules the API encodes: counters are monotonic ({@link #advance} refuses to go back, R6 makes
 * only monotonic conclusions safe); multi-word data is published by a <em>separate</em> push of
 * a counter that guards it ({@link #publish}, R4/R5: the bytes inside one push may land in any
 * order, so a guard in the same push proves nothing). Used on one thread, the engine's loop; the
 * transport writes the peers' copies from its own threads, word by word.
 */
public final class Sst {
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    private final SstLayout layout;
    private final SstRows rows;
    private final Predicates predicates = new Predicates();

    public Sst(SstLayout layout, SstRows rows) {
        this.layout = Objects.requireNonNull(layout, "layout");
        this.rows = Objects.requireNonNull(rows, "rows");
        if (rows.own().byteSize() < layout.rowBytes()) {
            throw new IllegalArgumentException("the own row has " + rows.own().byteSize() + " bytes; the layout needs " + layout.rowBytes());
        }
    }

    /** Registers region {@code name} sized for {@code layout} and builds the table over it. */
    public static Sst register(Regions regions, String name, SstLayout layout) {
        return new Sst(layout, SstRows.of(regions.register(name, layout.rowBytes(), Regions.Notice.POLL)));
    }

    public SstLayout layout() {
        return layout;
    }

    public Predicates predicates() {
        return predicates;
    }

    /**
     * A count that grows after any peer's row changed ({@link SstRows#changes}), negative if unknown.
     * Read it before a predicate pass: if it has not moved at the next poll, and nothing else the
     * predicates read changed, the pass would find what the last one found (derecho.md §8.8).
     */
    public long peerChanges() {
        return rows.changes();
    }

    // ---- reads (any row) ----

    /** The word {@code column} of {@code member}'s row, with acquire semantics. */
    public long get(NodeId member, SstLayout.Column column) {
        return (long) WORD.getAcquire(rows.row(member), (long) column.offset());
    }

    public long get(NodeId member, SstLayout.Array array, int i) {
        return (long) WORD.getAcquire(rows.row(member), (long) array.offsetOf(i));
    }

    /** Copies {@code length} bytes at {@code offset} of {@code field} in {@code member}'s row (read them after acquiring their guard). */
    public byte[] read(NodeId member, SstLayout.Bytes field, int offset, int length) {
        checkInside(field, offset, length);
        byte[] out = new byte[length];
        MemorySegment.copy(rows.row(member), ValueLayout.JAVA_BYTE, (long) field.offset() + offset, out, 0, length);
        return out;
    }

    /** A word inside a byte field (a slot header, say), with acquire semantics; {@code offset} is a multiple of 8. */
    public long readWord(NodeId member, SstLayout.Bytes field, int offset) {
        checkInside(field, offset, 8);
        if (offset % 8 != 0) throw new IllegalArgumentException("word offset " + offset + " is not a multiple of 8");
        return (long) WORD.getAcquire(rows.row(member), (long) field.offset() + offset);
    }

    /**
     * Reads of a fixed list of members' rows by index (a view rank, a shard rank) for the hot path of
     * a predicate pass: each row is looked up by member once and kept until {@link SstRows#version}
     * changes (the transport added or removed a peer), instead of one lookup by member per read.
     */
    public Members members(List<NodeId> members) {
        return new Members(members);
    }

    /** See {@link #members(List)}: reads with acquire semantics, like {@link #get(NodeId, SstLayout.Column)}. */
    public final class Members {
        private final NodeId[] ids;
        private final MemorySegment[] segments;
        /** The rows' version the kept segments were looked up under; a negative one keeps nothing. */
        private long version = -1;

        private Members(List<NodeId> members) {
            this.ids = members.toArray(new NodeId[0]);
            this.segments = new MemorySegment[ids.length];
        }

        public int size() {
            return ids.length;
        }

        public NodeId member(int i) {
            return ids[i];
        }

        /** The word {@code column} of member {@code i}'s row, with acquire semantics. */
        public long get(int i, SstLayout.Column column) {
            return (long) WORD.getAcquire(row(i), (long) column.offset());
        }

        public long get(int i, SstLayout.Array array, int j) {
            return (long) WORD.getAcquire(row(i), (long) array.offsetOf(j));
        }

        /** A word inside a byte field of member {@code i}'s row, with acquire semantics. */
        public long readWord(int i, SstLayout.Bytes field, int offset) {
            checkInside(field, offset, 8);
            if (offset % 8 != 0) throw new IllegalArgumentException("word offset " + offset + " is not a multiple of 8");
            return (long) WORD.getAcquire(row(i), (long) field.offset() + offset);
        }

        /**
         * Words {@code [offset, offset + 8·count)} of a byte field of member {@code i}'s row into {@code dst[0, count)},
         * each with acquire semantics like {@link #readWord}, with one row lookup for all of them (an SMC slot's header
         * is read once per message on the receive path).
         */
        public void readWords(int i, SstLayout.Bytes field, int offset, long[] dst, int count) {
            checkInside(field, offset, 8 * count);
            if (offset % 8 != 0) throw new IllegalArgumentException("word offset " + offset + " is not a multiple of 8");
            if (dst.length < count) throw new IllegalArgumentException("room for " + dst.length + " words, asked for " + count);
            MemorySegment r = row(i);
            long base = (long) field.offset() + offset;
            for (int w = 0; w < count; w++) dst[w] = (long) WORD.getAcquire(r, base + 8L * w);
        }

        /** Copies bytes of a byte field of member {@code i}'s row (read them after acquiring their guard). */
        public byte[] read(int i, SstLayout.Bytes field, int offset, int length) {
            checkInside(field, offset, length);
            byte[] out = new byte[length];
            MemorySegment.copy(row(i), ValueLayout.JAVA_BYTE, (long) field.offset() + offset, out, 0, length);
            return out;
        }

        private MemorySegment row(int i) {
            long v = rows.version();
            if (v < 0) return rows.row(ids[i]); // the rows do not say when they change: look up every time
            if (v != version) {
                // The version is read before the lookups: a segment looked up around a change is kept
                // under the older number and looked up again on the next read.
                Arrays.fill(segments, null);
                version = v;
            }
            MemorySegment s = segments[i];
            if (s == null) segments[i] = s = rows.row(ids[i]); // a non-member is refused here, as by get
            return s;
        }
    }

    // ---- writes (own row only) ----

    /** Sets {@code column} of the own row (release). Use {@link #advance} for monotonic counters. */
    public void set(SstLayout.Column column, long value) {
        WORD.setRelease(rows.own(), (long) column.offset(), value);
    }

    public void set(SstLayout.Array array, int i, long value) {
        WORD.setRelease(rows.own(), (long) array.offsetOf(i), value);
    }

    /** Moves a monotonic counter to {@code value}; going backwards is a bug (derecho.md §2.2), refused. */
    public void advance(SstLayout.Column column, long value) {
        long current = get(column);
        if (value < current) throw new IllegalStateException("counter '" + column.name() + "' would go back from " + current + " to " + value);
        set(column, value);
    }

    public void advance(SstLayout.Array array, int i, long value) {
        long current = get(array, i);
        if (value < current) throw new IllegalStateException("counter '" + array.name() + "[" + i + "]' would go back from " + current + " to " + value);
        set(array, i, value);
    }

    /** The own row's value of {@code column}. */
    public long get(SstLayout.Column column) {
        return (long) WORD.getAcquire(rows.own(), (long) column.offset());
    }

    public long get(SstLayout.Array array, int i) {
        return (long) WORD.getAcquire(rows.own(), (long) array.offsetOf(i));
    }

    /** Writes {@code data} at {@code offset} of a byte field of the own row; push it, then publish its guard. */
    public void write(SstLayout.Bytes field, int offset, byte[] data) {
        checkInside(field, offset, data.length);
        MemorySegment.copy(data, 0, rows.own(), ValueLayout.JAVA_BYTE, (long) field.offset() + offset, data.length);
    }

    /** Writes one word inside a byte field of the own row (release). */
    public void writeWord(SstLayout.Bytes field, int offset, long value) {
        checkInside(field, offset, 8);
        if (offset % 8 != 0) throw new IllegalArgumentException("word offset " + offset + " is not a multiple of 8");
        WORD.setRelease(rows.own(), (long) field.offset() + offset, value);
    }

    /** Writes {@code words[0, count)} as consecutive words from {@code offset} of a byte field of the own row (release each). */
    public void writeWords(SstLayout.Bytes field, int offset, long[] words, int count) {
        checkInside(field, offset, 8 * count);
        if (offset % 8 != 0) throw new IllegalArgumentException("word offset " + offset + " is not a multiple of 8");
        MemorySegment own = rows.own();
        long base = (long) field.offset() + offset;
        for (int w = 0; w < count; w++) WORD.setRelease(own, base + 8L * w, words[w]);
    }

    /** Zero-fills the own row (a new view's row starts from zero). */
    public void clearOwnRow() {
        rows.own().asSlice(0, layout.rowBytes()).fill((byte) 0);
        VarHandle.releaseFence();
    }

    // ---- pushes ----

    public void push(SstLayout.Field field, Collection<NodeId> targets) {
        rows.push(field.offset(), field.length(), targets);
    }

    /** Pushes element {@code i} of {@code array} only. */
    public void push(SstLayout.Array array, int i, Collection<NodeId> targets) {
        rows.push(array.offsetOf(i), 8, targets);
    }

    /** Pushes {@code [offset, offset+length)} of a byte field; both multiples of 8. */
    public void push(SstLayout.Bytes field, int offset, int length, Collection<NodeId> targets) {
        checkInside(field, offset, length);
        rows.push(field.offset() + offset, length, targets);
    }

    /** Pushes the fields from {@code first} through {@code last} (in layout order) as one write. */
    public void pushRange(SstLayout.Field first, SstLayout.Field last, Collection<NodeId> targets) {
        int from = first.offset();
        int to = last.offset() + last.length();
        if (to <= from) throw new IllegalArgumentException(last.name() + " does not come after " + first.name());
        rows.push(from, to - from, targets);
    }

    /** Like {@link #pushRange}, with a completion per target: the failure detector's write (derecho.md §5.1). */
    public long pushRangeWithCompletion(SstLayout.Field first, SstLayout.Field last, Collection<NodeId> targets) {
        int from = first.offset();
        int to = last.offset() + last.length();
        if (to <= from) throw new IllegalArgumentException(last.name() + " does not come after " + first.name());
        return rows.pushWithCompletion(from, to - from, targets);
    }

    /**
     * Reads the own row's words from {@code first} through {@code last} (in layout order) into
     * {@code dst} (acquire per word) and returns how many there are: a caller that remembers what it
     * pushed can find which words changed since ({@link #pushWords}).
     */
    public int readOwnWords(SstLayout.Field first, SstLayout.Field last, long[] dst) {
        int from = first.offset();
        int words = (last.offset() + last.length() - from) / 8;
        if (words <= 0) throw new IllegalArgumentException(last.name() + " does not come after " + first.name());
        if (dst.length < words) throw new IllegalArgumentException("room for " + dst.length + " words, the range has " + words);
        MemorySegment own = rows.own();
        for (int i = 0; i < words; i++) dst[i] = (long) WORD.getAcquire(own, (long) from + 8L * i);
        return words;
    }

    /** Pushes words {@code [fromWord, toWord)} of the range that starts at {@code first} (word 0 is its first word) as one write. */
    public void pushWords(SstLayout.Field first, int fromWord, int toWord, Collection<NodeId> targets) {
        if (fromWord < 0 || toWord <= fromWord) throw new IllegalArgumentException("bad word range [" + fromWord + ", " + toWord + ")");
        rows.push(first.offset() + 8 * fromWord, 8 * (toWord - fromWord), targets);
    }

    public void pushRow(Collection<NodeId> targets) {
        rows.push(0, layout.rowBytes(), targets);
    }

    /**
     * The guard pattern (derecho.md §2.5 R5): pushes {@code data} as one write, then sets the
     * {@code guard} counter to {@code value} and pushes it in a second write. A reader that acquires
     * the guard at {@code value} then reads complete data, whatever order the bytes of the first
     * write landed in.
     */
    public void publish(SstLayout.Bytes data, int offset, int length, SstLayout.Column guard, long value, Collection<NodeId> targets) {
        if (length > 0) push(data, offset, length, targets);
        advance(guard, value);
        push(guard, targets);
    }

    private static void checkInside(SstLayout.Bytes field, int offset, int length) {
        if (offset < 0 || length < 0 || (long) offset + length > field.length()) {
            throw new IllegalArgumentException("[" + offset + ", +" + length + ") is outside field '" + field.name() + "' of " + field.length() + " bytes");
        }
    }
}
