package io.tandem.transport;

import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.PriorityQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wraps any {@link Transport} and injects network faults described by a {@link FaultPlan}:
 * delay and jitter, loss, duplication, reordering, partitions (including one-way) and per-node
 * slowness. The plan can be switched at any time; this is what tests, the local Jepsen runner and
 * the benchmarks use for network faults, since this kernel has no {@code netem}.
 *
 * <p>Outbound faults apply at the sender; blocked links are also enforced on inbound traffic, so
 * a one-way partition set on the receiving side alone still holds. Without reordering, delayed
 * messages keep per-peer FIFO order. Region pushes obey partitions on the sending side (a push to a
 * member across a blocked link does not land, and completes as not applied: a connection broken by the
 * cut, as in the simulator once a cut outlasts its connection; the simulator also holds pushes across
 * shorter cuts, as TCP does);
 * otherwise they pass through unfaulted: one-sided writes carry no per-message hook on the remote
 * side (as with RDMA), so loss, delay and one-way blocks set only at the receiver do not apply.
 */
public final class FaultInjectingTransport implements Transport {
    private final Transport delegate;
    private final SplittableRandom random;
    private final DelayLine delayLine;
    private final Map<NodeId, Long> lastDeliveryAt = new HashMap<>();
    private volatile FaultPlan plan = FaultPlan.NONE;
    private final MemoryRegions regions = new PartitionedRegions();
    private volatile TransportListener listener;

    private final AtomicLong droppedByPartition = new AtomicLong();
    private final AtomicLong droppedByLoss = new AtomicLong();
    private final AtomicLong duplicated = new AtomicLong();
    private final AtomicLong delayed = new AtomicLong();

    public FaultInjectingTransport(Transport delegate, long seed) {
        this.delegate = delegate;
        this.random = new SplittableRandom(seed);
        this.delayLine = new DelayLine("tandem-faults-" + delegate.self());
    }

    public FaultPlan plan() {
        return plan;
    }

    public void setPlan(FaultPlan plan) {
        this.plan = plan;
    }

    public void heal() {
        this.plan = FaultPlan.NONE;
    }

    @Override
    public NodeId self() {
        return delegate.self();
    }

    @Override
    public Set<NodeId> peers() {
        return delegate.peers();
    }

    @Override
    public void start(TransportListener listener) {
        this.listener = listener;
        delegate.start(new TransportListener() {
            @Override
            public void onMessage(NodeId from, ProtocolMessage message) {
                if (plan.blocks(from, self())) {
                    droppedByPartition.incrementAndGet();
                    return;
                }
                listener.onMessage(from, message);
            }

            @Override
            public void onRegionWrite(NodeId writer, String region, int offset, int length) {
                listener.onRegionWrite(writer, region, offset, length);
            }

            @Override
            public void onPushCompleted(long pushId, String region, NodeId target, boolean applied) {
                listener.onPushCompleted(pushId, region, target, applied);
            }
        });
    }

    @Override
    public void startBatch() {
        delegate.startBatch();
    }

    @Override
    public void flushBatch() {
        delegate.flushBatch();
    }

    @Override
    public boolean send(NodeId to, ProtocolMessage message) {
        FaultPlan p = plan;
        if (p.isNone()) return delegate.send(to, message);
        if (p.blocks(self(), to)) {
            droppedByPartition.incrementAndGet();
            return true; // a partition looks like a lost packet to the sender
        }
        int copies = 1;
        long delay;
        boolean mayReorder;
        synchronized (random) {
            if (p.lossRate() > 0 && random.nextDouble() < p.lossRate()) {
                droppedByLoss.incrementAndGet();
                return true;
            }
            if (p.duplicateRate() > 0 && random.nextDouble() < p.duplicateRate()) copies = 2;
            delay = p.delayNanos() + (p.jitterNanos() > 0 ? random.nextLong(p.jitterNanos()) : 0) + p.slowness(self()) + p.slowness(to);
            mayReorder = p.reorderRate() > 0 && random.nextDouble() < p.reorderRate();
        }
        if (copies == 2) duplicated.incrementAndGet();
        for (int i = 0; i < copies; i++) schedule(to, message, delay, mayReorder);
        return true;
    }

