package io.tandem.bench.vsync;

import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.transport.MemoryRegions;
import io.tandem.transport.Transport;
import io.tandem.transport.TransportListener;
import java.lang.foreign.MemorySegment;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts a group's outgoing frames by kind for {@link LargeMessageBenchmark} ({@code --kinds true}): every
 * engine message by its class, every region push by which part of the virtual-synchrony row it writes
 * (the whole control range, part of it, a flag, the SMC guard, ring slots), split by whether the group's
 * sender (member n1) or another member sent it. One count per target, as the transport makes one frame per
 * target. A diagnostic of the benchmark: it only wraps the transport, nothing in the engine knows of it.
 *
 * <p>The row offsets follow {@code VsyncRow} for one subgroup and {@code maxMembers} columns (the benchmark's
 * layout): the control range is words 0 .. 4m + 11, then {@code trim_ready}, the guard, the slots.
 */
final class FrameKinds {
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final int controlEnd;

    FrameKinds(int maxMembers) {
        this.controlEnd = 8 * (4 * maxMembers + 12);
    }

    Transport wrap(Transport t, boolean sender) {
        return new Counting(t, sender ? "sender" : "others");
    }

    Map<String, Long> snapshot() {
        Map<String, Long> m = new TreeMap<>();
        counts.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    /** The counts between two snapshots, per message, largest first, as one line. */
    static String perMessage(Map<String, Long> before, Map<String, Long> after, double messages) {
        StringBuilder b = new StringBuilder();
        double total = 0;
        java.util.List<Map.Entry<String, Long>> rows = new java.util.ArrayList<>();
        for (var e : after.entrySet()) {
            long d = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            if (d > 0) rows.add(Map.entry(e.getKey(), d));
            total += Math.max(0, d);
        }
        rows.sort((x, y) -> Long.compare(y.getValue(), x.getValue()));
        b.append(String.format(Locale.ROOT, "frames by kind per message: total %.2f;", total / messages));
        for (var e : rows) b.append(String.format(Locale.ROOT, " %s %.2f", e.getKey(), e.getValue() / messages));
        return b.toString();
    }

    private void count(String key, int targets) {
        counts.computeIfAbsent(key, k -> new LongAdder()).add(targets);
    }

    private String push(int offset, int length) {
        if (DEBUG_OFFSETS && offset < 1024) return "push@" + offset;
        if (offset == 0) return "control-full";
        // A pass's changed counters with the SMC guard in one write (rdmc19: the view's one shard).
        if (offset < controlEnd && offset + length == controlEnd + 16) return "control-part+guard";
        if (offset < controlEnd) return "control-part";
        if (offset == controlEnd) return "trim-flag";
        if (offset == controlEnd + 8) return "guard";
        if (DEBUG_OFFSETS) return "push@" + offset;
        return "slots";
    }

    private static final boolean DEBUG_OFFSETS = Boolean.getBoolean("kinds.offsets");

    private final class Counting implements Transport {
        private final Transport t;
        private final String who;
        private final MemoryRegions regions;

        Counting(Transport t, String who) {
            this.t = t;
            this.who = who;
            MemoryRegions r = t.regions();
            this.regions = new MemoryRegions() {
                @Override
                public MemorySegment register(String name, int sizeBytes) {
                    return r.register(name, sizeBytes);
                }

                @Override
                public MemorySegment local(String name) {
                    return r.local(name);
                }

                @Override
                public MemorySegment remote(NodeId peer, String name) {
                    return r.remote(peer, name);
                }

                @Override
                public void push(String name, int offset, int length) {
                    count(who + ":" + FrameKinds.this.push(offset, length), t.peers().size());
                    r.push(name, offset, length);
                }

                @Override
                public void push(String name, int offset, int length, Collection<NodeId> targets) {
                    count(who + ":" + FrameKinds.this.push(offset, length), targets.size());
                    r.push(name, offset, length, targets);
                }

                @Override
                public long pushWithCompletion(String name, int offset, int length, Collection<NodeId> targets) {
                    count(who + ":" + FrameKinds.this.push(offset, length) + "(heartbeat)", targets.size());
                    return r.pushWithCompletion(name, offset, length, targets);
                }

                @Override
                public void freeze(NodeId peer) {
                    r.freeze(peer);
                }

                @Override
                public boolean isFrozen(NodeId peer) {
                    return r.isFrozen(peer);
                }

                @Override
                public long peersVersion() {
                    return r.peersVersion();
                }

                @Override
                public long changes() {
                    return r.changes();
                }
            };
        }

        @Override
        public NodeId self() {
            return t.self();
        }

        @Override
        public Set<NodeId> peers() {
            return t.peers();
        }

        @Override
        public void addMember(NodeId member, io.tandem.transport.Endpoint endpoint) {
            t.addMember(member, endpoint);
        }

        @Override
        public void removeMember(NodeId member) {
            t.removeMember(member);
        }

        @Override
        public void start(TransportListener listener) {
            t.start(listener);
        }

        @Override
        public boolean send(NodeId to, ProtocolMessage message) {
            count(who + ":" + message.getClass().getSimpleName(), 1);
            return t.send(to, message);
        }

        @Override
        public void startBatch() {
            t.startBatch();
        }

        @Override
        public void flushBatch() {
            t.flushBatch();
        }

        @Override
        public MemoryRegions regions() {
            return regions;
        }

        @Override
        public void close() {
            t.close();
        }
    }
}
