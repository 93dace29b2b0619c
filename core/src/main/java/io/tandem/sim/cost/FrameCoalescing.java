package io.tandem.sim.cost;

import java.util.HashSet;
import java.util.Set;

/**
 * The transport's per-syscall costs, amortised over the frames one syscall carries (issue 18, session 14). The real
 * transport does not pay a write per message: a send queues the frame for its peer and asks the connection's event loop
 * for a drain; the drain writes everything queued for that peer by then and flushes once (PeerLink). Nor a read per
 * message: the event loop reads whatever the socket holds when it gets to the connection, many frames at once. So one
 * flush ({@code transport.flush.ns}) is paid per drain of one link, one read ({@code transport.read.ns}) per read turn of
 * one link, and only the per-message rest ({@code transport.send.ns}, {@code transport.receive.ns}) per message.
 *
 * <p>In the model a send from {@code a} to {@code b} queued on {@code a}'s I/O thread <em>opens</em> a flush when none of
 * {@code a -> b} is open (it pays the flush) and <em>joins</em> the open one otherwise (it pays none); the flush closes
 * when the job that opened it starts (the drain has begun: what is sent after it needs a flush of its own). A frame of
 * {@code a -> b} reaching {@code b}'s I/O thread opens or joins a read of that link the same way. A client connection
 * carries one request at a time, so its requests and replies each pay a read and a flush (see {@link CostTable}).
 * Deterministic: no randomness, state only per link. Every job that opens a flush or a read starts some time (a paused
 * node's later, a crashed incarnation's job still starts and finds nothing to do), so no link stays open.
 */
public final class FrameCoalescing {
    private final Set<String> openFlushes = new HashSet<>();
    private final Set<String> openReads = new HashSet<>();
    private long sends;
    private long flushes;
    private long receives;
    private long reads;

    private static String link(String from, String to) {
        return from + "\u0000" + to;
    }

    /** A send of {@code from -> to} is queued on {@code from}'s I/O thread: true if it opens a flush (and pays for it). */
    public boolean sendQueued(String from, String to) {
        sends++;
        if (!openFlushes.add(link(from, to))) return false;
        flushes++;
        return true;
    }

    /** The drain that the flush of {@code from -> to} opened has started: later sends need a flush of their own. */
    public void flushStarted(String from, String to) {
        openFlushes.remove(link(from, to));
    }

    /** A frame of {@code from -> to} reaches {@code to}'s I/O thread: true if it opens a read (and pays for it). */
    public boolean frameArrived(String from, String to) {
        receives++;
        if (!openReads.add(link(from, to))) return false;
        reads++;
        return true;
    }

    /** The read of {@code from -> to} that a frame opened has started: frames arriving later need a read of their own. */
    public void readStarted(String from, String to) {
        openReads.remove(link(from, to));
    }

    public long sends() {
        return sends;
    }

    public long flushes() {
        return flushes;
    }

    public long receives() {
        return receives;
    }

    public long reads() {
        return reads;
    }
}
