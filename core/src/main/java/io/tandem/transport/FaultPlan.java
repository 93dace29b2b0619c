package io.tandem.transport;

import io.tandem.engine.NodeId;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The network faults to inject, as an immutable value: build one and hand it to
 * {@link FaultInjectingTransport#setPlan} (any time, from any thread) to switch faults at run time.
 *
 * @param blockedLinks  directed links (from, to) whose messages are dropped: partitions, including one-way
 * @param delayNanos    fixed delay added to every message
 * @param jitterNanos   uniform random extra delay in [0, jitter)
 * @param lossRate      probability of dropping a message
 * @param duplicateRate probability of delivering a message twice
 * @param reorderRate   probability that a delayed message may overtake earlier ones to the same peer
 * @param slowNodes     extra delay for every message to or from a node (a slow replica)
 */
public record FaultPlan(
        Set<Link> blockedLinks,
        long delayNanos,
        long jitterNanos,
        double lossRate,
        double duplicateRate,
        double reorderRate,
        Map<NodeId, Long> slowNodes) {

    /** A directed link. */
    public record Link(NodeId from, NodeId to) {}

    public static final FaultPlan NONE = new FaultPlan(Set.of(), 0, 0, 0, 0, 0, Map.of());

    public FaultPlan {
        blockedLinks = Set.copyOf(blockedLinks);
        slowNodes = Map.copyOf(slowNodes);
        if (delayNanos < 0 || jitterNanos < 0) throw new IllegalArgumentException("delay and jitter must be >= 0");
        checkRate("lossRate", lossRate);
        checkRate("duplicateRate", duplicateRate);
        checkRate("reorderRate", reorderRate);
        slowNodes.forEach((n, d) -> {
            if (d < 0) throw new IllegalArgumentException("slow-node delay of " + n + " must be >= 0");
        });
    }

    private static void checkRate(String name, double rate) {
        if (!(rate >= 0 && rate <= 1)) throw new IllegalArgumentException(name + " must be in [0, 1], was " + rate);
    }

    public boolean isNone() {
        return equals(NONE);
    }

    public boolean blocks(NodeId from, NodeId to) {
        return !blockedLinks.isEmpty() && blockedLinks.contains(new Link(from, to));
    }

    /** Blocks both directions between every node of {@code side} and every node of {@code other}. */
    public FaultPlan partition(Collection<NodeId> side, Collection<NodeId> other) {
        Set<Link> links = new HashSet<>(blockedLinks);
        for (NodeId a : side) {
            for (NodeId b : other) {
                if (a.equals(b)) continue;
                links.add(new Link(a, b));
                links.add(new Link(b, a));
            }
        }
        return withBlockedLinks(links);
    }

    /** Drops messages from {@code from} to {@code to} only (an asymmetric partition). */
    public FaultPlan oneWay(NodeId from, NodeId to) {
        Set<Link> links = new HashSet<>(blockedLinks);
        links.add(new Link(from, to));
        return withBlockedLinks(links);
    }

    /** Cuts {@code node} off from {@code everyone}, both ways. */
    public FaultPlan isolate(NodeId node, Collection<NodeId> everyone) {
        return partition(Set.of(node), everyone);
    }

    public FaultPlan healPartitions() {
        return withBlockedLinks(Set.of());
    }

    public FaultPlan withBlockedLinks(Set<Link> links) {
        return new FaultPlan(links, delayNanos, jitterNanos, lossRate, duplicateRate, reorderRate, slowNodes);
    }

    public FaultPlan withDelay(Duration delay, Duration jitter) {
        return new FaultPlan(blockedLinks, delay.toNanos(), jitter.toNanos(), lossRate, duplicateRate, reorderRate, slowNodes);
    }

    public FaultPlan withLoss(double rate) {
        return new FaultPlan(blockedLinks, delayNanos, jitterNanos, rate, duplicateRate, reorderRate, slowNodes);
    }

    public FaultPlan withDuplication(double rate) {
        return new FaultPlan(blockedLinks, delayNanos, jitterNanos, lossRate, rate, reorderRate, slowNodes);
    }

    public FaultPlan withReordering(double rate) {
        return new FaultPlan(blockedLinks, delayNanos, jitterNanos, lossRate, duplicateRate, rate, slowNodes);
    }

    /** Adds {@code extra} delay to every message to or from {@code node}; zero removes it. */
    public FaultPlan withSlowNode(NodeId node, Duration extra) {
        Objects.requireNonNull(node);
        Map<NodeId, Long> slow = new HashMap<>(slowNodes);
        if (extra.isZero()) slow.remove(node);
        else slow.put(node, extra.toNanos());
        return new FaultPlan(blockedLinks, delayNanos, jitterNanos, lossRate, duplicateRate, reorderRate, slow);
    }

    long slowness(NodeId node) {
        Long d = slowNodes.get(node);
        return d == null ? 0 : d;
    }
}
