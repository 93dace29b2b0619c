package io.tandem.bench.peers;

import io.tandem.bench.os.Cleanup;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the load driver JVM ({@code PeerMain load}) against a running cluster and follows its
 * timeline file as it is written, so the harness can act at exact load seconds (read CPU times at the
 * start and end of the measured window, apply and remove faults) and poll the roles in between.
 */
final class LoadRun {
    /** What the harness does while the load runs; both are called from the thread that runs the load. */
    interface Listener {
        /** The load JVM started as process {@code pid}. */
        default void started(long pid) {}

        /** The driver finished load second {@code second} (0: it connected and is starting). */
        void second(int second);

        /** The driver's row of a finished second, just before {@link #second} is called for it. */
        default void row(Timeline.Second row) {}

        /** Called about every 100 ms; {@code lastSecond} is the last finished load second (0 before the first). */
        void tick(int lastSecond);

        /**
         * Whether the harness has every second it needs (an adaptive warm-up ends when the cluster is warm, so the
         * measured window ends before the driver's last second): the load is then stopped and counts as complete.
         */
        default boolean enough() {
            return false;
        }
    }

    /** The load's outcome: its exit status (-1 if it was killed at the deadline) and the seconds it recorded. */
    record Outcome(int exitCode, List<Timeline.Second> rows, String logTail) {
        boolean ok() {
            return exitCode == 0;
        }
    }

    private LoadRun() {}

    /**
     * Starts the load for {@code seconds} and returns when it exits or the listener has {@linkplain Listener#enough() enough}
     * (then it is stopped, with exit status 0), at the latest after the connection timeout plus {@code seconds} plus a minute.
     */
    static Outcome run(JvmProcess.Launcher launcher, String system, Path jar, int replicas, int basePort, int clients, int keys, int valueSize,
                       int seconds, int connectTimeout, List<String> options, Path timeline, Path log, Cleanup cleanup, Listener listener)
            throws InterruptedException, IOException {
        Files.deleteIfExists(timeline);
        List<String> args = new ArrayList<>(List.of("load", "--system", system, "--replicas", Integer.toString(replicas), "--base-port", Integer.toString(basePort),
                "--clients", Integer.toString(clients), "--keys", Integer.toString(keys), "--value-size", Integer.toString(valueSize),
                "--seconds", Integer.toString(seconds), "--connect-timeout", Integer.toString(connectTimeout), "--timeline", timeline.toString()));
        // The system's settings reach its load client too (e.g. a client timeout): the driver's load takes the same --opt.
        for (String o : options) args.addAll(List.of("--opt", o));
        JvmProcess load = JvmProcess.start(system + " load", launcher.command(jar, args), log, cleanup);
        listener.started(load.pid());
        long deadline = System.nanoTime() + Duration.ofSeconds(connectTimeout + seconds + 60L).toNanos();
        List<Timeline.Second> rows = new ArrayList<>();
        Tail tail = new Tail(timeline);
        boolean started = false;
        long nextTick = 0;
        try {
            while (true) {
                boolean exited = !load.alive();
                for (String line : tail.newLines()) {
                    if (line.strip().equals(Timeline.HEADER)) {
                        if (!started) listener.second(0);
                        started = true;
                        continue;
                    }
                    Timeline.Second s = Timeline.parseRow(line);
                    if (s == null) continue;
                    rows.add(s);
                    listener.row(s);
                    listener.second(s.second());
                }
                if (System.nanoTime() >= nextTick) {
                    listener.tick(rows.isEmpty() ? 0 : rows.getLast().second());
                    nextTick = System.nanoTime() + 100_000_000L;
                }
                if (exited) break;
                if (listener.enough()) {
                    load.stop();
                    return new Outcome(0, rows, load.tail(15));
                }
                if (System.nanoTime() > deadline) {
                    load.stop();
                    return new Outcome(-1, rows, "killed after the deadline; " + load.tail(15));
                }
                Thread.sleep(20); // polling the timeline file the driver appends to every second
            }
            return new Outcome(load.exitValue(), rows, load.tail(15));
        } finally {
            load.stop();
        }
    }

    /** Reads the complete lines appended to a file since the last call. */
    static final class Tail {
        private final Path file;
        private long position;
        private final StringBuilder partial = new StringBuilder();

        Tail(Path file) {
            this.file = file;
        }

        List<String> newLines() throws IOException {
            if (!Files.exists(file)) return List.of();
            byte[] bytes;
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
                long length = f.length();
                if (length <= position) return List.of();
                bytes = new byte[(int) (length - position)];
                f.seek(position);
                f.readFully(bytes);
                position = length;
            }
            partial.append(new String(bytes, StandardCharsets.UTF_8));
            List<String> lines = new ArrayList<>();
            int nl;
            while ((nl = partial.indexOf("\n")) >= 0) {
                lines.add(partial.substring(0, nl));
                partial.delete(0, nl + 1);
            }
            return lines;
        }
    }
}
