package io.tandem.engine;

/**
 * How a read is served (DESIGN §4; the naming follows MicroRaft's QueryPolicy and Ratis).
 */
public sealed interface ReadPolicy {
    /** Linearizable: confirmed with a quorum (ReadIndex or the protocol's equivalent), no log append. */
    record Linearizable() implements ReadPolicy {}

    /** Served by the leader while its lease holds; linearizable if clock drift stays within the configured bound. */
    record Lease() implements ReadPolicy {}

    /** Served by any member once it has applied at least {@code minIndex}; may be stale. */
    record Stale(long minIndex) implements ReadPolicy {
        public Stale {
            if (minIndex < 0) throw new IllegalArgumentException("minIndex must be >= 0, was " + minIndex);
        }
    }

    ReadPolicy LINEARIZABLE = new Linearizable();
    ReadPolicy LEASE = new Lease();

    static ReadPolicy stale(long minIndex) {
        return new Stale(minIndex);
    }
}
