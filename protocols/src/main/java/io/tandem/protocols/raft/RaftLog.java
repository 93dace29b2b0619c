package io.tandem.protocols.raft;

import io.tandem.storage.DurableLog;
import io.tandem.storage.LogEntry;
import java.util.Map;
import java.util.TreeMap;

/**
 * Raft's view of the write-ahead log: the {@link DurableLog} suffix plus the base it continues from
 * (the index and term of the last entry a snapshot or compaction removed), the configuration
 * history (configuration entries are effective as soon as they are appended, so truncating one
 * reverts to the previous configuration), and the term bookkeeping of Raft §5.3: term lookups,
 * the up-to-date check of §5.4.1 and the conflict hints that let a leader skip a whole term per
 * round trip when backtracking.
 *
 * <p>Terms never decrease along a log, which makes the term searches binary searches.
 */
final class RaftLog {
    private final DurableLog log;
    private long baseIndex;
    private long baseTerm;
    /** Configuration in effect after each index: the base entry plus one per configuration entry in the log. */
    private final TreeMap<Long, Configuration> configurations = new TreeMap<>();

    RaftLog(DurableLog log, long baseIndex, long baseTerm, Configuration baseConfiguration) {
        this.log = log;
        this.baseIndex = baseIndex;
        this.baseTerm = baseTerm;
        configurations.put(baseIndex, baseConfiguration);
        for (long i = Math.max(log.firstIndex(), baseIndex + 1); i <= log.lastIndex(); i++) {
            byte[] payload = log.entry(i).payload();
            if (EntryPayload.isConfigChange(payload)) {
                configurations.put(i, ((EntryPayload.ConfigChange) EntryPayload.decode(payload)).configuration());
            }
        }
    }

    DurableLog durable() {
        return log;
    }

    long baseIndex() {
        return baseIndex;
    }

    long baseTerm() {
        return baseTerm;
    }

    /** The first index still held as an entry. */
    long firstIndex() {
        return Math.max(log.firstIndex(), baseIndex + 1);
    }

    long lastIndex() {
        return Math.max(log.lastIndex(), baseIndex);
    }

    long lastTerm() {
        return termAt(lastIndex());
    }

    /** The term of entry {@code index}; 0 for index 0; -1 if it is compacted away or beyond the end. */
    long termAt(long index) {
        if (index == baseIndex) return baseTerm;
        if (index == 0) return 0;
        if (index < firstIndex() || index > lastIndex()) return -1;
        return log.entry(index).term();
    }

    boolean has(long index) {
        return index >= firstIndex() && index <= lastIndex();
    }

    LogEntry entry(long index) {
        if (!has(index)) throw new IndexOutOfBoundsException("entry " + index + " is not in [" + firstIndex() + ", " + lastIndex() + "]");
        return log.entry(index);
    }

    /**
     * The payload bytes of the entries the durable log holds in memory, including any below the base
     * that a restart brought back (space is reclaimed in whole segments). A scan: for status and
     * tests, not the hot path.
     */
    long retainedBytes() {
        long bytes = 0;
        for (long i = log.firstIndex(); i <= log.lastIndex(); i++) bytes += log.entry(i).payload().length;
        return bytes;
    }

    /** How many entries the durable log holds in memory. */
    long retainedEntries() {
        return Math.max(0, log.lastIndex() - log.firstIndex() + 1);
    }

    /** Raft §5.4.1: a candidate's log is at least as up-to-date as ours. */
    boolean isUpToDate(long candidateLastIndex, long candidateLastTerm) {
        long myTerm = lastTerm();
        return candidateLastTerm > myTerm || (candidateLastTerm == myTerm && candidateLastIndex >= lastIndex());
    }

    void append(LogEntry entry) {
        if (entry.index() != lastIndex() + 1) throw new IllegalArgumentException("append at " + entry.index() + " but the log ends at " + lastIndex());
        log.append(entry);
        if (EntryPayload.isConfigChange(entry.payload())) {
            configurations.put(entry.index(), ((EntryPayload.ConfigChange) EntryPayload.decode(entry.payload())).configuration());
        }
    }

    /** Removes a conflicting suffix from {@code fromIndex} on (Raft §5.3); configuration entries in it stop counting. */
    void truncateSuffix(long fromIndex) {
        if (fromIndex <= baseIndex) throw new IllegalArgumentException("cannot truncate at " + fromIndex + ": entries up to " + baseIndex + " are in a snapshot");
        log.truncateSuffix(fromIndex);
        configurations.tailMap(fromIndex, true).clear();
    }

