package io.tandem.execution;

import io.tandem.statemachine.StateMachine;

/**
 * A state machine that declares its conflict relation, so that the parallel executors (P-SMR and
 * optimistic P-SMR, opt-psmr.md §2-§3) can run it on several worker threads. Any service can
 * implement it; the KV service's B+-tree is one.
 *
 * <p>The executor has {@code threads} workers, worker {@code i} subscribed to group {@code g_i};
 * "all groups" is every bit set. A command's destinations are a bitmask of workers.
 *
 * <ul>
 *   <li>{@link #route}: C-G. The <b>conservative</b> set (CC-G) must share a worker with every
 *       command the command may conflict with, statically or through the state (splits of a tree);
 *       the <b>optimistic</b> set (OC-G) only with the commands it conflicts with statically (same
 *       key). OC-G must be a non-empty subset of CC-G. Both are pure functions of the command bytes,
 *       identical on every replica and every client (same thread count, same partitioning).</li>
 *   <li>{@link #safe}: the safety check for a command delivered optimistically to one worker. It may
 *       read only state that this worker alone changes in parallel mode, or that has not changed since
 *       the last {@link #quiesced()} (opt-psmr.md §3.2, I3): then every replica reaches the same verdict.</li>
 *   <li>{@link #applyConcurrent} runs a command while other workers may run commands independent of
 *       it; {@link #apply} (inherited) runs one while every worker is paused at the same point.</li>
 * </ul>
 */
public interface ParallelStateMachine extends StateMachine {
    /** Most workers an executor supports: destinations are bits of a {@code long}. */
    int MAX_THREADS = 64;

    /**
     * Where a command goes for {@code threads} workers.
     *
     * @param optimistic   OC-G: static conflicts only (opt-P-SMR's first attempt)
     * @param conservative CC-G: every possible conflict (P-SMR; opt-P-SMR's resend)
     */
    record Route(long optimistic, long conservative) {
        public Route {
            if (optimistic == 0) throw new IllegalArgumentException("a command must go to at least one worker");
            if ((optimistic & ~conservative) != 0) {
                throw new IllegalArgumentException("the optimistic destinations " + Long.toBinaryString(optimistic)
                        + " must be a subset of the conservative ones " + Long.toBinaryString(conservative));
            }
        }

        /** The same set both ways: the command can never fail a check, so it is never checked (pitfall 8). */
        public boolean certain() {
            return optimistic == conservative;
        }

        public static Route only(int worker) {
            long bit = 1L << worker;
            return new Route(bit, bit);
        }

        public static Route everywhere(int threads, int home) {
            return new Route(1L << home, all(threads));
        }
    }

    /** Every worker of {@code threads}. */
    static long all(int threads) {
        return threads == 64 ? -1L : (1L << threads) - 1;
    }

    Route route(byte[] command, int threads);

    /**
     * The safety check of an optimistically delivered command on {@code worker} (parallel mode):
     * true if it cannot interfere with what other workers run concurrently. Must not change state.
     */
    boolean safe(byte[] command, int worker, int threads);

    /**
     * Applies a command while workers outside its destinations may run other commands (parallel
     * mode, or synchronous mode on a subset of workers). The conflict relation guarantees they touch
     * nothing this command touches.
     */
    byte[] applyConcurrent(int worker, long index, byte[] command);

    /**
     * Every worker is paused at the same point of its stream (before a command to all workers, and
     * at the end of a batch before reads and snapshots): a consistent cut. A state machine with
     * per-segment working state publishes it here. Called on the thread that then runs the next step.
     */
    default void quiesced() {}

    /**
     * A parallel executor with {@code threads} workers is about to run this machine. A machine whose
     * check depends on more than its content (a tree's shape) must from now on keep that in its
     * snapshots, so that a restored replica gives the same verdicts as one that never restarted.
     */
    default void runsInParallel(int threads) {}
}
