package io.tandem.sim.cost;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A sender's per-peer outbox in front of one TCP connection, as the real transport has it ({@code PeerLink}): a frame
 * goes into the socket while the connection's window has room; the window is the bytes the kernel holds between the
 * sender's write and the receiver's read (the sender's socket send buffer and the receiver's receive buffer), and it
 * frees when the receiver reads and its window update gets back. Frames that do not fit wait in the outbox, on the
 * sender's heap: that is where a fast sender's memory grows when a peer reads slowly or not at all. Past the
 * high-water mark (messages or bytes) new frames are dropped until the outbox has drained below the low-water mark,
 * as {@code PeerLink.offer} does.
 *
 * <p>Pure bookkeeping, no clock: the simulation tells it what was written, read and acknowledged.
 */
public final class PeerOutbox {
    /** The transport's outbox bounds ({@code TcpTransportConfig}). */
    public record Limits(int highMessages, int lowMessages, long highBytes, long lowBytes) {
        public Limits {
            if (lowMessages < 0 || lowMessages > highMessages || lowBytes < 0 || lowBytes > highBytes) throw new IllegalArgumentException("outbox limits need 0 <= low <= high");
        }

        /** No bound (the outbox grows as long as frames come). */
        public static Limits unbounded() {
            return new Limits(Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);
        }
    }

    /**
     * One frame.
     *
     * @param bytes   its size on the wire
     * @param prepaid the sender's I/O thread already paid the socket write for it (it found the window open)
     * @param onWire  puts it on the link (called when it leaves the outbox, in order)
     */
    public record Frame(long bytes, boolean prepaid, Runnable onWire) {}

    /** What became of an offered frame. */
    public enum Offer {
        /** Into the socket now: the caller puts it on the link. */
        WRITTEN,
        /** Waiting in the outbox for the window. */
        QUEUED,
        /** Dropped: the outbox is at its bound. */
        DROPPED
    }

    private final long windowBytes;
    private final Limits limits;
    private final ArrayDeque<Frame> queue = new ArrayDeque<>();
    private long inKernel;
    private long queuedBytes;
    private boolean saturated;
    private long maxQueuedBytes;
    private int maxQueuedMessages;
    private long dropped;

    /**
     * @param windowBytes bytes the connection holds between write and read (0: unlimited, nothing ever waits)
     */
    public PeerOutbox(long windowBytes, Limits limits) {
        if (windowBytes < 0) throw new IllegalArgumentException("negative window");
        this.windowBytes = windowBytes;
        this.limits = limits;
    }

    private boolean fits(long bytes) {
        // A frame larger than the whole window goes when the window is empty, as a socket takes a large write in parts.
        return windowBytes == 0 || inKernel == 0 || inKernel + bytes <= windowBytes;
    }

    /** Whether a frame of {@code bytes} would go straight into the socket now (nothing queued ahead of it, room in the window). */
    public boolean writable(long bytes) {
        return queue.isEmpty() && fits(bytes);
    }

    /** A frame from the sender: written now (counted in the window), queued, or dropped. */
    public Offer offer(Frame frame) {
        if (frame.bytes() < 0) throw new IllegalArgumentException("negative size");
        if (writable(frame.bytes())) {
            inKernel += frame.bytes();
            return Offer.WRITTEN;
        }
        if (saturated) {
            if (queue.size() > limits.lowMessages() || queuedBytes > limits.lowBytes()) {
                dropped++;
                return Offer.DROPPED;
            }
            saturated = false;
        }
        if (queue.size() >= limits.highMessages() || queuedBytes + frame.bytes() > limits.highBytes()) {
            saturated = true;
            dropped++;
            return Offer.DROPPED;
        }
        queue.add(frame);
        queuedBytes += frame.bytes();
        maxQueuedBytes = Math.max(maxQueuedBytes, queuedBytes);
        maxQueuedMessages = Math.max(maxQueuedMessages, queue.size());
        return Offer.QUEUED;
    }

    /**
     * The receiver read {@code bytes} and its window update came back: the window frees that much, and the frames that
     * now fit leave the outbox (they are counted in the window; the caller writes them, in order).
     */
    public List<Frame> acknowledged(long bytes) {
        if (bytes < 0) throw new IllegalArgumentException("negative size");
        inKernel = Math.max(0, inKernel - bytes); // after a reset, the reads of frames written before it free nothing
        List<Frame> out = new ArrayList<>();
        while (!queue.isEmpty() && fits(queue.peekFirst().bytes())) {
            Frame f = queue.removeFirst();
            queuedBytes -= f.bytes();
            inKernel += f.bytes();
            out.add(f);
        }
        return out;
    }

    /** The connection is gone (the process died): the window and the outbox are emptied, nothing is sent. */
    public void reset() {
        queue.clear();
        queuedBytes = 0;
        inKernel = 0;
        saturated = false;
    }

    /** Bytes between the sender's write and the receiver's read now. */
    public long inKernel() {
        return inKernel;
    }

    /** Bytes waiting in the outbox now (the sender's memory for this peer). */
    public long queuedBytes() {
        return queuedBytes;
    }

    public int queuedMessages() {
        return queue.size();
    }

    public long maxQueuedBytes() {
        return maxQueuedBytes;
    }

    public int maxQueuedMessages() {
        return maxQueuedMessages;
    }

    /** Frames dropped at the bound so far. */
    public long dropped() {
        return dropped;
    }
}
