package io.tandem.storage.stable;

import io.tandem.storage.LogEntry;
import java.util.function.Consumer;

/**
 * The blocking write-ahead log driven by a node's disk thread ({@link io.tandem.storage.NodeStorage});
 * engines never see it, they use the non-blocking {@link io.tandem.storage.DurableLog}. Not
 * thread-safe: one thread owns it.
 *
 * <p>Durability contract, shared by the file and the in-memory implementation:
 * <ul>
 *   <li>{@link #append} is not durable until {@link #sync()} returns; one {@code sync} makes every
 *       earlier append durable with a single flush (group commit).</li>
 *   <li>{@link #truncateSuffix}, {@link #compactPrefix} and {@link #resetAfter} first make every
 *       earlier append durable, then are durable themselves when they return.</li>
 *   <li>So a crash leaves the log as it was after some prefix of the calls, never less than the
 *       last {@code sync} or structural call that returned: synced entries are never lost, an
 *       unsynced tail may be lost in part or whole. Entries below a compaction point may
 *       reappear after a crash ({@link #firstIndex()} may be lower than the last compaction).</li>
 *   <li>After any {@link io.tandem.storage.StorageException} the log is failed: every later call
 *       that writes throws {@link io.tandem.storage.StorageFailedException} (no retries, since the
 *       on-disk state after a failed write or fsync is unknown). Reopening recovers.</li>
 * </ul>
 * An empty log has {@code firstIndex() == lastIndex() + 1}.
 */
public interface StableLog extends AutoCloseable {
    /** Largest payload accepted by {@link #append}: log entries are commands, not bulk data. */
    int MAX_PAYLOAD_BYTES = 1 << 28;

    long firstIndex();

    long lastIndex();

    /** The highest index that is durable (with {@code NO_FSYNC}: handed to the operating system). */
    long syncedIndex();

    /** Reads entry {@code index} (verifying its checksum); {@link IndexOutOfBoundsException} outside the retained range. */
    LogEntry entry(long index);

    /** Reads every retained entry from {@code fromIndex} to {@link #lastIndex()} in order. */
    void forEach(long fromIndex, Consumer<LogEntry> action);

    /** Appends {@code entry}, whose index must be {@code lastIndex() + 1}; durable after the next {@link #sync()}. */
    void append(LogEntry entry);

    /** Makes every append so far durable with one flush and returns {@link #syncedIndex()}. */
    long sync();

    /**
     * Prepares room for the next appends while nothing waits on this log (the disk thread calls it after a round's
     * completions are posted). Changes no entry and no durable index; a no-op unless the implementation gains from it
     * (the file log with fsync keeps zeros ahead of its data, so a sync need not change the file's size). Throws like a
     * write only if the log can no longer be trusted; a lack of room is not a failure here (the appends report it).
     */
    default void prepareAhead() { }

    /** Removes entries with index {@code >= fromIndex} (no-op beyond {@link #lastIndex()}); {@code fromIndex >= firstIndex()}. */
    void truncateSuffix(long fromIndex);

    /** Drops entries with index {@code <= upToIndex} ({@code upToIndex <= lastIndex()}), reclaiming space where it can. */
    void compactPrefix(long upToIndex);

    /** Discards the whole log; it continues empty, with the next append at {@code lastIncludedIndex + 1}. */
    void resetAfter(long lastIncludedIndex);

    /** Releases files; does not sync (call {@link #sync()} first to keep unsynced appends). */
    @Override
    void close();
}
