package io.tandem.storage;

/**
 * When the loop stops running NO_FSYNC rounds itself after a slow one ({@link NodeStorage#endTurn()}), and for how
 * long. Loop only; package-private, and its settings mutable, for tests.
 *
 * <p>A round the loop ran that took longer than {@link #slowRoundNanos} (a write into the page cache normally takes
 * microseconds; a file system stalled on its journal or on writeback can take milliseconds) sends the loop's work to
 * the disk thread for a while, so a slow disk never holds the loop for long. The while starts at
 * {@link #firstNanos} and doubles with every further slow round the loop runs within {@link #maxNanos} of the end of
 * its previous back-off, up to {@link #maxNanos}.
 *
 * <p><b>Why it grows instead of being {@link #maxNanos} at once</b> (follow26): on a busy machine most slow rounds are
 * not the disk's. A loop preempted for a scheduler slice in the middle of a round of microseconds measures a round of
 * milliseconds, and a fixed 100 ms back-off then sent ~100 rounds through the disk thread for a one-off, each with two
 * more thread hand-offs (the disk thread's wake-up, and the loop's for the completion). A first back-off of a
 * millisecond covers a one-off. A disk that is really slow makes the loop's next round slow too, which doubles the
 * back-off, so a stalled disk holds the loop for at most log2(max / first) more rounds per episode (7 with the
 * defaults) than a fixed back-off did, and once the back-off reached its maximum, for one round per {@link #maxNanos}
 * as before. Only where rounds run changes, never what they do or in which order: the disk thread runs the same
 * rounds under the same lock, so durability and the order of completions are as before.
 */
class InlineBackoff {
    long slowRoundNanos = 500_000L;
    long firstNanos = 1_000_000L;
    long maxNanos = 100_000_000L;
    /** Until when (System.nanoTime) the loop hands its work to the disk thread; valid while {@link #backingOff} is set. */
    private long resumesAt;
    /** A back-off was started and not yet seen over by {@link #active}. */
    boolean backingOff;
    /** The back-off the next slow round gets if it comes soon after the last one ended. */
    private long next;
    /** When the last back-off ended (or ends); meaningful once {@link #slowRounds} > 0. */
    private long lastEnd;
    /** Slow rounds the loop ran, each of which started a back-off. */
    long slowRounds;

    /**
     * A round the loop ran from {@code start} to {@code end} (System.nanoTime): returns the back-off it starts, in
     * nanoseconds, or 0 if it was not slow.
     */
    long ran(long start, long end) {
        if (end - start <= slowRoundNanos) return 0;
        long backoff = slowRounds > 0 && start - lastEnd <= maxNanos ? next : Math.min(firstNanos, maxNanos);
        slowRounds++;
        resumesAt = end + backoff;
        lastEnd = resumesAt;
        backingOff = true;
        next = Math.min(maxNanos, Math.max(1, backoff) * 2);
        return backoff;
    }

    /** Whether the loop should hand its rounds to the disk thread at {@code now}. */
    boolean active(long now) {
        if (!backingOff) return false;
        if (now - resumesAt < 0) return true;
        backingOff = false;
        return false;
    }
}
