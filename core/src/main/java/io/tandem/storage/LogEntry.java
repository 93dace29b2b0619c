package io.tandem.storage;

import java.util.Objects;

/**
 * One record of the write-ahead log. The payload is the engine's own encoding of the entry; the
 * log only frames, checksums and stores it.
 *
 * @param index position in the log, starting at 1
 * @param term  the term (Raft) or ballot (Paxos) under which the entry was written
 */
public record LogEntry(long index, long term, byte[] payload) {
    public LogEntry {
        if (index < 1) throw new IllegalArgumentException("log index starts at 1, was " + index);
        if (term < 0) throw new IllegalArgumentException("term must be >= 0, was " + term);
        Objects.requireNonNull(payload, "payload");
    }
}
