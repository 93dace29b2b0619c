package io.tandem.jmh.transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.function.BooleanSupplier;

/** Shared by the transport benchmarks so both sides measure the same way. */
final class Loopback {
    /**
     * In-flight limit of the one-way benchmarks: the sender waits while more than this many messages
     * are sent but not yet received, so the rate measured is the delivery rate, not the rate at which
     * a queue fills. Well below the transport's outbound bound (65,536), so no send is dropped.
     */
    static final int WINDOW = 1024;

    private Loopback() {}

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Busy-waits, yielding after a short spin: on a small machine the I/O threads need the core the
     * benchmark thread would otherwise burn.
     */
    static void spinUntil(BooleanSupplier done) {
        int spins = 0;
        while (!done.getAsBoolean()) {
            if (++spins < 64) Thread.onSpinWait();
            else Thread.yield();
        }
    }

    /** Waits for a setup condition, failing after {@code seconds}. */
    static void awaitSetup(String what, int seconds, BooleanSupplier done) {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) throw new IllegalStateException("benchmark setup: timed out waiting for " + what);
            Thread.yield();
        }
    }
}
