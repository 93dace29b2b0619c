package io.tandem.sim.cost;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * Links between nodes (and clients): each directed link is a FIFO that serializes its messages at
 * the link's bandwidth, then each message takes a one-way latency sampled from the measured
 * distribution, plus any extra delay on the sender's egress (the {@code tc netem delay} kind: every
 * packet a slow node sends is held back). Messages on one link never overtake each other, as on a
 * TCP connection.
 *
 * <p>Two parts of a real connection are optional, on when the table has them: <b>stalls</b> of the receiving
 * endpoint ({@link LinkStalls}: the latency's tail as events in time, at a measured rate per second, instead of a
 * per-message draw; then the per-message latency is the distribution below the tail) and the <b>window and the
 * sender's per-peer outbox</b> ({@link PeerOutbox}: a peer that does not read fills the connection's window, and then
 * the sender's heap).
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
    private final Map<String, Long> receivedBy = new HashMap<>(); // keyed lookups only, never iterated
    private final Map<String, PeerOutbox> outboxes = new HashMap<>(); // keyed lookups only, never iterated
    private final Map<String, List<PeerOutbox>> outboxesOf = new HashMap<>(); // keyed lookups only; each list in creation order
    private final Map<String, LinkStalls> stalls = new HashMap<>(); // keyed lookups only, never iterated
    private long windowBytes;
    private PeerOutbox.Limits limits = PeerOutbox.Limits.unbounded();
    private double stallsPerSecond;
    private Distribution stallDuration = Distribution.fixed(0);
    private java.util.SplittableRandom stallRandom;
    private RandomGenerator ackRandom;
    private boolean sharedWakeups;
    private final Map<String, Long> wakeAt = new HashMap<>(); // keyed lookups only, never iterated

    public NetworkModel(Distribution latency, double bytesPerSecond, RandomGenerator random) {
        this.latency = latency;
        this.bytesPerSecond = bytesPerSecond;
        this.random = random;
        this.ackRandom = random;
    }

    /**
     * Gives every connection a window of {@code windowBytes} (0: unlimited) and its sender an outbox with
     * {@code limits}; {@code ackRandom} draws the latency of the window updates (a stream of its own, so that the
     * messages' latencies are those of a model without windows).
     */
    public void setWindow(long windowBytes, PeerOutbox.Limits limits, RandomGenerator ackRandom) {
        if (windowBytes < 0) throw new IllegalArgumentException("negative window");
        this.windowBytes = windowBytes;
        this.limits = limits;
        this.ackRandom = ackRandom;
    }

    /** Stalls of every receiving endpoint: {@code perSecond} (0: none), each lasting a sample of {@code duration}. */
    public void setStalls(double perSecond, Distribution duration, java.util.SplittableRandom random) {
        if (!(perSecond >= 0)) throw new IllegalArgumentException("stall rate must be >= 0");
        this.stallsPerSecond = perSecond;
        this.stallDuration = duration;
        this.stallRandom = random;
    }

    /**
     * Bursts share the receiver's wake-up (issue 18, session 15; off by default): the measured one-way latency is mostly the
     * receiving I/O thread's wake-up (a ping-pong has one message in flight), and messages that reach a receiver while a
     * message to it is still on the way are read in the turn that message wakes it for, as the real transport reads every
     * ready connection in one turn. With this on, a message sent while a message to the same receiver is in flight arrives
     * no later than that one (but not before the distribution's minimum, the wire's own time), instead of drawing a wake-up
     * of its own. Each message still draws its sample, so the random stream is that of a model without it.
     */
    public void setSharedWakeups(boolean on) {
        this.sharedWakeups = on;
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

    /** When a message of {@code bytes} handed to the link {@code from -> to} at {@code now} arrives (is read by {@code to}'s transport). */
    public long arrival(String from, String to, long now, long bytes) {
        String link = from + ">" + to;
        long start = Math.max(now, linkFree.getOrDefault(link, 0L));
        long onWire = bytesPerSecond > 0 ? (long) Math.ceil(bytes * 1e9 / bytesPerSecond) : 0;
        linkFree.put(link, start + onWire);
        long arrival = start + onWire + latency.sample(random) + egressDelay(from);
        long pendingWake = sharedWakeups ? wakeAt.getOrDefault(to, Long.MIN_VALUE) : Long.MIN_VALUE;
        if (pendingWake >= now) arrival = Math.min(arrival, Math.max(pendingWake, start + onWire + latency.quantile(0) + egressDelay(from)));
        if (stallsPerSecond > 0) arrival = stallsOf(to).readAt(now, arrival);
        arrival = Math.max(arrival, lastArrival.getOrDefault(link, 0L));
        lastArrival.put(link, arrival);
        if (sharedWakeups) wakeAt.put(to, Math.max(pendingWake, arrival));
        return arrival;
    }

    private LinkStalls stallsOf(String endpoint) {
        // Each endpoint's stalls come from a stream split off when the endpoint is first reached: deterministic, as the
        // order in which endpoints are first reached is a function of the run.
        return stalls.computeIfAbsent(endpoint, e -> new LinkStalls(stallsPerSecond, stallDuration, stallRandom.split()));
    }

    /** Stalls drawn so far at {@code endpoint}. */
    public long stalls(String endpoint) {
        LinkStalls s = stalls.get(endpoint);
        return s == null ? 0 : s.stalls();
    }

    /** How long the window update for a read at {@code reader} takes to get back to the sender: a one-way latency plus the reader's egress delay. */
    public long windowUpdateDelay(String reader) {
        return latency.sample(ackRandom) + egressDelay(reader);
    }

    /** Whether the connection {@code from -> to} has a window (and its sender an outbox). */
    public boolean windowed() {
        return windowBytes > 0;
    }

    /** The sender's outbox of the connection {@code from -> to}. */
    public PeerOutbox outbox(String from, String to) {
        return outboxes.computeIfAbsent(from + ">" + to, k -> {
            PeerOutbox o = new PeerOutbox(windowBytes, limits);
            outboxesOf.computeIfAbsent(from, f -> new java.util.ArrayList<>()).add(o);
            return o;
        });
    }

    /** Bytes waiting in {@code node}'s outboxes to all its peers now (its transport's heap). */
    public long outboxBytes(String node) {
        long b = 0;
        for (PeerOutbox o : outboxesOf.getOrDefault(node, List.of())) b += o.queuedBytes();
        return b;
    }

    /** Frames {@code node}'s outboxes dropped at their bound so far. */
    public long outboxDropped(String node) {
        long d = 0;
        for (PeerOutbox o : outboxesOf.getOrDefault(node, List.of())) d += o.dropped();
        return d;
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
        receivedBy.merge(to, 1L, Long::sum);
    }

    /** Messages that arrived at {@code node} from other members so far (its own loopback and client requests not counted). */
    public long receivedBy(String node) {
        return receivedBy.getOrDefault(node, 0L);
    }

    public int inFlight(String from, String to) {
        return inFlight.getOrDefault(from + ">" + to, 0);
    }
}
