package io.tandem.runtime;

import io.tandem.engine.TimerKey;
import java.util.List;

/** The runtime's {@link Timers}, opened for benchmarks that drive an engine through a context of their own. */
public final class BenchmarkTimers {
    private final Timers timers = new Timers();

    public void schedule(TimerKey key, long deadline) {
        timers.schedule(key, deadline);
    }

    public void scheduleNow(TimerKey key) {
        timers.scheduleNow(key);
    }

    public void cancel(TimerKey key) {
        timers.cancel(key);
    }

    public List<TimerKey> due(long now) {
        return timers.due(now);
    }

    public long nanosUntilNext(long now) {
        return timers.nanosUntilNext(now);
    }
}
