package io.tandem.transport;

import io.tandem.engine.NodeId;
import java.lang.foreign.MemorySegment;
import java.util.Collection;

/**
 * Memory regions with one-sided writes (DESIGN §5; derecho.md §2, §8). Every member registers a
 * region of the same name and size. A node writes its own region in place and then pushes byte
 * ranges of it to chosen peers; each receives them into its copy of that node's region, without a
 * handler on the peer's side. The contract every transport keeps (derecho.md §2.5, §8.4):
 * <ul>
 *   <li>pushes of one writer are applied at a target in push order (R2), and an aligned 8-byte word
 *       is never seen half-written (R3); bytes within one push may land in any order (R4);
 *   <li>a push to an unreachable, removed or crashed peer does not land, and nothing re-sends it;
 *   <li>{@link #pushWithCompletion} reports, per target, through
 *       {@link TransportListener#onPushCompleted}, that the target applied it and every earlier push
 *       to it, or that this is not known (the target is unreachable, or the connection broke);
 *   <li>a {@link #freeze frozen} peer's writes are no longer applied to our copies.
 * </ul>
 * RDMA does this with one-sided writes; TCP and the in-JVM transport emulate it by sending the
 * changed range as a frame.
 */
public interface MemoryRegions {
    /** Registers this node's region {@code name} of {@code sizeBytes} (a multiple of 8), zero-filled. */
    MemorySegment register(String name, int sizeBytes);

    /** This node's own region {@code name}: write here, then {@link #push}. */
    MemorySegment local(String name);

    /**
     * Our copy of {@code peer}'s region {@code name}, where the peer's pushes land. Read it with
     * aligned 8-byte (or smaller) accesses; a word is never observed half-written.
     */
    MemorySegment remote(NodeId peer, String name);

    /** Writes {@code local(name)[offset, offset+length)} into every peer's copy; see {@link #push(String, int, int, Collection)}. */
    void push(String name, int offset, int length);

    /**
     * Writes {@code local(name)[offset, offset+length)} into the copies of those of {@code targets}
     * that are peers. {@code offset} and {@code length} must be multiples of 8. Never blocks; an
     * unreachable peer misses the write and sees the range again on the next push that covers it.
     */
    void push(String name, int offset, int length, Collection<NodeId> targets);

    /**
     * Like {@link #push(String, int, int, Collection)}, and reports the outcome for each target
     * through {@link TransportListener#onPushCompleted} with the returned id (a target that is not a
     * peer is reported at once as not applied).
     */
    long pushWithCompletion(String name, int offset, int length, Collection<NodeId> targets);

    /** Stops applying {@code peer}'s writes to our copies of its regions (derecho.md §2.8). */
    void freeze(NodeId peer);

    boolean isFrozen(NodeId peer);

    /**
     * A number that changes (after the change is made) whenever {@link #remote} may start returning
     * another segment for some peer, i.e. a peer was added or removed; {@code -1} if this
     * implementation does not say, and then callers must not keep segments from {@link #remote}.
     * Lets a reader keep the segments it looked up (one map lookup by name and peer per SST read
     * otherwise) and look again only after a membership change.
     */
    default long peersVersion() {
        return -1;
    }

    /**
     * A count that grows after every write applied to any peer's copy of any region here (its bytes
     * are in memory before the count moves) and after every change of the peers; {@code -1} if this
     * implementation does not count. A poller that finds the count where it was when it last read
     * the copies knows that they hold nothing new, and may skip reading them (derecho.md §8.8: an idle
     * predicate pass then costs one read).
     */
    default long changes() {
        return -1;
    }
}
