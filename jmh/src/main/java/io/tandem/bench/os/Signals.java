package io.tandem.bench.os;

import java.time.Duration;
import java.util.List;

/** Job-control signals to one process by pid (the JDK can only terminate processes, not stop them). */
public final class Signals {
    private Signals() {}

    /** Freezes every thread of {@code pid} until {@link #resume}; the kernel keeps its sockets and files open. */
    public static void stop(long pid) {
        send("STOP", pid);
    }

    /** Lets a stopped process run again; harmless if it is running. */
    public static void resume(long pid) {
        send("CONT", pid);
    }

    /** {@link #resume}, ignoring a process that has already exited. */
    public static void resumeQuietly(long pid) {
        Shell.run(List.of("kill", "-CONT", Long.toString(pid)), Duration.ofSeconds(10));
    }

    private static void send(String signal, long pid) {
        Shell.run(List.of("kill", "-" + signal, Long.toString(pid)), Duration.ofSeconds(10)).orThrow();
    }
}
