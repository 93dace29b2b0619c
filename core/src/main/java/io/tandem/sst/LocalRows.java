package io.tandem.sst;

import io.tandem.engine.NodeId;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows of a whole group inside one process, in one off-heap table per member allocated from a
 * shared {@link Arena} (derecho.md §8.2): member m's table holds its own row and its copies of the
 * others'. A push copies the range word by word with release stores into each target's table,
 * which is how a transport applies a remote write (derecho.md §8.3: per-word atomic, ordered after
 * every earlier push of the same writer). For tests and in-process groups; engines reach rows
 * through their memory regions instead.
 */
public final class LocalRows {
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    private final List<NodeId> members;
    private final int rowBytes;
    /** tables.get(owner): rows.size() rows of rowBytes, in members order. */
    private final Map<NodeId, MemorySegment> tables = new LinkedHashMap<>();

    public LocalRows(Arena arena, List<NodeId> members, SstLayout layout) {
        this.members = List.copyOf(members);
        this.rowBytes = layout.rowBytes();
        for (NodeId m : this.members) tables.put(m, arena.allocate((long) rowBytes * this.members.size(), SstLayout.LINE));
    }

    /** The rows as {@code member} sees them. */
    public SstRows of(NodeId member) {
        int self = index(member);
        return new SstRows() {
            @Override
            public MemorySegment own() {
                return slice(member, self);
            }

            @Override
            public MemorySegment row(NodeId other) {
                return slice(member, index(other));
            }

            @Override
            public long version() {
                return 0; // the tables are allocated once
            }

            @Override
            public void push(int offset, int length, Collection<NodeId> targets) {
                if (offset % 8 != 0 || length % 8 != 0) throw new IllegalArgumentException("offset and length must be multiples of 8");
                MemorySegment src = own();
                for (NodeId t : targets) {
                    if (t.equals(member)) continue;
                    MemorySegment dst = slice(t, self);
                    // Each push is ordered after the previous ones (a fence per write, as a transport applies frames).
                    VarHandle.releaseFence();
                    for (int off = offset; off < offset + length; off += 8) {
                        WORD.setRelease(dst, (long) off, (long) WORD.getAcquire(src, (long) off));
                    }
                }
            }

            @Override
            public long pushWithCompletion(int offset, int length, Collection<NodeId> targets) {
                push(offset, length, targets);
                return 0;
            }
        };
    }

    private int index(NodeId m) {
        int i = members.indexOf(m);
        if (i < 0) throw new IllegalArgumentException(m + " is not one of " + members);
        return i;
    }

    private MemorySegment slice(NodeId table, int row) {
        return tables.get(table).asSlice((long) row * rowBytes, rowBytes);
    }
}
