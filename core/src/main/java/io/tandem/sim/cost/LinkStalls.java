package io.tandem.sim.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The stalls of one endpoint's receiving side: its I/O thread off the CPU (descheduled, a safepoint), during which
 * nothing that reaches it is read. A stall is an event in time: they come at a measured rate per second (a Poisson
 * process) and last a measured duration, whatever the message rate; every message that reaches the endpoint during a
 * stall is read when it ends. (Drawing the tail of the loopback latency per message instead, as the table's
 * {@code net.oneway} alone would, stalls a busy link once per hundred messages: far more often than a thread is
 * descheduled at high message rates.)
 *
 * <p>Queries may come in any order of arrival time, but never for a time before the scheduler's now (a message
 * arrives after it was sent), so windows that ended before now are dropped.
 */
public final class LinkStalls {
    private record Window(long start, long end) {}

    private final double perNano;
    private final Distribution duration;
    private final RandomGenerator random;
    private final List<Window> windows = new ArrayList<>();
    private long generatedUntil; // the start of the next window not yet drawn
    private long stalls;

    /**
     * @param perSecond stalls per second (0: none)
     * @param duration  how long one lasts
     */
    public LinkStalls(double perSecond, Distribution duration, RandomGenerator random) {
        if (!(perSecond >= 0)) throw new IllegalArgumentException("stall rate must be >= 0");
        this.perNano = perSecond / 1e9;
        this.duration = duration;
        this.random = random;
        this.generatedUntil = perNano > 0 ? gap() : Long.MAX_VALUE;
    }

    private long gap() {
        return Math.max(1, (long) Math.ceil(-Math.log(1 - random.nextDouble()) / perNano));
    }

    /**
     * When a message that reaches the endpoint at {@code t} is read: {@code t}, or the end of the stall {@code t}
     * falls in. {@code now} is the present (windows that ended before it can no longer matter).
     */
    public long readAt(long now, long t) {
        while (!windows.isEmpty() && windows.getFirst().end() <= now) windows.removeFirst();
        while (generatedUntil <= t) {
            long start = generatedUntil;
            long end = start + Math.max(0, duration.sample(random));
            windows.add(new Window(start, end));
            stalls++;
            generatedUntil = end + gap();
        }
        for (Window w : windows) {
            if (w.start() <= t && t < w.end()) return w.end();
        }
        return t;
    }

    /** Stalls drawn so far. */
    public long stalls() {
        return stalls;
    }
}