    private void schedule(NodeId to, ProtocolMessage message, long delayNanos, boolean mayReorder) {
        long now = System.nanoTime();
        long at = now + delayNanos;
        synchronized (lastDeliveryAt) {
            Long last = lastDeliveryAt.get(to);
            if (!mayReorder && last != null && last > at) at = last; // keep FIFO behind earlier delayed messages
            if (at <= now && (last == null || last <= now)) {
                lastDeliveryAt.remove(to);
                delegate.send(to, message);
                return;
            }
            if (!mayReorder) lastDeliveryAt.put(to, at);
            delayed.incrementAndGet();
            // Absolute deadlines, ties broken by submission order, so clamped messages stay FIFO.
            delayLine.add(at, () -> delegate.send(to, message));
        }
    }

    @Override
    public MemoryRegions regions() {
        return regions;
    }

    /** The delegate's regions, with pushes across a blocked link dropped at the sender. */
    private final class PartitionedRegions implements MemoryRegions {
        @Override
        public java.lang.foreign.MemorySegment register(String name, int sizeBytes) {
            return delegate.regions().register(name, sizeBytes);
        }

        @Override
        public java.lang.foreign.MemorySegment local(String name) {
            return delegate.regions().local(name);
        }

        @Override
        public java.lang.foreign.MemorySegment remote(NodeId peer, String name) {
            return delegate.regions().remote(peer, name);
        }

        @Override
        public void push(String name, int offset, int length) {
            push(name, offset, length, delegate.peers());
        }

        @Override
        public void push(String name, int offset, int length, java.util.Collection<NodeId> targets) {
            delegate.regions().push(name, offset, length, reachable(targets));
        }

        @Override
        public long pushWithCompletion(String name, int offset, int length, java.util.Collection<NodeId> targets) {
            java.util.List<NodeId> reachable = reachable(targets);
            long id = delegate.regions().pushWithCompletion(name, offset, length, reachable);
            TransportListener l = listener;
            for (NodeId t : targets.stream().distinct().sorted().toList()) {
                if (!reachable.contains(t) && !t.equals(self()) && l != null) l.onPushCompleted(id, name, t, false);
            }
            return id;
        }

        private java.util.List<NodeId> reachable(java.util.Collection<NodeId> targets) {
            FaultPlan p = plan;
            java.util.List<NodeId> ok = new java.util.ArrayList<>();
            for (NodeId t : targets) {
                if (p.blocks(self(), t)) droppedByPartition.incrementAndGet();
                else ok.add(t);
            }
            return ok;
        }

        @Override
        public void freeze(NodeId peer) {
            delegate.regions().freeze(peer);
        }

        @Override
        public boolean isFrozen(NodeId peer) {
            return delegate.regions().isFrozen(peer);
        }

        @Override
        public long peersVersion() {
            return delegate.regions().peersVersion();
        }

        @Override
        public long changes() {
            return delegate.regions().changes();
        }
    }

    @Override
    public void addMember(NodeId member, Endpoint endpoint) {
        delegate.addMember(member, endpoint);
    }

    @Override
    public void removeMember(NodeId member) {
        delegate.removeMember(member);
    }

    public long droppedByPartition() {
        return droppedByPartition.get();
    }

    public long droppedByLoss() {
        return droppedByLoss.get();
    }

    public long duplicated() {
        return duplicated.get();
    }

    public long delayed() {
        return delayed.get();
    }

    @Override
    public void close() {
        delayLine.close();
        delegate.close();
    }

    /** One thread that runs actions at absolute {@code System.nanoTime()} deadlines, FIFO among equal deadlines. */
    private static final class DelayLine {
        private record Item(long at, long seq, Runnable action) {}

        private final PriorityQueue<Item> items = new PriorityQueue<>((x, y) -> x.at != y.at ? Long.compare(x.at, y.at) : Long.compare(x.seq, y.seq));
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private final Thread thread;
        private long nextSeq;
        private boolean closed;

        DelayLine(String name) {
            thread = Thread.ofPlatform().name(name).daemon(true).start(this::run);
        }

        void add(long at, Runnable action) {
            lock.lock();
            try {
                items.add(new Item(at, nextSeq++, action));
                changed.signal();
            } finally {
                lock.unlock();
            }
        }

        private void run() {
            while (true) {
                Runnable due;
                lock.lock();
                try {
                    while (true) {
                        if (closed) return;
                        Item head = items.peek();
                        long wait = head == null ? Long.MAX_VALUE : head.at - System.nanoTime();
                        if (head != null && wait <= 0) {
                            due = items.poll().action;
                            break;
                        }
                        try {
                            if (head == null) changed.await();
                            else changed.awaitNanos(wait);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                } finally {
                    lock.unlock();
                }
                due.run();
            }
        }

        void close() {
            lock.lock();
            try {
                closed = true;
                items.clear();
                changed.signal();
            } finally {
                lock.unlock();
            }
        }
    }
}
