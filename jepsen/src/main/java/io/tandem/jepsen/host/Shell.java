package io.tandem.jepsen.host;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs the host commands the runner needs ({@code ip}, {@code iptables}, {@code losetup}, {@code mount},
 * {@code kill}) and says exactly which command failed and why. Every command is logged to a sink (the
 * run's {@code host-commands.log}) so a failed run shows what was done to the machine.
 */
public final class Shell {
    /** What a command printed and how it ended. */
    public record Result(List<String> command, int exitCode, String out, String err) {
        public boolean ok() {
            return exitCode == 0;
        }
    }

    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    private volatile Consumer<String> log;

    public Shell(Consumer<String> log) {
        this.log = log;
    }

    /** A shell that logs nowhere. */
    public static Shell quiet() {
        return new Shell(line -> { });
    }

    public void logTo(Consumer<String> sink) {
        this.log = sink;
    }

    /** Runs a command and returns its result, whatever the exit code. */
    public Result run(String... command) {
        return run(List.of(command), DEFAULT_TIMEOUT);
    }

    public Result run(List<String> command, Duration timeout) {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        } catch (IOException e) {
            log.accept("$ " + String.join(" ", command) + "  => cannot start: " + e.getMessage());
            return new Result(command, 127, "", "cannot start " + command.getFirst() + ": " + e.getMessage());
        }
        // Drain both streams on their own threads so a chatty command never blocks on a full pipe.
        Drain out = new Drain(p.getInputStream());
        Drain err = new Drain(p.getErrorStream());
        Thread to = Thread.ofVirtual().start(out);
        Thread te = Thread.ofVirtual().start(err);
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor();
                to.join();
                te.join();
                log.accept("$ " + String.join(" ", command) + "  => timed out after " + timeout);
                return new Result(command, 124, out.text(), err.text() + "\n(timed out after " + timeout + ")");
            }
            to.join();
            te.join();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            return new Result(command, 130, out.text(), "interrupted");
        }
        Result r = new Result(command, p.exitValue(), out.text(), err.text());
        log.accept("$ " + String.join(" ", command) + (r.ok() ? "" : "  => exit " + r.exitCode() + ": " + r.err().strip()));
        return r;
    }

    /**
     * Runs a command that must succeed.
     *
     * @throws HostCommandException naming the command, its exit code and what it printed on stderr
     */
    public String check(String... command) {
        return check(List.of(command));
    }

    public String check(List<String> command) {
        Result r = run(command, DEFAULT_TIMEOUT);
        if (!r.ok()) throw new HostCommandException(r);
        return r.out();
    }

    /** A failed host command. */
    public static final class HostCommandException extends RuntimeException {
        private final transient Result result;

        public HostCommandException(Result result) {
            super("'" + String.join(" ", result.command()) + "' failed with exit code " + result.exitCode()
                    + (result.err().isBlank() ? "" : ": " + result.err().strip()));
            this.result = result;
        }

        public Result result() {
            return result;
        }
    }

    private static final class Drain implements Runnable {
        private final InputStream in;
        private final ByteArrayOutputStream buf = new ByteArrayOutputStream();

        Drain(InputStream in) {
            this.in = in;
        }

        @Override
        public void run() {
            try (in) {
                in.transferTo(buf);
            } catch (IOException e) {
                // The process was destroyed: what it printed so far is all there is.
            }
        }

        String text() {
            return buf.toString(StandardCharsets.UTF_8);
        }
    }
}
