package io.tandem.runtime;

import java.util.function.LongSupplier;

/**
 * When the loop wakes the execution thread for work it queued (loop thread only; raft27). Two kinds of work may be
 * queued quietly, without a wake-up, because nobody waits for it right now; each must still run within its delay:
 * <ul>
 *   <li>session lookups (issue 25, {@code LOOKUP_WAKE_NANOS}): nearly every one finds nothing, and the entries that
 *       answer it wake execution anyway within a round trip;</li>
 *   <li>committed entries on a node where nobody waits for their results (raft27, {@link RuntimeConfig#quietApply}):
 *       no request is pending here and the engine asked for no result. A Raft follower in a benchmark is such a
 *       node: every client waits at the leader, and the follower's execution thread, woken once per AppendEntries,
 *       was two (one per follower) of the ~13 thread wake-ups per round of 64 puts on a 2-core machine (raft27's
 *       profiles), each taking a core when the loops and I/O threads on the commit path need it. Every
 *       {@link #QUIET_HAND_OFFS}th hand-off in a row wakes it anyway, and the quiet delay bounds the wait when the
 *       entries stop coming.</li>
 * </ul>
 * Anything else (a task handed over with {@code submit}, entries while someone waits) wakes execution at once, and
 * with it everything queued quietly before (the thread drains its whole queue in order).
 *
 * <p>Why it is safe: only when execution runs changes, never what or in which order (the queue is FIFO), and durability
 * and acknowledgements never wait for execution. Whoever waits for a result is a pending request of this node or an
 * engine's {@code deliverReportingResult}, and entries delivered while either exists wake execution at once; a request
 * admitted after entries were queued quietly waits for its own entry, which comes later and wakes execution, which
 * runs the quiet ones first. What remains delayed (by at most the delay) is progress nobody here waits for: a status's
 * applied index, the engine's {@code onApplied} (snapshots, log trimming).
 */
class ExecutionWake {
    /**
     * Every this many hand-offs of entries in a row wakes execution even when nobody waits: under steady load a
     * follower's execution wakes once per this many AppendEntries, with no extra wake-up of the loop (a deadline alone
     * would cut the loop's park short at every expiry: one loop wake-up more for the few execution wake-ups fewer).
     */
    static final int QUIET_HAND_OFFS = 4;

    private final long quietApplyNanos;
    private final LongSupplier clock;
    /** When work queued quietly must be woken for, or 0 when none is queued (0 itself is never a deadline). */
    private long due;
    /** Hand-offs of entries queued quietly since execution was last woken. */
    private int quietHandOffs;

    /** {@code quietApplyNanos} 0: entries always wake execution (the default); {@code clock}: {@link System#nanoTime}. */
    ExecutionWake(long quietApplyNanos, LongSupplier clock) {
        if (quietApplyNanos < 0) throw new IllegalArgumentException("quietApplyNanos must be >= 0, was " + quietApplyNanos);
        this.quietApplyNanos = quietApplyNanos;
        this.clock = clock;
    }

    /**
     * Entries are handed over: whether they must wake execution now ({@code someoneWaits}: a request is pending here,
     * or the engine asked for a result; quiet application is off; or this is the {@link #QUIET_HAND_OFFS}th hand-off
     * in a row). Otherwise they are queued quietly, due within the quiet delay. The clock is read only in the quiet case.
     */
    boolean entriesWakeNow(boolean someoneWaits) {
        if (quietApplyNanos == 0 || someoneWaits || quietHandOffs + 1 >= QUIET_HAND_OFFS) return true;
        quietHandOffs++;
        queuedQuietly(quietApplyNanos);
        return false;
    }

    /** Work was queued quietly that must run within {@code withinNanos}: the earliest such deadline is kept. */
    void queuedQuietly(long withinNanos) {
        long d = clock.getAsLong() + withinNanos;
        if (d == 0) d = 1;
        if (due == 0 || d - due < 0) due = d;
    }

    /** Execution was woken (for any reason): it drains everything queued before. */
    void woken() {
        due = 0;
        quietHandOffs = 0;
    }

    /** Whether quietly queued work waits for a wake-up at all (no clock read). */
    boolean waiting() {
        return due != 0;
    }

    /** Whether quietly queued work is due at {@code now}; if so the caller wakes execution and calls {@link #woken}. */
    boolean dueAt(long now) {
        return due != 0 && now - due >= 0;
    }

    /** A park of up to {@code wait} ns from {@code now}, shortened so that quietly queued work is woken in time (at least 1). */
    long parkNanos(long wait, long now) {
        return due == 0 ? wait : Math.max(1, Math.min(wait, due - now));
    }
}
