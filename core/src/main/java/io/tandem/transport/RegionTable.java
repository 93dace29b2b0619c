package io.tandem.transport;

import io.tandem.engine.NodeId;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The bookkeeping behind {@link MemoryRegions} for transports that emulate one-sided writes by
 * sending byte ranges: the local regions, one off-heap copy per peer and region, frozen peers, and
 * the word-atomic application of an incoming range. Shared by the in-JVM and TCP transports.
 *
 * <p>Peers come and go at run time ({@link #addPeer}, {@link #removePeer}): a peer added later gets
 * zero-filled copies of every region; a removed peer's copies are dropped (their memory is released
 * with the table, since a transport thread may still be applying a last write into them).
 */
public final class RegionTable {
    /** What became of an incoming write; anything but {@link #APPLIED} changed nothing. */
    public enum Outcome {
        APPLIED,
        /** The writer's row is frozen here (derecho.md §2.8); not an error of the writer. */
        FROZEN,
        /** No region of that name is registered here (the peer may have registered it before we did). */
        UNKNOWN_REGION,
        /** The writer is not a peer (never was, or was removed). */
        UNKNOWN_WRITER,
        /** Offset or length not multiples of 8, or outside the region: malformed input. */
        BAD_RANGE
    }

    private final NodeId self;
    private final Set<NodeId> peers = ConcurrentHashMap.newKeySet();
    private final Set<NodeId> frozen = ConcurrentHashMap.newKeySet();
    private final Arena arena = Arena.ofShared();
    private final Map<String, MemorySegment> locals = new ConcurrentHashMap<>();
    private final Map<String, Map<NodeId, MemorySegment>> remotes = new ConcurrentHashMap<>();
    /** Bumped after every change of the peers' copies ({@link MemoryRegions#peersVersion}). */
    private volatile long peersVersion;
    /** Bumped after every write applied to a peer's copy and every change of the peers ({@link MemoryRegions#changes}). */
    private final java.util.concurrent.atomic.AtomicLong changes = new java.util.concurrent.atomic.AtomicLong();

    public RegionTable(NodeId self, Set<NodeId> peers) {
        this.self = self;
        this.peers.addAll(peers);
    }

    public synchronized MemorySegment register(String name, int sizeBytes) {
        if (sizeBytes <= 0 || sizeBytes % 8 != 0) throw new IllegalArgumentException("region size must be a positive multiple of 8, was " + sizeBytes);
        if (locals.containsKey(name)) throw new IllegalStateException("region '" + name + "' is already registered on " + self);
        MemorySegment local = arena.allocate(sizeBytes, 64);
        Map<NodeId, MemorySegment> copies = new ConcurrentHashMap<>();
        for (NodeId peer : peers) copies.put(peer, arena.allocate(sizeBytes, 64));
        remotes.put(name, copies);
        locals.put(name, local);
        return local;
    }

    /** Starts keeping copies of {@code peer}'s regions (zero-filled); a re-added peer starts unfrozen and from zero. */
    public synchronized void addPeer(NodeId peer) {
        if (peer.equals(self) || !peers.add(peer)) return;
        frozen.remove(peer);
        for (Map.Entry<String, MemorySegment> e : locals.entrySet()) {
            remotes.get(e.getKey()).put(peer, arena.allocate(e.getValue().byteSize(), 64));
        }
        peersVersion++; // after the change: a reader that saw the old number looks again
        changes.incrementAndGet();
    }

    /** Stops applying {@code peer}'s writes and drops our copies of its regions. */
    public synchronized void removePeer(NodeId peer) {
        if (!peers.remove(peer)) return;
        frozen.remove(peer);
        for (Map<NodeId, MemorySegment> copies : remotes.values()) copies.remove(peer);
        peersVersion++;
        changes.incrementAndGet();
    }

    /** See {@link MemoryRegions#changes}. */
    public long changes() {
        return changes.get();
    }

    /** See {@link MemoryRegions#peersVersion}. */
    public long peersVersion() {
        return peersVersion;
    }

    public Set<NodeId> peers() {
        return Set.copyOf(peers);
    }

    public boolean isPeer(NodeId node) {
        return peers.contains(node);
    }

    public boolean isRegistered(String name) {
        return locals.containsKey(name);
    }

    public int sizeOf(String name) {
        return (int) local(name).byteSize();
    }

    /** From now on, writes of {@code peer} are not applied (derecho.md §2.8). */
    public void freeze(NodeId peer) {
        if (!peers.contains(peer)) throw new IllegalArgumentException(peer + " is not a peer of " + self);
        frozen.add(peer);
    }

    public boolean isFrozen(NodeId peer) {
        return frozen.contains(peer);
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

    /** Validates a push and returns a heap copy of the range (see {@link #snapshotInto}). */
    public byte[] snapshotRange(String name, int offset, int length) {
        byte[] copy = new byte[length];
        snapshotInto(name, offset, length, copy, 0);
        return copy;
    }

    /**
     * {@link #snapshotRange} into {@code dst} at {@code dstOffset} (a frame body being built, say), so
     * the bytes are copied once, out of the region.
     *
     * <p>One bulk copy, not a volatile read per word: the range is of this node's own region, which
     * only its owner writes, on the thread that pushes it ("write here, then push", {@link
     * MemoryRegions#local}), so no store can race with the copy and no word of it can be torn. The
     * frame reaches the receiving thread through the link's queue (a happens-before edge), and the
     * receiver applies it word by word ({@link #apply}), which is where R3 is kept against its reader.
     */
    public void snapshotInto(String name, int offset, int length, byte[] dst, int dstOffset) {
        MemorySegment local = local(name);
        checkRange(name, local.byteSize(), offset, length);
        MemorySegment.copy(local, ValueLayout.JAVA_BYTE, offset, dst, dstOffset, length);
    }

    /** {@link #snapshotInto(String, int, int, byte[], int)} into any memory (a transport's pooled direct buffer, say). */
    public void snapshotInto(String name, int offset, int length, MemorySegment dst) {
        MemorySegment local = local(name);
        checkRange(name, local.byteSize(), offset, length);
        MemorySegment.copy(local, offset, dst, 0, length);
    }

    /**
     * Applies a range pushed by {@code writer}. Wire input is judged, never trusted: an unknown
     * region or writer, a frozen writer or a bad range changes nothing and is answered with a value
     * (the caller counts it), never an exception.
     */
    public Outcome apply(NodeId writer, String name, int offset, byte[] data) {
        return apply(writer, name, offset, MemorySegment.ofArray(data));
    }

    /**
     * {@link #apply(NodeId, String, int, byte[])} from any memory (a transport's receive buffer, say),
     * so the bytes are copied once, into the region.
     */
    public Outcome apply(NodeId writer, String name, int offset, MemorySegment src) {
        Map<NodeId, MemorySegment> copies = remotes.get(name);
        if (copies == null) return Outcome.UNKNOWN_REGION;
        MemorySegment target = copies.get(writer);
        if (target == null) return Outcome.UNKNOWN_WRITER;
        long length = src.byteSize();
        if (offset < 0 || offset % 8 != 0 || length % 8 != 0 || offset + length > target.byteSize()) return Outcome.BAD_RANGE;
        if (frozen.contains(writer)) return Outcome.FROZEN;
        // A source at an address that is not a multiple of 8 (a frame inside a receive buffer) is first
        // copied into aligned scratch memory of this thread: only the final copy must keep words whole.
        MemorySegment from = src;
        if (!src.isNative() || src.address() % 8 != 0) {
            from = scratch(length);
            MemorySegment.copy(src, 0, from, 0, length);
        }
        // R2 (derecho.md §8.3): whoever acquires a word of this write also sees every earlier write of this writer.
        VarHandle.releaseFence();
        // One bulk copy with source, target and length all multiples of 8, so every word lands whole (R3):
        // below the JDK's native threshold MemorySegment.copy moves aligned 8-byte words one by one, above it
        // it calls Unsafe.copyMemory, whose contract is to move 'long' units when both addresses and the
        // length are multiples of 8 (the arraycopy stubs behind it copy oop arrays too, where a torn word would
        // be a torn reference). The words of one write may land in any order (R4); a store per word through a
        // VarHandle (bounds and session checks on every 8 bytes) was 21 % of a 1 KiB benchmark's samples.
        MemorySegment.copy(from, 0, target, offset, length);
        // After the copy (a volatile read-modify-write): a poller that reads the new count and then the
        // row sees this write's words, and one that read the old count polls again (MemoryRegions#changes).
        changes.incrementAndGet();
        return Outcome.APPLIED;
    }

    /**
     * What {@link #apply} would answer for a write of {@code length} bytes at {@code offset}, without
     * applying anything: {@link Outcome#APPLIED} if it would be applied. A transport that applies a
     * long write in pieces as its bytes arrive checks the whole write first, so a write that would be
     * refused is refused whole, never applied in part.
     */
    public Outcome check(NodeId writer, String name, int offset, long length) {
        Map<NodeId, MemorySegment> copies = remotes.get(name);
        if (copies == null) return Outcome.UNKNOWN_REGION;
        MemorySegment target = copies.get(writer);
        if (target == null) return Outcome.UNKNOWN_WRITER;
        if (offset < 0 || offset % 8 != 0 || length % 8 != 0 || offset + length > target.byteSize()) return Outcome.BAD_RANGE;
        if (frozen.contains(writer)) return Outcome.FROZEN;
        return Outcome.APPLIED;
    }

    /** Per-thread aligned scratch for {@link #apply} (transport threads apply writes concurrently, each its own). */
    private static final ThreadLocal<MemorySegment[]> SCRATCH = ThreadLocal.withInitial(() -> new MemorySegment[1]);

    private static MemorySegment scratch(long length) {
        MemorySegment[] holder = SCRATCH.get();
        MemorySegment s = holder[0];
        if (s == null || s.byteSize() < length) {
            // Heap memory of a long[]: its elements are 8-byte aligned; sized up to the next power of two.
            long size = Math.max(1024, Long.highestOneBit(Math.max(1, length - 1)) << 1);
            holder[0] = s = MemorySegment.ofArray(new long[(int) (size / 8)]);
        }
        return s;
    }

    static void checkRange(String name, long size, int offset, int length) {
        if (offset < 0 || length < 0 || offset % 8 != 0 || length % 8 != 0 || (long) offset + length > size) {
            throw new IllegalArgumentException("bad range [" + offset + ", +" + length + ") of region '" + name + "' (size " + size + "): offset and length must be multiples of 8 inside the region");
        }
    }

    /** The targets of a push: members of {@code targets} that are peers now, in a stable order. */
    public java.util.List<NodeId> targets(Collection<NodeId> targets) {
        // The common case, a list of peers in ascending order without repeats (an SST's push targets), is
        // returned as it is: a stream, a sort and a list per push showed in the benchmark's allocations.
        if (targets instanceof java.util.List<NodeId> list && ascendingPeers(list)) return list;
        return targets.stream().filter(peers::contains).distinct().sorted().toList();
    }

    private boolean ascendingPeers(java.util.List<NodeId> list) {
        NodeId previous = null;
        for (int i = 0; i < list.size(); i++) {
            NodeId m = list.get(i);
            if (!peers.contains(m) || previous != null && previous.compareTo(m) >= 0) return false;
            previous = m;
        }
        return true;
    }

    public void close() {
        arena.close();
    }

}
