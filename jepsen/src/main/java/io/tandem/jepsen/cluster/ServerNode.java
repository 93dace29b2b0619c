package io.tandem.jepsen.cluster;

import io.tandem.jepsen.host.Shell;
import io.tandem.transport.Endpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One server process of the cluster: started with a fixed command line (so a restart is the same
 * command on the same data directory), killed with SIGKILL, paused with SIGSTOP and resumed with
 * SIGCONT, all by process id: the PID namespace is shared with every other node and with the runner,
 * so nothing is ever signalled by name. Output goes to the node's log in the store, appended across
 * restarts.
 */
public final class ServerNode {
    /** What the runner last did to the process. */
    public enum State { STOPPED, RUNNING, PAUSED }

    private final int index;
    private final String name;
    private final Endpoint peerAddress;
    private final Endpoint clientAddress;
    private final List<String> command;
    private final Path logFile;
    private final Shell shell;
    private Process process;
    private State state = State.STOPPED;
    private int starts;

    ServerNode(int index, String name, Endpoint peerAddress, Endpoint clientAddress, List<String> command, Path logFile, Shell shell) {
        this.index = index;
        this.name = name;
        this.peerAddress = peerAddress;
        this.clientAddress = clientAddress;
        this.command = List.copyOf(command);
        this.logFile = logFile;
        this.shell = shell;
    }

    public int index() {
        return index;
    }

    public String name() {
        return name;
    }

    public Endpoint peerAddress() {
        return peerAddress;
    }

    public Endpoint clientAddress() {
        return clientAddress;
    }

    public Path logFile() {
        return logFile;
    }

    public List<String> command() {
        return command;
    }

    public synchronized State state() {
        if (state != State.STOPPED && (process == null || !process.isAlive())) state = State.STOPPED;
        return state;
    }

    /** How many times the process was started. */
    public synchronized int starts() {
        return starts;
    }

    /** Starts the process if it is not running; a paused one is left alone. */
    public synchronized void start() {
        if (process != null && process.isAlive()) return;
        try {
            Files.createDirectories(logFile.getParent());
            Files.writeString(logFile, "---- jepsen: starting " + name + " (start " + (starts + 1) + "): " + String.join(" ", command) + "\n",
                    java.nio.charset.StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + String.join(" ", command), e);
        }
        starts++;
        state = State.RUNNING;
    }

    /** SIGKILL (which also ends a stopped process) and waits for the process to be gone. */
    public synchronized void kill() {
        if (process == null) return;
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) throw new IllegalStateException(name + " (pid " + process.pid() + ") survived SIGKILL for 30 s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while killing " + name, e);
            }
        }
        state = State.STOPPED;
    }

    /** SIGSTOP: the process keeps its sockets but does nothing, like a long GC pause. */
    public synchronized void pause() {
        if (state() != State.RUNNING) return;
        shell.check("kill", "-STOP", Long.toString(process.pid()));
        state = State.PAUSED;
    }

    public synchronized void resume() {
        if (state() != State.PAUSED) return;
        shell.check("kill", "-CONT", Long.toString(process.pid()));
        state = State.RUNNING;
    }

    /** The process id, or -1 if not running. */
    public synchronized long pid() {
        return process != null && process.isAlive() ? process.pid() : -1;
    }

    /** Stops the node for good at the end of a run: resumes it if paused, then SIGKILL. */
    public synchronized void stop() {
        if (process == null) return;
        if (state == State.PAUSED && process.isAlive()) shell.run("kill", "-CONT", Long.toString(process.pid()));
        kill();
    }

    @Override
    public String toString() {
        return name + "(" + peerAddress + ", clients " + clientAddress + ")";
    }
}
