package io.tandem.runtime;

import io.tandem.engine.NodeId;
import io.tandem.engine.PushCompletion;
import io.tandem.engine.Region;
import io.tandem.engine.Regions;
import io.tandem.transport.MemoryRegions;
import java.lang.foreign.MemorySegment;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jctools.queues.MpscUnboundedXaddArrayQueue;

/**
 * The engine's {@link Regions} over a transport's {@link MemoryRegions}, as the runtime gives them
 * to its engine (and tests to themselves): remembers how each region announces writes, and keeps
 * push completions in a queue that transport threads fill ({@link #completed}, from
 * {@link io.tandem.transport.TransportListener#onPushCompleted}) and one thread drains (a completion
 * queue, as RDMA has). Used on one thread (the loop), except {@link #completed} and {@link #noticeOf}.
 */
public final class TransportRegions implements Regions {
    private final NodeId self;
    private final MemoryRegions transport;
    private final Map<String, TransportRegion> regions = new ConcurrentHashMap<>();
    private final MpscUnboundedXaddArrayQueue<PushCompletion> completions = new MpscUnboundedXaddArrayQueue<>(256);

    public TransportRegions(NodeId self, MemoryRegions transport) {
        this.self = self;
        this.transport = transport;
    }

    @Override
    public Region register(String name, int sizeBytes, Notice notice) {
        Objects.requireNonNull(notice, "notice");
        if (regions.containsKey(name)) throw new IllegalArgumentException("region '" + name + "' is already registered on " + self);
        MemorySegment local = transport.register(name, sizeBytes);
        TransportRegion r = new TransportRegion(name, sizeBytes, notice, local);
        regions.put(name, r);
        return r;
    }

    @Override
    public Region region(String name) {
        TransportRegion r = regions.get(name);
        if (r == null) throw new IllegalArgumentException("no region '" + name + "' registered on " + self);
        return r;
    }

    @Override
    public void freeze(NodeId member) {
        transport.freeze(member);
    }

    @Override
    public boolean isFrozen(NodeId member) {
        return transport.isFrozen(member);
    }

    @Override
    public int pollCompletions(Consumer<PushCompletion> sink) {
        if (completions.isEmpty()) return 0; // polled on every loop turn: no drain lambda for an empty queue
        return completions.drain(sink::accept);
    }

    /** A transport thread reports a completion; the caller wakes the loop. */
    public void completed(PushCompletion completion) {
        completions.offer(completion);
    }

    /** How region {@code name} announces writes; POLL for a region the engine did not register. */
    public Notice noticeOf(String name) {
        TransportRegion r = regions.get(name);
        return r == null ? Notice.POLL : r.notice;
    }

    /**
     * Peers' segments looked up under one {@link MemoryRegions#peersVersion}, in small arrays: an SST
     * reads some row on almost every line of a predicate pass, and a scan of a handful of members
     * (the same {@code NodeId} objects each time) by identity costs less than hashing. Another object
     * for a known member is looked up once and kept beside it, up to {@link #MAX_KEPT} entries.
     */
    private static final int MAX_KEPT = 64;

    private record RemoteSegments(long version, NodeId[] members, MemorySegment[] segments) {
        MemorySegment find(NodeId member) {
            for (int i = 0; i < members.length; i++) if (members[i] == member) return segments[i];
            return null;
        }

        RemoteSegments with(long v, NodeId member, MemorySegment segment) {
            boolean same = v == version;
            NodeId[] m = same ? java.util.Arrays.copyOf(members, members.length + 1) : new NodeId[] {member};
            MemorySegment[] s = same ? java.util.Arrays.copyOf(segments, segments.length + 1) : new MemorySegment[] {segment};
            m[m.length - 1] = member;
            s[s.length - 1] = segment;
            return new RemoteSegments(v, m, s);
        }
    }

    private final class TransportRegion implements Region {
        private final String name;
        private final int size;
        private final Notice notice;
        private final MemorySegment local;
        /** Peers' segments looked up under one {@link MemoryRegions#peersVersion}; replaced, never changed. */
        private volatile RemoteSegments remotes = new RemoteSegments(-1, new NodeId[0], new MemorySegment[0]);

        TransportRegion(String name, int size, Notice notice, MemorySegment local) {
            this.name = name;
            this.size = size;
            this.notice = notice;
            this.local = local;
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
            if (member == self) return local;
            long version = transport.peersVersion();
            if (version < 0) return member.equals(self) ? local : transport.remote(member, name);
            // An SST reads peers' rows in every predicate pass: keep the segments until the peers change.
            // The version is read before the lookup, so a segment looked up around a change is kept under
            // the older number and looked up again on the next read.
            RemoteSegments known = remotes;
            if (known.version() == version) {
                MemorySegment s = known.find(member);
                if (s != null) return s;
            }
            if (member.equals(self)) return local;
            MemorySegment s = transport.remote(member, name); // a non-peer is refused here, as always
            if (known.version() != version || known.members().length < MAX_KEPT) remotes = known.with(version, member, s);
            return s;
        }

        @Override
        public long peersVersion() {
            return transport.peersVersion();
        }

        @Override
        public long changes() {
            return transport.changes(); // every region of the transport together: counts more, never less
        }

        @Override
        public void push(int offset, int length, Collection<NodeId> targets) {
            transport.push(name, offset, length, targets);
        }

        @Override
        public long pushWithCompletion(int offset, int length, Collection<NodeId> targets) {
            return transport.pushWithCompletion(name, offset, length, targets);
        }

        @Override
        public String toString() {
            return "region '" + name + "' (" + size + " bytes, " + notice + ")";
        }
    }
}
