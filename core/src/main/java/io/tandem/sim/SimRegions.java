package io.tandem.sim;

import io.tandem.engine.NodeId;
import io.tandem.engine.PushCompletion;
import io.tandem.engine.Region;
import io.tandem.engine.Regions;
import io.tandem.transport.RegionTable;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The memory regions of one incarnation of a simulated node, with the contract of the real
 * transports (DESIGN §5, derecho.md §2.5): volatile memory, so a crash loses them and a restarted
 * node registers zero-filled regions again; a push is one write per target, sent on the simulated
 * network ({@link Simulation#regionWrite}), applied in push order per writer, never lost or
 * duplicated on a working link, held by a cut link until it heals (lost, completing as not applied,
 * if the cut outlasts the connection), not applied at a crashed target (it then completes as not
 * applied); a frozen member's writes are not applied.
 *
 * <p>Memory is on the heap ({@code long[]}), so aligned words are read and written whole.
 */
final class SimRegions implements Regions {
    private final SimNode node;
    private final Simulation sim;
    private final long incarnation;
    private final Map<String, SimRegion> regions = new LinkedHashMap<>();
    private final Set<NodeId> frozen = new TreeSet<>();
    private final ArrayDeque<PushCompletion> completions = new ArrayDeque<>();
    private long nextPushId;
    /** Writes applied to peers' copies and copies reset, over every region ({@link Region#changes}). */
    private long changes;

    SimRegions(SimNode node, Simulation sim, long incarnation) {
        this.node = node;
        this.sim = sim;
        this.incarnation = incarnation;
    }

    @Override
    public Region register(String name, int sizeBytes, Notice notice) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(notice, "notice");
        if (sizeBytes <= 0 || sizeBytes % 8 != 0) throw new IllegalArgumentException("region size must be a positive multiple of 8, was " + sizeBytes);
        if (regions.containsKey(name)) throw new IllegalArgumentException("region '" + name + "' is already registered on " + node.id);
        SimRegion r = new SimRegion(name, sizeBytes, notice);
        regions.put(name, r);
        return r;
    }

    @Override
    public Region region(String name) {
        SimRegion r = regions.get(name);
        if (r == null) throw new IllegalArgumentException("no region '" + name + "' registered on " + node.id);
        return r;
    }

    @Override
    public void freeze(NodeId member) {
        if (!sim.members().contains(member) || member.equals(node.id)) throw new IllegalArgumentException(member + " is not a peer of " + node.id);
        frozen.add(member);
    }

    @Override
    public boolean isFrozen(NodeId member) {
        return frozen.contains(member);
    }

    @Override
    public int pollCompletions(Consumer<PushCompletion> sink) {
        int n = 0;
        for (PushCompletion c; (c = completions.poll()) != null; n++) sink.accept(c);
        return n;
    }

    /** {@code member} joins again (a view brought it back): as with the real transports, unfrozen and from zero. */
    void resetPeer(NodeId member) {
        frozen.remove(member);
        for (SimRegion r : regions.values()) {
            MemorySegment copy = r.copies.get(member);
            if (copy != null) copy.fill((byte) 0);
        }
        changes++;
    }

    void completed(PushCompletion completion) {
        completions.add(completion);
    }

    /** A write of {@code writer} arrives; judged like wire input, answered with a value. */
    RegionTable.Outcome apply(NodeId writer, String name, int offset, long[] words) {
        SimRegion r = regions.get(name);
        if (r == null) return RegionTable.Outcome.UNKNOWN_REGION;
        MemorySegment copy = r.copies.get(writer);
        if (copy == null) return RegionTable.Outcome.UNKNOWN_WRITER;
        if (offset < 0 || offset % 8 != 0 || (long) offset + 8L * words.length > r.size) return RegionTable.Outcome.BAD_RANGE;
        if (frozen.contains(writer)) return RegionTable.Outcome.FROZEN;
        for (int i = 0; i < words.length; i++) copy.set(ValueLayout.JAVA_LONG, offset + 8L * i, words[i]);
        changes++;
        return RegionTable.Outcome.APPLIED;
    }

    Notice noticeOf(String name) {
        SimRegion r = regions.get(name);
        return r == null ? Notice.POLL : r.notice;
    }

    private final class SimRegion implements Region {
        private final String name;
        private final int size;
        private final Notice notice;
        private final MemorySegment local;
        private final TreeMap<NodeId, MemorySegment> copies = new TreeMap<>();

        SimRegion(String name, int size, Notice notice) {
            this.name = name;
            this.size = size;
            this.notice = notice;
            this.local = MemorySegment.ofArray(new long[size / 8]);
            for (NodeId m : sim.members()) if (!m.equals(node.id)) copies.put(m, MemorySegment.ofArray(new long[size / 8]));
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int sizeBytes() {
            return size;
        }

        @Override
        public MemorySegment local() {
            return local;
        }

        @Override
        public MemorySegment of(NodeId member) {
            if (member.equals(node.id)) return local;
            MemorySegment s = copies.get(member);
            if (s == null) throw new IllegalArgumentException(member + " is not a member of the simulation " + sim.members());
            return s;
        }

        /** The copies are allocated once per incarnation (a peer that joins again is zero-filled in place). */
        @Override
        public long peersVersion() {
            return 0;
        }

        @Override
        public long changes() {
            return changes;
        }

        @Override
        public void push(int offset, int length, Collection<NodeId> targets) {
            send(offset, length, targets, 0);
        }

        @Override
        public long pushWithCompletion(int offset, int length, Collection<NodeId> targets) {
            long id = ++nextPushId;
            send(offset, length, targets, id);
            return id;
        }

        private void send(int offset, int length, Collection<NodeId> targets, long pushId) {
            if (offset < 0 || length < 0 || offset % 8 != 0 || length % 8 != 0 || (long) offset + length > size) {
                throw new IllegalArgumentException("bad range [" + offset + ", +" + length + ") of region '" + name + "' (size " + size + "): offset and length must be multiples of 8 inside the region");
            }
            long[] words = new long[length / 8];
            for (int i = 0; i < words.length; i++) words[i] = local.get(ValueLayout.JAVA_LONG, offset + 8L * i);
            for (NodeId target : new TreeSet<>(targets)) {
                if (target.equals(node.id)) continue;
                sim.regionWrite(node, incarnation, target, name, offset, words, pushId);
            }
        }
    }
}
