package io.tandem.sim.cost;

import java.util.List;

/**
 * Mode S of opt-psmr.md §8.2: the parallel executors of {@code io.tandem.execution.ParallelExecutor}
 * replayed in virtual time, so that their throughput can be modelled beyond the cores of this machine.
 * The input is the executor's log as it ran for real (every entry's destination workers, whether it
 * was checked, whether its check failed) and calibrated per-command costs; the output is the time the
 * log takes to drain with one virtual clock per worker and one for the log's reader:
 *
 * <ul>
 *   <li>the <b>reader</b> (the executor's driver: decoding the tag and routing every entry, a
 *       sequential stage of Option A) makes entry {@code i} available at
 *       {@code R_i = R_{i-1} + route};</li>
 *   <li>an entry for <b>one worker</b> (parallel mode) advances that worker's clock from
 *       {@code max(T_w, R_i)} by its check (if checked) and, unless the check failed, its execution;</li>
 *   <li>an entry for <b>m &gt; 1 workers</b> (synchronous mode) starts when the last of them reaches it
 *       and the reader has it: every destination's clock becomes
 *       {@code max(T_j, R_i) + barrier·(m−1) + exec} (opt-psmr.md §8.2 step 3: fan-in and fan-out linear
 *       in the participants); workers not addressed are not held.</li>
 * </ul>
 *
 * Entries are processed in log order, which is exact: a worker's clock depends only on its own
 * stream and the synchronous entries it takes part in, and both are in log order. Not modelled: the
 * cost of skipping entries addressed to others (each worker scans the whole log), cache effects of
 * more threads, and cores: a worker is assumed to have a core of its own (the model's purpose is the
 * machine this one is not).
 */
public final class PsmrModel {
    private PsmrModel() {}

    /**
     * One log entry as it ran: its destination workers (bitmask), its check's cost (0 if not checked),
     * its execution's cost, and whether the check failed (then it is not executed: its conservative copy
     * is a later entry of its own).
     */
    public record Entry(long dest, long checkNanos, long execNanos, boolean failed) {
        public Entry {
            if (dest == 0) throw new IllegalArgumentException("an entry goes to at least one worker");
            if (checkNanos < 0 || execNanos < 0) throw new IllegalArgumentException("negative cost");
            if (failed && Long.bitCount(dest) != 1) throw new IllegalArgumentException("only a single-worker (optimistic) entry can fail its check");
        }
    }

    /**
     * The drained log: {@code nanos} of virtual time from the first entry to the last worker's end,
     * {@code executed} entries run (failed attempts excluded), {@code synchronous} entries run in lock-step,
     * and the busiest worker's busy time (its executions and checks).
     */
    public record Result(long nanos, long executed, long synchronous, long maxWorkerBusyNanos) {
        /** Commands per second for {@code commands} commands (a re-sent copy counts with its command). */
        public double throughput(long commands) {
            return nanos == 0 ? Double.POSITIVE_INFINITY : commands * 1e9 / nanos;
        }
    }

    /**
     * Replays {@code log} with {@code threads} workers.
     *
     * @param routeNanos   the reader's cost per entry (decode and route)
     * @param barrierNanos the cost of one participant beyond the executor in a synchronous entry (c_b(2))
     */
    public static Result replay(int threads, long routeNanos, long barrierNanos, List<Entry> log) {
        if (threads < 1 || threads > 64) throw new IllegalArgumentException("threads must be in [1, 64]");
        if (routeNanos < 0 || barrierNanos < 0) throw new IllegalArgumentException("negative cost");
        long all = threads == 64 ? -1L : (1L << threads) - 1;
        long[] clock = new long[threads];
        long[] busy = new long[threads];
        long reader = 0;
        long executed = 0;
        long synchronous = 0;
        for (Entry e : log) {
            if ((e.dest() & ~all) != 0) throw new IllegalArgumentException("entry for worker beyond " + threads + ": " + Long.toBinaryString(e.dest()));
            reader += routeNanos;
            int m = Long.bitCount(e.dest());
            if (m == 1) {
                int w = Long.numberOfTrailingZeros(e.dest());
                long work = e.checkNanos() + (e.failed() ? 0 : e.execNanos());
                clock[w] = Math.max(clock[w], reader) + work;
                busy[w] += work;
                if (!e.failed()) executed++;
                continue;
            }
            long start = reader;
            for (long d = e.dest(); d != 0; d &= d - 1) start = Math.max(start, clock[Long.numberOfTrailingZeros(d)]);
            long end = start + barrierNanos * (m - 1) + e.checkNanos() + e.execNanos();
            for (long d = e.dest(); d != 0; d &= d - 1) clock[Long.numberOfTrailingZeros(d)] = end;
            busy[Long.numberOfTrailingZeros(e.dest())] += e.execNanos();
            executed++;
            synchronous++;
        }
        long makespan = reader;
        long maxBusy = 0;
        for (int w = 0; w < threads; w++) {
            makespan = Math.max(makespan, clock[w]);
            maxBusy = Math.max(maxBusy, busy[w]);
        }
        return new Result(makespan, executed, synchronous, maxBusy);
    }

    /** Sequential SMR: one thread, no routing, no checks, no barriers: the sum of the executions. */
    public static Result sequential(List<Long> execNanos) {
        long t = 0;
        for (long c : execNanos) {
            if (c < 0) throw new IllegalArgumentException("negative cost");
            t += c;
        }
        return new Result(t, execNanos.size(), 0, t);
    }
}
