package io.tandem.transport.tcp;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * One WARN line per kind of bad input per interval: the first occurrence is logged at once, later
 * ones within the interval only counted, and the next line that gets through says how many were
 * left out. A flood of 2,000 bad connections thus costs a handful of lines, not 2,000; the exact
 * numbers are in the counters.
 */
public final class RateLimitedLog {
    private final Logger log;
    private final long intervalNanos;
    private final ConcurrentHashMap<String, Window> windows = new ConcurrentHashMap<>();

    private static final class Window {
        volatile long lastLogged;
        final AtomicLong suppressed = new AtomicLong();
    }

    public RateLimitedLog(Logger log, java.time.Duration interval) {
        this.log = log;
        this.intervalNanos = interval.toNanos();
    }

    /** Logs {@code format} (SLF4J style) at WARN unless a line of {@code kind} was logged within the interval. */
    public void warn(String kind, String format, Object... args) {
        long now = System.nanoTime();
        Window w = windows.computeIfAbsent(kind, k -> {
            Window fresh = new Window();
            fresh.lastLogged = now - intervalNanos - 1;
            return fresh;
        });
        synchronized (w) {
            if (now - w.lastLogged <= intervalNanos) {
                w.suppressed.incrementAndGet();
                return;
            }
            w.lastLogged = now;
        }
        long left = w.suppressed.getAndSet(0);
        if (left == 0) {
            log.warn(format, args);
        } else {
            log.warn(format + " (and " + left + " more like it in the last " + java.time.Duration.ofNanos(intervalNanos).toSeconds() + " s, not logged)", args);
        }
    }
}
