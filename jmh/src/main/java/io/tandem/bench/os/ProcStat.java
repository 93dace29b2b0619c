package io.tandem.bench.os;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** CPU time and load figures from {@code /proc}, to report how busy the leader and the machine were. */
public final class ProcStat {
    private static final long TICKS_PER_SECOND = clockTicks();

    private ProcStat() {}

    /** Clock ticks per second of the CPU times in {@code /proc} (CLK_TCK). */
    public static long ticksPerSecond() {
        return TICKS_PER_SECOND;
    }

    /** User plus system CPU seconds the process has used so far; NaN if it is gone. */
    public static double cpuSeconds(long pid) {
        try {
            return parseCpuTicks(Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII)) / (double) TICKS_PER_SECOND;
        } catch (IOException e) {
            return Double.NaN;
        }
    }

    /**
     * CPU seconds the JIT compiler threads ({@code C1 CompilerThread*}, {@code C2 CompilerThread*})
     * of JVM {@code pid} have used so far; NaN if the process is gone. While they are busy the JVM
     * is still warming up.
     */
    public static double jitCpuSeconds(long pid) {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        long ticks = 0;
        try (var threads = Files.list(tasks)) {
            for (Path t : (Iterable<Path>) threads::iterator) {
                try {
                    String name = Files.readString(t.resolve("comm"), StandardCharsets.UTF_8).strip();
                    if (isJitThread(name)) ticks += parseCpuTicks(Files.readString(t.resolve("stat"), StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException e) {
            return Double.NaN;
        }
        return ticks / (double) TICKS_PER_SECOND;
    }

    /** Whether a thread name (as /proc shows it, cut to 15 characters) is one of HotSpot's JIT compiler threads. */
    public static boolean isJitThread(String name) {
        return name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre");
    }

    /**
     * utime + stime (fields 14 and 15) of a {@code /proc/PID/stat} line. The command name (field 2)
     * is in parentheses and may itself contain spaces and parentheses, so fields are counted from
     * the last ')'.
     */
    public static long parseCpuTicks(String stat) {
        return field(stat, 14) + field(stat, 15);
    }

    /** stime (field 15) of a {@code /proc/PID/stat} line: the ticks spent in the kernel on the task's behalf (system calls). */
    public static long parseSystemTicks(String stat) {
        return field(stat, 15);
    }

    private static long field(String stat, int k) {
        int close = stat.lastIndexOf(')');
        if (close < 0) throw new IllegalArgumentException("not a /proc/PID/stat line");
        String[] f = stat.substring(close + 1).strip().split(" +");
        // f[0] is field 3 (state), so field k is f[k - 3].
        return Long.parseLong(f[k - 3]);
    }

    /** The 1-minute load average; NaN if unknown. */
    public static double loadAverage1m() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    private static long clockTicks() {
        try {
            Shell.Result r = Shell.run(List.of("getconf", "CLK_TCK"), Duration.ofSeconds(10));
            if (r.ok()) return Long.parseLong(r.stdout().strip());
        } catch (RuntimeException e) {
            // fall through to the Linux default
        }
        return 100;
    }
}
