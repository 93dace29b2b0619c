package io.tandem.transport;

import io.tandem.engine.NodeId;
import java.lang.foreign.MemorySegment;

/**
 * Memory regions with one-sided writes (DESIGN §5; derecho.md §2, §8). Every member registers a
 * region of the same name and size. A node writes its own region in place and then pushes byte
 * ranges of it; each peer receives them into its copy of that node's region, in push order per
 * writer, without a handler on the peer's side. Aligned 8-byte words are never seen torn.
 *
 * <p>RDMA does this with one-sided writes; TCP and the in-JVM transport emulate it by sending the
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

    /**
     * Writes {@code local(name)[offset, offset+length)} into every peer's copy. {@code offset} and
     * {@code length} must be multiples of 8. Never blocks; an unreachable peer misses the write and
     * sees the range again on the next push that covers it.
     */
    void push(String name, int offset, int length);
}
