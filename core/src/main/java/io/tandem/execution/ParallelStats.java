package io.tandem.execution;

import java.util.function.IntToLongFunction;

/**
 * The meters of a {@link ParallelExecutor} (opt-psmr.md §8.2): commands executed per worker (the
 * per-thread load), commands run in synchronous mode, optimistic checks and their fails (the fail
 * rate is fails / checks), conservative copies re-sent, and tags that did not match the replica's
 * routing. Totals are published at each cut ({@link Executor#flush()}), so any thread may read them.
 */
public final class ParallelStats {
    private final long[] executed;
    private volatile long synchronous;
    private volatile long checked;
    private volatile long failed;
    /** Written by the driver thread only. */
    volatile long resends;
    volatile long mistagged;

    ParallelStats(int threads) {
        this.executed = new long[threads];
    }

    synchronized void publish(int n, IntToLongFunction exec, IntToLongFunction sync, IntToLongFunction chk, IntToLongFunction fail) {
        long s = 0, c = 0, f = 0;
        for (int i = 0; i < n; i++) {
            executed[i] = exec.applyAsLong(i);
            s += sync.applyAsLong(i);
            c += chk.applyAsLong(i);
            f += fail.applyAsLong(i);
        }
        synchronous = s;
        checked = c;
        failed = f;
    }

    public int threads() {
        return executed.length;
    }

    /** Commands worker {@code i} executed (as the only destination or as the executor of a multi-worker command). */
    public synchronized long executed(int i) {
        return executed[i];
    }

    public synchronized long executedTotal() {
        long t = 0;
        for (long e : executed) t += e;
        return t;
    }

    /** Commands run in lock-step by several workers. */
    public long synchronous() {
        return synchronous;
    }

    /** Optimistic commands checked. */
    public long checked() {
        return checked;
    }

    /** Optimistic commands that failed their check (never executed then; re-sent conservatively). */
    public long failed() {
        return failed;
    }

    /** Fails divided by checks; 0 when nothing was checked. */
    public double failRate() {
        long c = checked;
        return c == 0 ? 0 : (double) failed / c;
    }

    /** Conservative copies handed to the host to be ordered again. */
    public long resends() {
        return resends;
    }

    /** Tagged entries whose tag differed from this replica's routing (the routing was used). */
    public long mistagged() {
        return mistagged;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("executed per worker [");
        for (int i = 0; i < executed.length; i++) b.append(i == 0 ? "" : ", ").append(executed(i));
        return b.append("], synchronous ").append(synchronous).append(", checked ").append(checked).append(", failed ").append(failed)
                .append(String.format(" (%.2f%%)", 100 * failRate())).append(", resends ").append(resends).toString();
    }
}
