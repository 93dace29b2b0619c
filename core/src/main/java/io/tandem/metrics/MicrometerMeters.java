package io.tandem.metrics;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Meters} over a Micrometer registry (DESIGN §9): names {@code tandem.<area>.<what>}, and
 * every meter carries the node's {@code node} and {@code protocol} tags. Slowness warnings are
 * counted always and logged at most once per {@link #WARNING_INTERVAL_NANOS} per kind and peer.
 */
public final class MicrometerMeters implements Meters {
    private static final Logger log = LoggerFactory.getLogger("io.tandem.slowness");
    static final long WARNING_INTERVAL_NANOS = 10_000_000_000L;

    private final MeterRegistry registry;
    private final Tags commonTags;
    private final String nodeName;
    private final LongSupplier clock;
    private final Map<String, Object> cache = new ConcurrentHashMap<>();
    private final Map<String, Long> lastWarningAt = new ConcurrentHashMap<>();

    /**
     * @param clock the node's clock, used only to rate-limit warning log lines
     */
    public MicrometerMeters(MeterRegistry registry, NodeId node, String protocol, LongSupplier clock) {
        this.registry = registry;
        this.commonTags = Tags.of("node", node.value(), "protocol", protocol);
        this.nodeName = node.value();
        this.clock = clock;
    }

    public MeterRegistry registry() {
        return registry;
    }

    public Tags commonTags() {
        return commonTags;
    }

    @Override
    public Counter counter(String name, String... tags) {
        return (Counter) cache.computeIfAbsent(key("c", name, tags), k -> {
            io.micrometer.core.instrument.Counter c = io.micrometer.core.instrument.Counter.builder(name).tags(commonTags.and(tags)).register(registry);
            return new Counter() {
                @Override
                public void increment(long amount) {
                    c.increment(amount);
                }

                @Override
                public long count() {
                    return (long) c.count();
                }
            };
        });
    }

    @Override
    public Gauge gauge(String name, String... tags) {
        return (Gauge) cache.computeIfAbsent(key("g", name, tags), k -> {
            AtomicLong value = new AtomicLong();
            io.micrometer.core.instrument.Gauge.builder(name, value, AtomicLong::doubleValue).tags(commonTags.and(tags)).register(registry);
            return new Gauge() {
                @Override
                public void set(long v) {
                    value.set(v);
                }

                @Override
                public long value() {
                    return value.get();
                }
            };
        });
    }

    @Override
    public Distribution distribution(String name, String... tags) {
        return (Distribution) cache.computeIfAbsent(key("d", name, tags), k -> {
            DistributionSummary s = DistributionSummary.builder(name).tags(commonTags.and(tags)).publishPercentiles(0.5, 0.99).register(registry);
            return (Distribution) s::record;
        });
    }

    @Override
    public void slownessWarning(String kind, NodeId peer, String detail) {
        String peerName = peer == null ? "none" : peer.value();
        counter("tandem.slowness.warnings", "kind", kind, "peer", peerName).increment();
        SlownessWarningEvent event = new SlownessWarningEvent();
        if (event.isEnabled()) {
            event.node = nodeName;
            event.kind = kind;
            event.peer = peerName;
            event.detail = detail;
            event.commit();
        }
        long now = clock.getAsLong();
        String k = kind + '/' + peerName;
        Long last = lastWarningAt.get(k);
        if (last == null || now - last >= WARNING_INTERVAL_NANOS) {
            lastWarningAt.put(k, now);
            log.warn("slowness [{}] node={} peer={}: {}", kind, nodeName, peerName, detail);
        }
    }

    private static String key(String type, String name, String[] tags) {
        if (tags.length % 2 != 0) throw new IllegalArgumentException("tags must be key/value pairs: " + Arrays.toString(tags));
        return type + '|' + name + '|' + String.join("|", tags);
    }
}
