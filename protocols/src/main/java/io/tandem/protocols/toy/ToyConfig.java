package io.tandem.protocols.toy;

/**
 * Configuration of the toy primary-backup engine, with validated defaults.
 *
 * @param heartbeatNanos      how often the primary sends appends (resending what is unacknowledged)
 * @param viewTimeoutNanos    a backup that hears nothing from its primary for a random time in
 *                            [viewTimeout, 2 * viewTimeout) starts a view change; a primary that heard
 *                            from no majority within one viewTimeout steps down
 * @param maxEntriesPerAppend bound on the entries one append carries
 */
public record ToyConfig(long heartbeatNanos, long viewTimeoutNanos, int maxEntriesPerAppend) {
    public static final ToyConfig DEFAULT = new ToyConfig(20_000_000L, 150_000_000L, 64);

    public ToyConfig {
        if (heartbeatNanos <= 0) throw new IllegalArgumentException("heartbeatNanos must be > 0");
        if (viewTimeoutNanos <= heartbeatNanos) throw new IllegalArgumentException("viewTimeoutNanos must exceed heartbeatNanos");
        if (maxEntriesPerAppend < 1) throw new IllegalArgumentException("maxEntriesPerAppend must be >= 1");
    }
}
