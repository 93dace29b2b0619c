package io.tandem.sim.cost;

import java.util.HashMap;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * Links between nodes (and clients): each directed link is a FIFO that serializes its messages at
 * the link's bandwidth, then each message takes a one-way latency sampled from the measured
 * distribution, plus any extra delay on the sender's egress (the {@code tc netem delay} kind: every
 * packet a slow node sends is held back). Messages on one link never overtake each other, as on a
 * TCP connection.
 */
public final class NetworkModel {
    private final Distribution latency;
    private final double bytesPerSecond;
    private final RandomGenerator random;
    private final Map<String, Long> linkFree = new HashMap<>(); // keyed lookups only, never iterated
    private final Map<String, Long> lastArrival = new HashMap<>(); // keyed lookups only, never iterated
    private final Map<String, Long> extraEgress = new HashMap<>(); // keyed lookups only, never iterated
    private final Map<String, Integer> inFlight = new HashMap<>(); // keyed lookups only, never iterated
    private final Map<String, Long> sentBy = new HashMap<>(); // keyed lookups only, never iterated

    public NetworkModel(Distribution latency, double bytesPerSecond, RandomGenerator random) {
        this.latency = latency;
        this.bytesPerSecond = bytesPerSecond;
        this.random = random;
    }

    /** Holds every message {@code node} sends back by {@code delayNanos} (0: none). */
    public void setEgressDelay(String node, long delayNanos) {
        if (delayNanos < 0) throw new IllegalArgumentException("negative delay");
        if (delayNanos == 0) extraEgress.remove(node);
        else extraEgress.put(node, delayNanos);
    }

    public long egressDelay(String node) {
        return extraEgress.getOrDefault(node, 0L);
    }

    /** When a message of {@code bytes} handed to the link {@code from -> to} at {@code now} arrives. */
    public long arrival(String from, String to, long now, long bytes) {
        String link = from + ">" + to;
        long start = Math.max(now, linkFree.getOrDefault(link, 0L));
        long onWire = bytesPerSecond > 0 ? (long) Math.ceil(bytes * 1e9 / bytesPerSecond) : 0;
        linkFree.put(link, start + onWire);
        long arrival = start + onWire + latency.sample(random) + egressDelay(from);
        arrival = Math.max(arrival, lastArrival.getOrDefault(link, 0L));
        lastArrival.put(link, arrival);
        return arrival;
    }

    /** Counts a message put on a link until {@link #arrived} (the bytes a slow link holds, in the model). */
    public void sent(String from, String to) {
        inFlight.merge(from + ">" + to, 1, Integer::sum);
        sentBy.merge(from, 1L, Long::sum);
    }

    /** Messages {@code node} has put on its links to other members so far (its own loopback and client replies not counted). */
    public long sentBy(String node) {
        return sentBy.getOrDefault(node, 0L);
    }

    public void arrived(String from, String to) {
        inFlight.merge(from + ">" + to, -1, Integer::sum);
    }

    public int inFlight(String from, String to) {
        return inFlight.getOrDefault(from + ">" + to, 0);
    }
}
