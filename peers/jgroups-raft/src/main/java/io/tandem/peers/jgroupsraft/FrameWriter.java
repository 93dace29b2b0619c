package io.tandem.peers.jgroupsraft;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

/**
 * Writes frames to a socket from a virtual thread of its own, so that whoever produces a frame (a load
 * client, or RAFT's thread completing a put) never blocks on the socket. Frames queued while a write is in
 * progress go out together with one flush: natural batching under load, one syscall per frame when idle.
 */
final class FrameWriter implements AutoCloseable {
    private static final byte[] POISON = {};
    private final LinkedBlockingQueue<byte[]> queue = new LinkedBlockingQueue<>();
    private final OutputStream out;
    private final Consumer<IOException> onFailure;
    private final Thread thread;
    private volatile boolean closed;

    FrameWriter(String name, OutputStream socketOut, Consumer<IOException> onFailure) {
        this.out = new BufferedOutputStream(socketOut, 64 * 1024);
        this.onFailure = onFailure;
        this.thread = Thread.ofVirtual().name(name).start(this::run);
    }

    /** Queues a whole frame; returns false if the writer has stopped. */
    boolean send(byte[] frame) {
        if (closed) return false;
        queue.add(frame);
        return true;
    }

    private void run() {
        List<byte[]> batch = new ArrayList<>();
        try {
            while (true) {
                batch.add(queue.take());
                queue.drainTo(batch);
                for (byte[] frame : batch) {
                    if (frame == POISON) {
                        out.flush();
                        return;
                    }
                    out.write(frame);
                }
                out.flush();
                batch.clear();
            }
        } catch (IOException e) {
            closed = true;
            onFailure.accept(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        queue.add(POISON);
    }

    void interrupt() {
        closed = true;
        thread.interrupt();
    }
}
