package io.tandem.runtime;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A lower bound of the deadlines of the requests {@link PendingRequests} holds, so that its expiry returns at once
 * while nothing can be due (issue 22, vsync26: the loop's expiry scan of the 1024 slots and the overflow map every 5 ms
 * was 4.8 % of the samples of the multicast benchmark at 1 KiB, where more requests are in flight than slots and the
 * overflow map is never empty; in steady state a request lives micro- to milliseconds, and the scan found nothing).
 *
 * <p>The rule: at every moment the bound is at most the deadline of every request that is filed. Admission files the
 * request first and then lowers the bound to its deadline if it is lower (with a fixed timeout, deadlines only grow,
 * so this is one volatile read, no write); only the one thread that expires (the node's loop) raises it, by a scan:
 * {@link #startScan} sets it far ahead, the scan reads every filed request, and {@link #endScan} lowers it to the
 * smallest deadline the scan left in place. Why no request is missed: operations on the bound are totally ordered.
 * An admission whose read of the bound comes after {@code startScan} finds either a value at most its deadline (and
 * only lowerings follow until the next scan) or lowers it itself; one whose read comes before {@code startScan} filed
 * its request before that, so the scan reads it and counts its deadline. Removals never break the rule (a lower bound
 * of a set is one of any subset); a stale bound only makes the next scan come sooner.
 *
 * <p>Times are {@link System#nanoTime}-style values, compared by difference (wrap-safe) as the table compares
 * deadlines; "far ahead" is {@link #HORIZON} after the scan's time, longer than any request timeout.
 */
class DeadlineBound {
    /** How far ahead of a scan the bound goes when the scan left nothing filed: about 73 years. */
    static final long HORIZON = 1L << 61;

    private final AtomicLong bound = new AtomicLong();
    /** Whether a scan has set the bound yet (expiry thread only): until then every expiry scans. */
    private boolean known;

    /** Called after a request with this deadline is filed (any thread). */
    void lower(long deadline) {
        lowerTo(deadline);
    }

    private void lowerTo(long deadline) {
        long b = bound.get();
        while (deadline - b < 0 && !bound.compareAndSet(b, deadline)) b = bound.get();
    }

    /** Whether nothing filed can be due at {@code now} (expiry thread only). */
    boolean nothingDue(long now) {
        return known && now - bound.get() < 0;
    }

    /** Before a scan at {@code now} reads the table (expiry thread only). */
    void startScan(long now) {
        bound.set(now + HORIZON);
    }

    /** After the scan: {@code smallestLeft} is the smallest deadline it left filed ({@code now + HORIZON} if none). */
    void endScan(long smallestLeft) {
        lowerTo(smallestLeft);
        known = true;
    }
}
