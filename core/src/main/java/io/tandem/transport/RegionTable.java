package io.tandem.transport;

import io.tandem.engine.NodeId;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The bookkeeping behind {@link MemoryRegions} for transports that emulate one-sided writes by
 * sending byte ranges: the local regions, one off-heap copy per peer and region, and the
 * word-atomic application of an incoming range. Shared by the in-JVM and TCP transports.
 */
public final class RegionTable {
    private final NodeId self;
    private final Set<NodeId> peers;
    private final Arena arena = Arena.ofShared();
    private final Map<String, MemorySegment> locals = new ConcurrentHashMap<>();
    private final Map<String, Map<NodeId, MemorySegment>> remotes = new ConcurrentHashMap<>();

    public RegionTable(NodeId self, Set<NodeId> peers) {
        this.self = self;
        this.peers = Set.copyOf(peers);
    }

    public MemorySegment register(String name, int sizeBytes) {
        if (sizeBytes <= 0 || sizeBytes % 8 != 0) throw new IllegalArgumentException("region size must be a positive multiple of 8, was " + sizeBytes);
        MemorySegment local = arena.allocate(sizeBytes, 8);
        if (locals.putIfAbsent(name, local) != null) throw new IllegalStateException("region '" + name + "' is already registered on " + self);
        Map<NodeId, MemorySegment> copies = new ConcurrentHashMap<>();
        for (NodeId peer : peers) copies.put(peer, arena.allocate(sizeBytes, 8));
        remotes.put(name, copies);
        return local;
    }

    public MemorySegment local(String name) {
        MemorySegment s = locals.get(name);
        if (s == null) throw new IllegalArgumentException("no region '" + name + "' registered on " + self);
        return s;
    }

    public MemorySegment remote(NodeId peer, String name) {
        Map<NodeId, MemorySegment> copies = remotes.get(name);
        if (copies == null) throw new IllegalArgumentException("no region '" + name + "' registered on " + self);
        MemorySegment s = copies.get(peer);
        if (s == null) throw new IllegalArgumentException(peer + " is not a peer of " + self);
        return s;
    }

    /** Validates a push and returns a heap copy of the range, taken word by word so no word is torn. */
    public byte[] snapshotRange(String name, int offset, int length) {
        MemorySegment local = local(name);
        checkRange(name, local.byteSize(), offset, length);
        byte[] copy = new byte[length];
        MemorySegment dst = MemorySegment.ofArray(copy);
        for (int i = 0; i < length; i += 8) {
            long word = (long) WORD.getVolatile(local, (long) offset + i);
            dst.set(ValueLayout.JAVA_LONG_UNALIGNED, i, word);
        }
        return copy;
    }

    /**
     * Applies a range pushed by {@code writer}; returns false (and changes nothing) if the region or
     * range is unknown or invalid, which the caller counts as malformed input.
     */
    public boolean apply(NodeId writer, String name, int offset, byte[] data) {
        Map<NodeId, MemorySegment> copies = remotes.get(name);
        if (copies == null) return false;
        MemorySegment target = copies.get(writer);
        if (target == null) return false;
        if (offset < 0 || offset % 8 != 0 || data.length % 8 != 0 || (long) offset + data.length > target.byteSize()) return false;
        MemorySegment src = MemorySegment.ofArray(data);
        for (int i = 0; i < data.length; i += 8) {
            WORD.setVolatile(target, (long) offset + i, src.get(ValueLayout.JAVA_LONG_UNALIGNED, i));
        }
        return true;
    }

    static void checkRange(String name, long size, int offset, int length) {
        if (offset < 0 || length < 0 || offset % 8 != 0 || length % 8 != 0 || (long) offset + length > size) {
            throw new IllegalArgumentException("bad range [" + offset + ", +" + length + ") of region '" + name + "' (size " + size + "): offset and length must be multiples of 8 inside the region");
        }
    }

    public void close() {
        arena.close();
    }

    private static final java.lang.invoke.VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();
}
