package io.tandem.sst;

import io.tandem.engine.NodeId;
import io.tandem.engine.Region;
import java.lang.foreign.MemorySegment;
import java.util.Collection;

/**
 * Where an {@link Sst}'s rows live and how the own row reaches the peers: the engine's memory
 * {@link Region} (one copy per member, one-sided pushes), or {@link LocalRows} for a group inside
 * one process (tests).
 */
public interface SstRows {
    /** This member's own row: written only by its owner. */
    MemorySegment own();

    /** Our copy of {@code member}'s row (the own row for this member). */
    MemorySegment row(NodeId member);

    /** Copies {@code own()[offset, offset+length)} into each target's copy of our row (no completion). */
    void push(int offset, int length, Collection<NodeId> targets);

    /** Like {@link #push}, with a completion per target (see {@link Region#pushWithCompletion}). */
    long pushWithCompletion(int offset, int length, Collection<NodeId> targets);

    /**
     * A number that changes (after the change) whenever {@link #row} may return another segment for
     * some member; negative if these rows do not say, and then a reader must not keep segments.
     */
    default long version() {
        return -1;
    }

    /**
     * A count that grows after any peer's row here changed (a push landed, or {@link #version}
     * changed); negative if these rows do not count, and then every poll must read them.
     */
    default long changes() {
        return -1;
    }

    /** The rows of a memory region registered through {@code EngineContext.regions()}. */
    static SstRows of(Region region) {
        return new SstRows() {
            @Override
            public MemorySegment own() {
                return region.local();
            }

            @Override
            public MemorySegment row(NodeId member) {
                return region.of(member);
            }

            @Override
            public long version() {
                return region.peersVersion();
            }

            @Override
            public long changes() {
                return region.changes();
            }

            @Override
            public void push(int offset, int length, Collection<NodeId> targets) {
                region.push(offset, length, targets);
            }

            @Override
            public long pushWithCompletion(int offset, int length, Collection<NodeId> targets) {
                return region.pushWithCompletion(offset, length, targets);
            }
        };
    }
}
