package io.tandem.protocols.testing;

import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** In-memory {@link Meters} that keeps every value and every slowness warning, for assertions. */
public final class TestMeters implements Meters {
    public record Warning(String kind, NodeId peer, String detail) {}

    private final Map<String, long[]> values = new HashMap<>();
    public final List<Warning> warnings = new ArrayList<>();

    private static String key(String name, String... tags) {
        return name + String.join(",", tags);
    }

    @Override
    public Counter counter(String name, String... tags) {
        long[] v = values.computeIfAbsent(key(name, tags), k -> new long[1]);
        return new Counter() {
            @Override
            public void increment(long amount) {
                v[0] += amount;
            }

            @Override
            public long count() {
                return v[0];
            }
        };
    }

    @Override
    public Gauge gauge(String name, String... tags) {
        long[] v = values.computeIfAbsent(key(name, tags), k -> new long[1]);
        return new Gauge() {
            @Override
            public void set(long value) {
                v[0] = value;
            }

            @Override
            public long value() {
                return v[0];
            }
        };
    }

    @Override
    public Distribution distribution(String name, String... tags) {
        long[] v = values.computeIfAbsent(key(name, tags), k -> new long[1]);
        return value -> v[0]++;
    }

    @Override
    public void slownessWarning(String kind, NodeId peer, String detail) {
        warnings.add(new Warning(kind, peer, detail));
    }

    public long value(String name, String... tags) {
        long[] v = values.get(key(name, tags));
        return v == null ? 0 : v[0];
    }

    public long warnings(String kind) {
        return warnings.stream().filter(w -> w.kind().equals(kind)).count();
    }
}