    /** Drops entries up to {@code upToIndex}, which a snapshot covers; its configuration becomes the base. */
    void compactPrefix(long upToIndex) {
        if (upToIndex <= baseIndex) return;
        if (upToIndex > lastIndex()) throw new IllegalArgumentException("cannot compact to " + upToIndex + " beyond the last entry " + lastIndex());
        long term = termAt(upToIndex);
        Configuration config = configurationAt(upToIndex);
        log.compactPrefix(upToIndex);
        baseIndex = upToIndex;
        baseTerm = term;
        configurations.headMap(upToIndex, true).clear();
        configurations.put(upToIndex, config);
    }

    /**
     * Continues after an installed snapshot (Raft §7): if our log holds the snapshot's last entry with
     * the same term, the entries after it are kept; otherwise the whole log is discarded.
     */
    void installSnapshot(long lastIncludedIndex, long lastIncludedTerm, Configuration config) {
        installSnapshot(lastIncludedIndex, lastIncludedTerm, config, termAt(lastIncludedIndex) == lastIncludedTerm);
    }

    /**
     * As {@link #installSnapshot(long, long, Configuration)}, with the caller's verdict on whether our
     * entry at the snapshot's index is the snapshot's last entry ({@code continuesLog}); only then can
     * the entries after it be ours to keep.
     */
    void installSnapshot(long lastIncludedIndex, long lastIncludedTerm, Configuration config, boolean continuesLog) {
        if (continuesLog && lastIncludedIndex <= lastIndex() && lastIncludedIndex >= firstIndex()) {
            log.compactPrefix(lastIncludedIndex);
            configurations.headMap(lastIncludedIndex, true).clear();
        } else {
            log.resetAfter(lastIncludedIndex);
            configurations.clear();
        }
        baseIndex = lastIncludedIndex;
        baseTerm = lastIncludedTerm;
        configurations.put(lastIncludedIndex, config);
    }

    /** The configuration in effect: the latest one appended. */
    Configuration configuration() {
        return configurations.lastEntry().getValue();
    }

    /** Index of the entry that set the current configuration (the base index if none in the log). */
    long configurationIndex() {
        return configurations.lastKey();
    }

    /** The configuration in effect after entry {@code index} (index must not be below the base). */
    Configuration configurationAt(long index) {
        Map.Entry<Long, Configuration> e = configurations.floorEntry(index);
        if (e == null) throw new IllegalArgumentException("configuration at " + index + " is below the base " + baseIndex);
        return e.getValue();
    }

    /** Last index whose term is {@code term}, or -1 if the log has no entry of that term. */
    long lastIndexOfTerm(long term) {
        long lo = firstIndex(), hi = lastIndex(), found = -1;
        if (baseTerm == term) found = baseIndex;
        while (lo <= hi) { // last index with termAt <= term
            long mid = (lo + hi) >>> 1;
            long t = log.entry(mid).term();
            if (t <= term) {
                if (t == term) found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** First index in [firstIndex, upTo] whose term is {@code term}; {@code upTo} itself must have that term. */
    long firstIndexOfTerm(long term, long upTo) {
        long lo = firstIndex(), hi = upTo, found = upTo;
        while (lo <= hi) {
            long mid = (lo + hi) >>> 1;
            if (log.entry(mid).term() >= term) {
                found = mid;
                hi = mid - 1;
            } else {
                lo = mid + 1;
            }
        }
        return found;
    }

    /**
     * Where a follower whose entry at {@code prevIndex} does not match should be probed next, from the
     * follower's rejection hints (Raft §5.3, "the follower can include the term of the conflicting entry
     * and the first index it stores for that term"). Computed on the leader; the result is in
     * {@code (matchIndex, prevIndex]}.
     */
    long nextIndexAfterConflict(long prevIndex, long conflictTerm, long conflictIndex, long matchIndex) {
        long next;
        if (conflictTerm <= 0) {
            next = conflictIndex; // the follower's log is shorter: continue right after its end
        } else {
            long last = lastIndexOfTerm(conflictTerm);
            next = last >= 0 ? last + 1 : conflictIndex; // skip the follower's whole conflicting term if we lack it
        }
        return Math.max(matchIndex + 1, Math.min(next, prevIndex));
    }

    @Override
    public String toString() {
        return "log[base=" + baseIndex + "@" + baseTerm + " last=" + lastIndex() + "@" + lastTerm() + " config=" + configuration() + "]";
    }
}
