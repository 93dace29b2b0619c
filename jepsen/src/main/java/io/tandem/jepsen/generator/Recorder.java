package io.tandem.jepsen.generator;

import io.tandem.history.History;
import io.tandem.history.HistoryBuilder;
import io.tandem.history.Keyword;
import io.tandem.history.Op;

/**
 * The run's history as it happens, shared by every client thread and the nemesis. Each call takes the
 * time and appends under one lock, so {@code :index} order is real-time order and {@code :time} is
 * monotonic (nanoseconds since the run's origin, from {@link System#nanoTime()}). Invocations are
 * stamped before the request is sent and completions after the answer arrived (verification.md §2.6).
 */
public final class Recorder {
    private volatile long origin;
    private final HistoryBuilder history = History.builder();

    public Recorder() {
        this(System.nanoTime());
    }

    public Recorder(long originNanos) {
        this.origin = originNanos;
    }

    /**
     * Sets the origin to now: the history's times count from the start of the workload, not from the
     * cluster's setup (Jepsen's relative time).
     *
     * @throws IllegalStateException if something was recorded already
     */
    public synchronized void startClock() {
        if (history.size() > 0) throw new IllegalStateException("the history has started already");
        origin = System.nanoTime();
    }

    /** Nanoseconds since the run's origin. */
    public long now() {
        return System.nanoTime() - origin;
    }

    /** The {@link System#nanoTime()} the history's times count from. */
    public long origin() {
        return origin;
    }

    public synchronized Op invoke(long process, Invocation invocation) {
        return history.invoke(now(), process, invocation.f(), invocation.value());
    }

    public synchronized Op complete(long process, Completion completion) {
        return history.complete(now(), process, completion.type(), completion.value(), completion.error());
    }

    /** A nemesis op ({@code :process :nemesis}, {@code :type :info}, for its start and for its end). */
    public synchronized Op nemesis(Keyword f, Object value) {
        return history.nemesis(now(), f, value);
    }

    public synchronized int size() {
        return history.size();
    }

    /** The history so far (pending invocations stay uncompleted). */
    public synchronized History history() {
        return history.build();
    }
}
