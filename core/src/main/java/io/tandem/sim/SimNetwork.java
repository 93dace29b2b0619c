package io.tandem.sim;

import io.tandem.engine.NodeId;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * The simulated network: one-way latency from a distribution, loss (a base rate, raised during a
 * loss burst), duplication, and partitions of any shape as a set of blocked directed links, checked
 * when a message is sent and again when it arrives. Links are FIFO, like the real per-peer
 * transport, except that with probability {@code reorderRate} a message may overtake earlier ones.
 * Slow nodes multiply the latency of every link they are on; a slow link only its own. Client traffic has latency but is never
 * partitioned or lost (the clients stand for processes co-located with the cluster's edge).
 */
final class SimNetwork {
    private final SimOptions options;
    private final RandomGenerator random;
    private Set<Fault.Link> blocked = Set.of();
    private final TreeMap<NodeId, Integer> slow = new TreeMap<>();
    private final Map<Fault.Link, Integer> slowLinks = new HashMap<>(); // keyed lookups only, never iterated
    private double burstLoss;
    private final Map<Fault.Link, Long> lastArrival = new HashMap<>(); // keyed lookups only, never iterated
    private final Map<Fault.Link, Long> lastRegionArrival = new HashMap<>(); // keyed lookups only, never iterated

    SimNetwork(SimOptions options, RandomGenerator random) {
        this.options = options;
        this.random = random;
    }

    void partition(Set<Fault.Link> links) {
        blocked = links;
    }

    void heal() {
        blocked = Set.of();
    }

    void setSlow(NodeId node, int factor) {
        slow.put(node, factor);
    }

    void clearSlow(NodeId node) {
        slow.remove(node);
    }

    void setSlowLink(Fault.Link link, int factor) {
        slowLinks.put(link, factor);
    }

    void clearSlowLink(Fault.Link link) {
        slowLinks.remove(link);
    }

    void lossBurst(double rate) {
        burstLoss = rate;
    }

    void endLossBurst() {
        burstLoss = 0;
    }

    /** Heals every network fault: partitions, slow nodes, loss bursts. */
    void healAll() {
        heal();
        slow.clear();
        slowLinks.clear();
        endLossBurst();
    }

    boolean blocked(NodeId from, NodeId to) {
        return !blocked.isEmpty() && blocked.contains(new Fault.Link(from, to));
    }

    int slowFactor(NodeId node) {
        return slow.getOrDefault(node, 1);
    }

    double lossRate() {
        return Math.max(options.lossRate(), burstLoss);
    }

    /** Arrival times of one message sent now: none if it is lost or partitioned away, two if duplicated. */
    long[] plan(NodeId from, NodeId to, long now) {
        if (blocked(from, to)) return new long[0];
        if (random.nextDouble() < lossRate()) return new long[0];
        int copies = random.nextDouble() < options.duplicateRate() ? 2 : 1;
        long[] arrivals = new long[copies];
        Fault.Link link = new Fault.Link(from, to);
        long factor = Math.max(slowFactor(from), slowFactor(to)) * (long) slowLinks.getOrDefault(link, 1);
        for (int i = 0; i < copies; i++) {
            long arrival = now + options.networkLatency().sample(random) * factor;
            boolean mayOvertake = i > 0 || random.nextDouble() < options.reorderRate();
            if (!mayOvertake) {
                arrival = Math.max(arrival, lastArrival.getOrDefault(link, 0L));
                lastArrival.put(link, arrival);
            }
            arrivals[i] = arrival;
        }
        return arrivals;
    }

    /**
     * Arrival time of a region write (or its acknowledgement) sent now: never lost, duplicated or
     * reordered on a working link (a reliable connection, derecho.md §2.5 R1-R2); whether a
     * partition stops it is for the caller to check, at sending and at arrival.
     */
    long regionArrival(NodeId from, NodeId to, long now) {
        Fault.Link link = new Fault.Link(from, to);
        long factor = Math.max(slowFactor(from), slowFactor(to)) * (long) slowLinks.getOrDefault(link, 1);
        long arrival = Math.max(now + options.networkLatency().sample(random) * factor, lastRegionArrival.getOrDefault(link, 0L));
        lastRegionArrival.put(link, arrival);
        return arrival;
    }

    /** Delay of a client request to, or a reply from, {@code node}. */
    long clientDelay(NodeId node) {
        return options.networkLatency().sample(random) * slowFactor(node);
    }
}
