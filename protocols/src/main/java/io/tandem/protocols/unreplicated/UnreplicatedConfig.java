package io.tandem.protocols.unreplicated;

/**
 * Configuration of the unreplicated engine, with validated defaults.
 *
 * @param snapshotThreshold take a snapshot of the state machine after this many entries were applied since the
 *                          last one, then drop the log up to it (as Raft does by default), so a long benchmark run
 *                          keeps a bounded log in memory
 */
public record UnreplicatedConfig(long snapshotThreshold) {
    /** Snapshots every 10,000 applied entries, the same as {@code RaftConfig.DEFAULTS}. */
    public static final UnreplicatedConfig DEFAULTS = new UnreplicatedConfig(10_000);

    public UnreplicatedConfig {
        if (snapshotThreshold < 1) throw new IllegalArgumentException("snapshotThreshold must be >= 1, was " + snapshotThreshold);
    }

    public UnreplicatedConfig withSnapshotThreshold(long entries) {
        return new UnreplicatedConfig(entries);
    }
}
