package io.tandem.transport;

import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wraps any {@link Transport} and injects network faults described by a {@link FaultPlan}:
 * delay and jitter, loss, duplication, reordering, partitions (including one-way) and per-node
 * slowness. The plan can be switched at any time; this is what tests, the local Jepsen runner and
 * the benchmarks use for network faults, since this kernel has no {@code netem}.
 *
 * <p>Outbound faults apply at the sender; blocked links are also enforced on inbound traffic, so
 * a one-way partition set on the receiving side alone still holds. Without reordering, delayed
 * messages keep per-peer FIFO order. Region pushes pass through unfaulted: one-sided writes carry
 * no per-message hook on the remote side (as with RDMA), and the SST tolerates loss by re-pushing.
 */
public final class FaultInjectingTransport implements Transport {
    private final Transport delegate;
    private final SplittableRandom random;
    private final ScheduledThreadPoolExecutor delayer;
    private final Map<NodeId, Long> lastDeliveryAt = new HashMap<>();
    private volatile FaultPlan plan = FaultPlan.NONE;

    private final AtomicLong droppedByPartition = new AtomicLong();
    private final AtomicLong droppedByLoss = new AtomicLong();
    private final AtomicLong duplicated = new AtomicLong();
    private final AtomicLong delayed = new AtomicLong();

    public FaultInjectingTransport(Transport delegate, long seed) {
        this.delegate = delegate;
        this.random = new SplittableRandom(seed);
        this.delayer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "tandem-faults-" + delegate.self());
            t.setDaemon(true);
            return t;
        });
        this.delayer.setRemoveOnCancelPolicy(true);
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
        });
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
            // Scheduled under the lock so equal deadlines keep submission order (the executor breaks ties FIFO).
            delayer.schedule(() -> delegate.send(to, message), at - now, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public MemoryRegions regions() {
        return delegate.regions();
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
        delayer.shutdownNow();
        delegate.close();
    }
}
