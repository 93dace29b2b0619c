package io.tandem.protocols.unreplicated;

/**
 * Configuration of the unreplicated engine, with validated defaults.
 *
 * @param snapshotThreshold take a snapshot of the state machine after this many entries were applied since the
 *                          last one, then drop the log up to it (as Raft does by default), so a long benchmark run
 *                          keeps a bounded log in memory
 * @param ackBeforeDurable  THE DELIBERATE BUG of a test-only twin: commit (execute and acknowledge) a write as soon
 *                          as it is appended, before the log reports it durable; a crash then loses acknowledged
 *                          writes, which the simulator must catch. Never registered in {@code Protocols}.
 */
public record UnreplicatedConfig(long snapshotThreshold, boolean ackBeforeDurable) {
    /** Snapshots every 10,000 applied entries, the same as {@code RaftConfig.DEFAULTS}. */
    public static final UnreplicatedConfig DEFAULTS = new UnreplicatedConfig(10_000, false);

    public UnreplicatedConfig {
        if (snapshotThreshold < 1) throw new IllegalArgumentException("snapshotThreshold must be >= 1, was " + snapshotThreshold);
    }

    public UnreplicatedConfig withSnapshotThreshold(long entries) {
        return new UnreplicatedConfig(entries, ackBeforeDurable);
    }

    UnreplicatedConfig ackingBeforeDurable() {
        return new UnreplicatedConfig(snapshotThreshold, true);
    }
}
