package io.tandem.sim;

/**
 * Implemented by engines that account for what they hold in memory for replication, by their own bookkeeping
 * (not the JVM's): the performance simulator samples the leader's over its measured window, so that "the leader's
 * memory stays flat under a slow follower" (DepFast, issue 18) is a number, not an assumption. Reads only; meant to be
 * called a few times per second of a run, not per event.
 */
public interface MemoryAccounting {
    /**
     * What the engine holds now.
     *
     * @param logEntries       log entries retained in memory
     * @param logBytes         their payload bytes
     * @param inflightMessages messages sent to peers and not yet acknowledged, over all peers
     * @param inflightBytes    the entry bytes those messages carry (a subset of the log's, held until acknowledged)
     */
    record Held(long logEntries, long logBytes, long inflightMessages, long inflightBytes) {
        public static final Held NONE = new Held(0, 0, 0, 0);

        /** The larger of each part of this and {@code other}. */
        public Held max(Held other) {
            return new Held(Math.max(logEntries, other.logEntries), Math.max(logBytes, other.logBytes),
                    Math.max(inflightMessages, other.inflightMessages), Math.max(inflightBytes, other.inflightBytes));
        }
    }

    Held heldForReplication();
}
