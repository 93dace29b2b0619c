package io.tandem.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.tandem.codec.FrameFormat;

/**
 * Direct buffers reused for large region-write frames (vsync25): a push chunk of more than
 * {@link #LARGE_CHUNK_MIN} bytes is snapshotted straight into one of these and written by every target's
 * link as it is. Before, such a chunk cost a heap body (allocated and zeroed, then the snapshot) plus, per
 * link, a fresh direct batch buffer that Netty's adaptive allocator served from its fallback (a new zeroed
 * native segment per frame at 110-230 KB, 3.5 % of the samples at 8 KiB, 2 members) and a second copy into
 * it; with two or more targets, a fresh direct buffer per frame. Now: one copy, into memory that is already
 * mapped and warm from the previous frames.
 *
 * <p><b>Lifetime.</b> A kept buffer's reference count is 1 for the pool's own hold. {@link #take} hands it
 * out with one more reference (the writer's), so no other thread can take it while it is being written;
 * the writer gives each link a {@link ByteBuf#retainedDuplicate} (the count is shared with the buffer)
 * and then lets go of its own. A link's reference is released by Netty once the frame's bytes reached
 * the kernel (or the channel failed), or by the link when it drops or discards the frame. So the count
 * is back at 1 exactly when nothing can still read the bytes; the count is read and changed atomically
 * (volatile semantics), so every read of a frame by a link happens before the buffer is written again.
 * A reference never released (a connection that hangs forever) only keeps that buffer out of reuse: a
 * push then takes another one, or a fresh buffer from the allocator that is not kept, so a leak costs
 * memory, never another frame's bytes.
 *
 * <p>Thread-safe (the pool is taken under a lock: pushes come from the engine loop, rarely contended).
 */
final class RegionFrames {
    /**
     * A chunk larger than this goes in a reused frame, to one target too. Below it a lone target's frame
     * is packed with its neighbours into the link's batch buffer (at most {@code PeerLink.BATCH_BYTES},
     * 64 KiB), which measured faster for small pushes (vsync8); a frame larger than that batch buffer
     * had a batch buffer of its own anyway, so packing saved nothing there.
     */
    static final int LARGE_CHUNK_MIN = 64 * 1024;
    /** The largest chunk of one frame on this path: pushes above it are cut (each frame applied in order). */
    static final int LARGE_CHUNK_MAX = 256 * 1024;
    /** Buffers kept for reuse: a link rarely has more than a few large frames queued. */
    static final int KEPT = 8;
    /** Room for a frame header, a region name of up to 255 bytes and the offset before the data. */
    private static final int HEAD_ROOM = FrameFormat.HEADER_BYTES + RegionWriteBody.FIXED_BYTES + RegionWriteBody.MAX_NAME_BYTES;
    static final int CAPACITY = HEAD_ROOM + LARGE_CHUNK_MAX;

    private final ByteBuf[] kept = new ByteBuf[KEPT];
    private boolean closed;

    /**
     * A cleared buffer of at least {@code capacity} bytes that no frame refers to, with one reference for the
     * caller (released with {@link ByteBuf#release} once its duplicates are handed out). A frame larger than
     * {@link #CAPACITY}, or a push while every kept buffer is still queued somewhere or after {@link #close},
     * gets a buffer from the allocator that is not kept.
     */
    synchronized ByteBuf take(int capacity) {
        if (capacity <= CAPACITY && !closed) {
            for (int i = 0; i < kept.length; i++) {
                ByteBuf b = kept[i];
                if (b == null) {
                    b = kept[i] = Unpooled.directBuffer(CAPACITY, CAPACITY); // the pool's hold: refCnt 1
                }
                if (b.refCnt() == 1) { // only the pool's hold: no link and no writer refers to it
                    b.retain(); // the writer's
                    return b.clear();
                }
            }
        }
        return ByteBufAllocator.DEFAULT.directBuffer(capacity);
    }

    /** Lets go of the pool's holds: a buffer still queued somewhere is freed when its last link releases it. */
    synchronized void close() {
        closed = true;
        for (int i = 0; i < kept.length; i++) {
            if (kept[i] != null) kept[i].release();
            kept[i] = null;
        }
    }

    /** References held on kept buffers beyond the pool's own (tests: 0 once every link let go). */
    synchronized int outstanding() {
        int n = 0;
        for (ByteBuf b : kept) if (b != null) n += b.refCnt() - 1;
        return n;
    }

    /** Buffers kept for reuse (tests). */
    synchronized int keptBuffers() {
        int n = 0;
        for (ByteBuf b : kept) if (b != null) n++;
        return n;
    }
}
