package io.tandem.transport.tcp;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/**
 * The transport's Micrometer meters (DESIGN §9): {@code tandem.transport.<what>}, tagged
 * {@code node} plus {@code peer} or {@code reason}. Counts live in our own {@link LongAdder}s and
 * are exposed as function counters, so the getters tests use are exact whatever registry the node
 * passes (a composite without children would report nothing). Meters are removed on close, so a
 * transport restarted with the same node id in the same registry reports its own counts.
 */
final class TransportMetrics {
    static final String PREFIX = "tandem.transport.";

    static final String FRAMES_SENT = "frames.sent";
    static final String BYTES_SENT = "bytes.sent";
    /** Drains that handed frames to the socket, each ending in one flush: frames sent over flushes is the batching. */
    static final String FLUSHES = "flushes";
    /** Of the flushes, those the sending thread wrote to the socket itself ({@link DirectSend}), without the I/O thread. */
    static final String FLUSHES_DIRECT = "flushes.direct";
    static final String FRAMES_RECEIVED = "frames.received";
    static final String BYTES_RECEIVED = "bytes.received";
    static final String FRAMES_MALFORMED = "frames.malformed";
    static final String FRAMES_OVERSIZED = "frames.oversized";
    static final String HANDSHAKE_REJECTIONS = "handshake.rejections";
    static final String SENDS_DROPPED = "sends.dropped";
    static final String SENDS_FAILED = "sends.failed";
    static final String RECONNECTS = "reconnects";
    static final String CONNECTIONS_OPENED = "connections.opened";
    static final String CONNECTIONS_REFUSED = "connections.refused";
    static final String REGION_WRITES_REJECTED = "region.writes.rejected";
    /** Frames from a contact connection that are not contact messages, dropped unread (tag {@code reason}). */
    static final String CONTACT_DROPPED = "contact.dropped";
    static final String OUTBOX_MESSAGES = "outbox.messages";
    static final String OUTBOX_BYTES = "outbox.bytes";
    static final String PEER_CONNECTED = "peer.connected";
    static final String IO_MODE = "io.mode";

    static final String UNKNOWN_PEER = "unknown";

    private record Key(String what, List<String> tags) {}

    private final MeterRegistry registry;
    private final String node;
    private final Map<Key, LongAdder> counters = new ConcurrentHashMap<>();
    private final List<Meter> registered = new CopyOnWriteArrayList<>();

    TransportMetrics(MeterRegistry registry, String node) {
        this.registry = registry;
        this.node = node;
    }

    /** The counter {@code what} with extra {@code tags} (alternating keys and values), created on first use. */
    LongAdder counter(String what, String... tags) {
        return counters.computeIfAbsent(new Key(what, List.of(tags)), k -> {
            LongAdder adder = new LongAdder();
            registered.add(FunctionCounter.builder(PREFIX + what, adder, LongAdder::sum).tags(allTags(tags)).register(registry));
            return adder;
        });
    }

    <T> void gauge(String what, T target, ToDoubleFunction<T> value, String... tags) {
        registered.add(Gauge.builder(PREFIX + what, target, value).tags(allTags(tags)).register(registry));
    }

    /**
     * Unregisters the gauges of a removed peer: they read its old link, and a peer added again
     * registers fresh ones (its counters carry on, cumulative).
     */
    void removeGauges(String peer) {
        for (Meter m : registered) {
            if (m instanceof Gauge && peer.equals(m.getId().getTag("peer"))) {
                registry.remove(m);
                registered.remove(m);
            }
        }
    }

    /** The sum of counter {@code what} over all its tags. */
    long total(String what) {
        long sum = 0;
        for (Map.Entry<Key, LongAdder> e : counters.entrySet()) {
            if (e.getKey().what().equals(what)) sum += e.getValue().sum();
        }
        return sum;
    }

    private String[] allTags(String... tags) {
        List<String> all = new ArrayList<>(tags.length + 2);
        all.add("node");
        all.add(node);
        all.addAll(List.of(tags));
        return all.toArray(String[]::new);
    }

    void close() {
        for (Meter m : registered) registry.remove(m);
        registered.clear();
    }
}
