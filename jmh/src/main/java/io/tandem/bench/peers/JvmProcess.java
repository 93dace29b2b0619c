package io.tandem.bench.peers;

import io.tandem.bench.os.Cleanup;
import io.tandem.bench.os.Signals;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One JVM the benchmark started from a system's jar (a replica or the load driver), its output in a
 * log file of its own. Stopping it is registered with the {@link Cleanup} when it starts, so it dies
 * with the benchmark on every exit path.
 */
final class JvmProcess {
    /** How every JVM is launched: the java binary and the JVM options, identical for every system. */
    record Launcher(Path java, List<String> options) {
        Launcher {
            options = List.copyOf(options);
        }

        List<String> command(Path jar, List<String> args) {
            List<String> cmd = new ArrayList<>();
            cmd.add(java.toString());
            cmd.addAll(options);
            cmd.add("-jar");
            cmd.add(jar.toString());
            cmd.addAll(args);
            return cmd;
        }
    }

    static final Duration STOP_GRACE = Duration.ofSeconds(10);

    private final String name;
    private final Process process;
    private final Path log;
    private final Cleanup.Action stop;

    private JvmProcess(String name, Process process, Path log, Cleanup cleanup) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.stop = cleanup.register("stop " + name + " (pid " + process.pid() + ")", this::terminate);
    }

    static JvmProcess start(String name, List<String> command, Path log, Cleanup cleanup) {
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
            Files.writeString(log, String.join(" ", command) + "\n\n");
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            return new JvmProcess(name, p, log, cleanup);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + e.getMessage(), e);
        }
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    Path log() {
        return log;
    }

    boolean alive() {
        return process.isAlive();
    }

    int exitValue() {
        return process.exitValue();
    }

    /** Waits up to {@code timeout} for the process to exit by itself; true if it did. */
    boolean waitFor(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Stops the process now (SIGCONT, SIGTERM, SIGKILL after {@link #STOP_GRACE}) and forgets the cleanup action. */
    void stop() {
        stop.run();
    }

    private void terminate() {
        if (!process.isAlive()) return;
        Signals.resumeQuietly(process.pid()); // a stopped process would never act on SIGTERM
        process.destroy();
        try {
            if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(20, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** The last {@code lines} lines of the log, for failure reports. */
    String tail(int lines) {
        return tail(log, lines);
    }

    static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read " + file + ": " + e.getMessage() + ")";
        }
    }
}
