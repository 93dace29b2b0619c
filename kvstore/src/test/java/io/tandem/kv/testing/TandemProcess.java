package io.tandem.kv.testing;

import io.tandem.cli.TandemCli;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code tandem} command in its own JVM, on the test class path, its output in a file. Tests
 * close it in cleanup, which kills it if it still runs.
 */
public final class TandemProcess implements AutoCloseable {
    private final List<String> command;
    private final Path output;
    private Process process;

    private TandemProcess(List<String> command, Path output) {
        this.command = command;
        this.output = output;
    }

    /** Starts {@code tandem args...}; stdout and stderr go to {@code output}. */
    public static TandemProcess start(Path output, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), TandemCli.class.getName()));
        command.addAll(List.of(args));
        TandemProcess p = new TandemProcess(command, output);
        p.launch();
        return p;
    }

    /** Starts the same command again (a restart), appending to the same output file. */
    public TandemProcess restart() {
        if (process.isAlive()) throw new IllegalStateException("still running");
        launch();
        return this;
    }

    private void launch() {
        try {
            Files.createDirectories(output.toAbsolutePath().getParent());
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Process process() {
        return process;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the process to end; fails (after killing it) if it runs longer than {@code timeout}. */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor();
                throw new AssertionError("still running after " + timeout + ": " + command + "\n" + output());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** SIGKILL, and wait for it to be gone. */
    public int kill() {
        process.destroyForcibly();
        return awaitExit(Duration.ofSeconds(30));
    }

    /** SIGTERM (a graceful stop), and wait for the exit status. */
    public int terminate(Duration timeout) {
        process.destroy();
        return awaitExit(timeout);
    }

    public String output() {
        try {
            return Files.exists(output) ? Files.readString(output, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
