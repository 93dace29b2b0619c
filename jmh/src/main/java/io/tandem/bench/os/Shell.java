package io.tandem.bench.os;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a short system command ({@code losetup}, {@code mount}, {@code kill}, {@code jcmd}) and returns its output. */
public final class Shell {
    private Shell() {}

    /** The outcome of a finished command. */
    public record Result(List<String> command, int exitCode, String stdout, String stderr) {
        public boolean ok() {
            return exitCode == 0;
        }

        /** Throws {@link CommandFailedException} unless the command exited with 0. */
        public Result orThrow() {
            if (!ok()) throw new CommandFailedException(this);
            return this;
        }
    }

    /** A command that exited with a non-zero status, with its output in the message. */
    public static final class CommandFailedException extends RuntimeException {
        private final transient Result result;

        CommandFailedException(Result result) {
            super(String.join(" ", result.command()) + " exited with " + result.exitCode()
                    + (result.stderr().isBlank() ? "" : ": " + result.stderr().strip()));
            this.result = result;
        }

        public Result result() {
            return result;
        }
    }

    /** Runs {@code command}; a command still running after {@code timeout} is killed and reported as exit code -1. */
    public static Result run(List<String> command, Duration timeout) {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
        }
        // Both streams are drained concurrently so a chatty command cannot block on a full pipe.
        StringBuilder out = new StringBuilder();
        StringBuilder err = new StringBuilder();
        Thread stdout = Thread.ofVirtual().start(() -> out.append(readAll(p.getInputStream())));
        Thread stderr = Thread.ofVirtual().start(() -> err.append(readAll(p.getErrorStream())));
        try {
            boolean finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                p.destroyForcibly().waitFor();
            }
            stdout.join();
            stderr.join();
            return new Result(List.copyOf(command), finished ? p.exitValue() : -1, out.toString(),
                    finished ? err.toString() : err + " (killed after " + timeout.toMillis() + " ms)");
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
        }
    }

    /** Runs {@code command} with a 30 s limit and throws unless it succeeded. */
    public static String check(String... command) {
        return run(List.of(command), Duration.ofSeconds(30)).orThrow().stdout();
    }

    private static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
