package io.tandem.sim.cost;

import java.util.Locale;

/** Durations ({@code 400ms}, {@code 1s}, {@code 50us}, {@code 100ns}) and sizes ({@code 512KiB}, {@code 1MiB}, {@code 4096}). */
public final class Units {
    private Units() {}

    public static long parseNanos(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        double scale;
        String num;
        if (t.endsWith("ns")) { scale = 1; num = t.substring(0, t.length() - 2); }
        else if (t.endsWith("us")) { scale = 1e3; num = t.substring(0, t.length() - 2); }
        else if (t.endsWith("ms")) { scale = 1e6; num = t.substring(0, t.length() - 2); }
        else if (t.endsWith("s")) { scale = 1e9; num = t.substring(0, t.length() - 1); }
        else throw new IllegalArgumentException("duration '" + text + "' needs a unit (ns, us, ms, s)");
        double v = Double.parseDouble(num);
        if (!(v >= 0)) throw new IllegalArgumentException("duration '" + text + "' must be >= 0");
        return Math.round(v * scale);
    }

    public static String formatNanos(long nanos) {
        if (nanos % 1_000_000_000L == 0) return nanos / 1_000_000_000L + "s";
        if (nanos % 1_000_000L == 0) return nanos / 1_000_000L + "ms";
        if (nanos % 1_000L == 0) return nanos / 1_000L + "us";
        return nanos + "ns";
    }

    public static long parseBytes(String text) {
        String t = text.trim();
        long scale = 1;
        String num = t;
        if (t.endsWith("KiB")) { scale = 1024; num = t.substring(0, t.length() - 3); }
        else if (t.endsWith("MiB")) { scale = 1024 * 1024; num = t.substring(0, t.length() - 3); }
        else if (t.endsWith("GiB")) { scale = 1024L * 1024 * 1024; num = t.substring(0, t.length() - 3); }
        else if (t.endsWith("B")) { num = t.substring(0, t.length() - 1); }
        double v = Double.parseDouble(num);
        if (!(v > 0)) throw new IllegalArgumentException("size '" + text + "' must be > 0");
        return Math.round(v * scale);
    }

    public static String formatBytes(long bytes) {
        if (bytes % (1024 * 1024) == 0) return bytes / (1024 * 1024) + "MiB";
        if (bytes % 1024 == 0) return bytes / 1024 + "KiB";
        return bytes + "B";
    }
}
