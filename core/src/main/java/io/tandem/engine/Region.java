package io.tandem.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Collection;

/**
 * One registered memory region (DESIGN §5, derecho.md §2): every member holds its own copy (its
 * row) and a copy of every other member's. This node writes only {@link #local()} and then pushes
 * byte ranges of it into chosen members' copies of it, as one-sided writes: nothing runs on the
 * target to receive them, they are simply there the next time the target reads memory.
 *
 * <p>The guarantees every transport gives (derecho.md §2.5): pushes of one writer land at a target
 * in the order they were made (R2); an aligned 8-byte word is never observed half-written (R3); the
 * bytes <em>inside</em> one push may land in any order (R4), so publish a multi-word item with a
 * data push and then, in a second push, a counter that guards it (R5). A push to a member that is
 * unreachable, partitioned away or crashed does not land; nothing re-sends it (push the range again).
 *
 * <p>Offsets and lengths are multiples of 8. Read and write words with {@link #getLong}/{@link #setLong}
 * (acquire/release), or through the segments with aligned 8-byte VarHandle accesses.
 */
public interface Region {
    String name();

    int sizeBytes();

    /** This node's own copy: write here, then {@link #push}. */
    MemorySegment local();

    /**
     * Our copy of {@code member}'s region, where its pushes land ({@link #local()} for this node).
     * Read it only: the transport writes it from its own threads.
     */
    MemorySegment of(NodeId member);

    /**
     * Writes {@code local()[offset, offset+length)} into each of {@code targets}' copy of this
     * region. Never blocks; no completion is reported (the common case: derecho.md §2.4). Targets
     * that are not members (or are this node) are skipped.
     */
    void push(int offset, int length, Collection<NodeId> targets);

    /**
     * Like {@link #push}, and reports one {@link PushCompletion} per target with the returned id
     * once the target applied it (or is known not to have): a fence for everything pushed before.
     */
    long pushWithCompletion(int offset, int length, Collection<NodeId> targets);

    /**
     * A number that changes (after the change is made) whenever {@link #of} may start returning
     * another segment for some member (the transport added or removed a peer); negative if this
     * region does not say, and then callers must not keep segments from {@link #of}.
     */
    default long peersVersion() {
        return -1;
    }

    /**
     * A count that grows after every push of a peer lands in our copy of this region (the bytes are
     * in memory before the count moves; a count of several regions together is allowed) and whenever
     * {@link #peersVersion} changes; negative if this region does not count. A poller that finds the
     * count where it was before its last read of the peers' copies knows they hold nothing new.
     */
    default long changes() {
        return -1;
    }

    /** Reads the word at {@code offset} of {@code member}'s copy with acquire semantics. */
    default long getLong(NodeId member, int offset) {
        return (long) WORD.getAcquire(of(member), (long) offset);
    }

    /** Writes the word at {@code offset} of our own copy with release semantics (R7); push it afterwards. */
    default void setLong(int offset, long value) {
        WORD.setRelease(local(), (long) offset, value);
    }

    VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();
}
