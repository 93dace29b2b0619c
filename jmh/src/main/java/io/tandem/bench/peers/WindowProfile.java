package io.tandem.bench.peers;

import io.tandem.bench.os.ProcStat;
import io.tandem.bench.os.Shell;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code --profile-window}: where the CPU of exactly the measured window went. An adaptive warm-up ends at a
 * different second in every trial, so a recording started at a fixed delay covers part warm-up, part window
 * (hotpath part 6). Here the harness reads every thread's CPU from {@code /proc} when the window starts and
 * when it ends, and afterwards cuts the window out of each replica's continuous JFR recording (if it has one)
 * with {@code jcmd PID JFR.dump begin=.. end=..}: nothing is started inside the window, so the profile does not
 * disturb what it measures (the recording's own overhead runs through the whole trial).
 */
final class WindowProfile {
    private static final DateTimeFormatter JFR_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss", Locale.ROOT);

    /**
     * One thread's CPU ticks at one reading, its run time in ns and its voluntary context switches (each a park or a blocking
     * call: the thread's turns, which the cost model charges a wake-up for) from {@code schedstat} and {@code status}
     * (-1 where the kernel does not provide them).
     */
    private record ThreadCpu(long pid, String name, long ticks, long systemTicks, long runNanos, long voluntary) {}

    private final Path dir;
    private Map<String, ThreadCpu> startCpu, endCpu;
    private LocalDateTime startTime, endTime;

    WindowProfile(Path dir) {
        this.dir = dir;
    }

    void windowStarts(Iterable<Long> pids) {
        startTime = LocalDateTime.now();
        startCpu = threads(pids);
    }

    void windowEnds(Iterable<Long> pids) {
        endCpu = threads(pids);
        endTime = LocalDateTime.now();
    }

    /**
     * Writes {@code <tag>-threads.csv} (CPU µs per put of every thread of every JVM over the window) and dumps each
     * replica's JFR recording of the window; {@code roles.get(i)} is replica i's role, {@code loadPid} the load JVM.
     */
    void write(String tag, List<Long> replicaPids, List<String> roles, long loadPid, long puts) throws IOException {
        if (startCpu == null || endCpu == null) return;
        Files.createDirectories(dir);
        StringBuilder csv = new StringBuilder("jvm,pid,thread,cpu_s,us_per_put,run_us_per_put,voluntary_switches_per_1000_puts,kernel_us_per_put\n");
        for (var e : endCpu.entrySet()) {
            ThreadCpu end = e.getValue();
            ThreadCpu start = startCpu.get(e.getKey());
            long ticks = end.ticks() - (start == null ? 0 : start.ticks());
            if (ticks <= 0) continue;
            double seconds = ticks / (double) ProcStat.ticksPerSecond();
            double kernel = (end.systemTicks() - (start == null ? 0 : start.systemTicks())) / (double) ProcStat.ticksPerSecond();
            int i = replicaPids.indexOf(end.pid());
            String jvm = end.pid() == loadPid ? "load" : i >= 0 ? "r" + i + "-" + (i < roles.size() ? roles.get(i) : "?") : "?";
            double run = start == null || end.runNanos() < 0 || start.runNanos() < 0 || puts <= 0 ? Double.NaN : (end.runNanos() - start.runNanos()) / 1e3 / puts;
            double turns = start == null || end.voluntary() < 0 || start.voluntary() < 0 || puts <= 0 ? Double.NaN : (end.voluntary() - start.voluntary()) * 1e3 / puts;
            csv.append(String.format(Locale.ROOT, "%s,%d,\"%s\",%.3f,%.3f,%.3f,%.1f,%.3f%n", jvm, end.pid(), end.name().replace("\"", "'"), seconds,
                    puts > 0 ? seconds * 1e6 / puts : Double.NaN, run, turns, puts > 0 ? kernel * 1e6 / puts : Double.NaN));
        }
        Files.writeString(dir.resolve(tag + "-threads.csv"), csv.toString(), StandardCharsets.UTF_8);
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        for (int i = 0; i < replicaPids.size(); i++) {
            long pid = replicaPids.get(i);
            if (!recording(pid)) continue; // thread CPU only: no recording to cut (and no jcmd time after the window)
            Path file = dir.resolve(tag + "-r" + i + "-" + (i < roles.size() ? roles.get(i) : "?") + "-" + pid + ".jfr");
            // Whole seconds: the window is cut to the seconds it covers.
            Shell.run(List.of(jcmd.toString(), Long.toString(pid), "JFR.dump", "begin=" + startTime.plusSeconds(1).format(JFR_TIME),
                    "end=" + endTime.format(JFR_TIME), "filename=" + file), Duration.ofSeconds(60));
        }
    }

    /** Whether {@code pid} was started with a continuous JFR recording ({@code -XX:StartFlightRecording}). */
    private static boolean recording(long pid) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")), StandardCharsets.UTF_8).contains("StartFlightRecording");
        } catch (IOException e) {
            return true; // cannot tell: try the dump, as before
        }
    }

    /** The thread's time on a CPU in ns ({@code schedstat}'s first field), or -1. */
    private static long runNanos(Path task) {
        try {
            return Long.parseLong(Files.readString(task.resolve("schedstat"), StandardCharsets.US_ASCII).strip().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The thread's voluntary context switches so far ({@code status}), or -1. */
    private static long voluntarySwitches(Path task) {
        try {
            for (String line : Files.readAllLines(task.resolve("status"), StandardCharsets.US_ASCII))
                if (line.startsWith("voluntary_ctxt_switches:")) return Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
        } catch (IOException | RuntimeException e) {
            // the thread ended while we looked
        }
        return -1;
    }

    /** Every thread of {@code pids} with its CPU ticks so far, keyed by pid/tid. */
    private static Map<String, ThreadCpu> threads(Iterable<Long> pids) {
        Map<String, ThreadCpu> out = new LinkedHashMap<>();
        for (long pid : pids) {
            if (pid <= 0) continue;
            List<Path> tasks = new ArrayList<>();
            try (var ts = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
                ts.forEach(tasks::add);
            } catch (IOException e) {
                continue;
            }
            for (Path t : tasks) {
                try {
                    String name = Files.readString(t.resolve("comm"), StandardCharsets.UTF_8).strip();
                    String stat = Files.readString(t.resolve("stat"), StandardCharsets.US_ASCII);
                    out.put(pid + "/" + t.getFileName(),
                            new ThreadCpu(pid, name, ProcStat.parseCpuTicks(stat), ProcStat.parseSystemTicks(stat), runNanos(t), voluntarySwitches(t)));
                } catch (IOException | RuntimeException e) {
                    // the thread ended while we looked
                }
            }
        }
        return out;
    }
}
