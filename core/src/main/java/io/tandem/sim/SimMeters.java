package io.tandem.sim;

import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import java.util.Map;
import java.util.TreeMap;

/**
 * In-memory meters of one simulated node, keyed by name and tags in a sorted map so that nothing
 * about them depends on hash order. Slowness warnings are counted per kind, like the real runtime's
 * {@code tandem.slowness.warnings}; distributions keep count, sum and max.
 */
public final class SimMeters implements Meters {
    private final TreeMap<String, SimCounter> counters = new TreeMap<>();
    private final TreeMap<String, SimGauge> gauges = new TreeMap<>();
    private final TreeMap<String, SimDistribution> distributions = new TreeMap<>();

    private static String key(String name, String... tags) {
        if (tags.length % 2 != 0) throw new IllegalArgumentException("tags must be key/value pairs");
        return tags.length == 0 ? name : name + "{" + String.join(",", tags) + "}";
    }

    @Override
    public Counter counter(String name, String... tags) {
        return counters.computeIfAbsent(key(name, tags), k -> new SimCounter());
    }

    @Override
    public Gauge gauge(String name, String... tags) {
        return gauges.computeIfAbsent(key(name, tags), k -> new SimGauge());
    }

    @Override
    public Distribution distribution(String name, String... tags) {
        return distributions.computeIfAbsent(key(name, tags), k -> new SimDistribution());
    }

    @Override
    public void slownessWarning(String kind, NodeId peer, String detail) {
        counter("tandem.slowness.warnings", "kind", kind, "peer", peer == null ? "none" : peer.value()).increment();
    }

    /** Sum of a counter over all its tag combinations. */
    public long total(String name) {
        long sum = 0;
        for (Map.Entry<String, SimCounter> e : counters.entrySet()) {
            if (e.getKey().equals(name) || e.getKey().startsWith(name + "{")) {
                sum += e.getValue().count();
            }
        }
        return sum;
    }

    private static final class SimCounter implements Counter {
        private long count;

        @Override
        public void increment(long amount) {
            count += amount;
        }

        @Override
        public long count() {
            return count;
        }
    }

    private static final class SimGauge implements Gauge {
        private long value;

        @Override
        public void set(long value) {
            this.value = value;
        }

        @Override
        public long value() {
            return value;
        }
    }

    private static final class SimDistribution implements Distribution {
        private long count;
        private long sum;
        private long max;

        @Override
        public void record(long value) {
            count++;
            sum += value;
            max = Math.max(max, value);
        }
    }
}
