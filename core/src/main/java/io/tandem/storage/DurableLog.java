package io.tandem.storage;

/**
 * The engine's view of its write-ahead log (DESIGN §6). Never blocks: appends, truncations and
 * compactions are queued to the disk stage in call order, and durability is reported later by
 * {@link StorageEvent.LogSynced}. The retained suffix of the log is readable from memory at once,
 * including entries not yet durable, so engines never wait on the disk to read.
 *
 * <p>Indexes: {@code firstIndex()} is the first retained entry; {@code lastIndex()} the last
 * appended one; an empty log has {@code firstIndex() == lastIndex() + 1}. After a restart,
 * {@code firstIndex()} may be lower than the last compaction point (space is reclaimed in whole
 * segments), never higher.
 *
 * <p>Once storage has failed ({@link StorageEvent.StorageFailed}), the methods that change the
 * log throw {@link StorageFailedException}: nothing more can become durable.
 */
public interface DurableLog {
    long firstIndex();

    long lastIndex();

    /**
     * The highest index known to be on stable storage (0 if none), exact at the moment of the call:
     * never above {@link #lastIndex()}, and lowered at once by {@link #truncateSuffix} and
     * {@link #resetAfter} (to {@code fromIndex - 1}, {@code lastIncludedIndex}) until the disk has
     * applied them. After {@code resetAfter(i)} it reaches {@code i} when the reset is durable.
     */
    long durableIndex();

    /** The entry at {@code index}; throws {@link IndexOutOfBoundsException} outside [firstIndex, lastIndex]. */
    LogEntry entry(long index);

    /** Appends {@code entry}, whose index must be {@code lastIndex() + 1}. */
    void append(LogEntry entry);

    /** Removes every entry with index {@code >= fromIndex} (a conflicting suffix). */
    void truncateSuffix(long fromIndex);

    /** Drops entries with index {@code <= upToIndex}, which a snapshot now covers. */
    void compactPrefix(long upToIndex);

    /**
     * Discards the whole log and continues after {@code lastIncludedIndex}, the last index of a
     * snapshot installed from a peer; the next append has index {@code lastIncludedIndex + 1}.
     */
    void resetAfter(long lastIncludedIndex);
}
