package io.tandem.transport.tcp;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Open (or pending) connections per source address, for per-source limits. The map holds only
 * addresses that have connections now, not every address ever seen, so an attacker with many
 * addresses cannot grow it beyond the connection limits.
 */
public final class SourceCounts {
    private final ConcurrentHashMap<InetAddress, AtomicInteger> counts = new ConcurrentHashMap<>();

    /** Counts one more connection from {@code source}; returns how many it has now. */
    public int add(InetAddress source) {
        return counts.compute(source, (k, v) -> {
            AtomicInteger c = v == null ? new AtomicInteger() : v;
            c.incrementAndGet();
            return c;
        }).get();
    }

    /** Counts one connection from {@code source} less; the entry goes at zero. */
    public void remove(InetAddress source) {
        counts.computeIfPresent(source, (k, v) -> v.decrementAndGet() <= 0 ? null : v);
    }

    /** Addresses with at least one connection. */
    public int sources() {
        return counts.size();
    }
}
