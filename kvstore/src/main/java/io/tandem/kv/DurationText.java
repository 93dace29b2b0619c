package io.tandem.kv;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people write them in flags and config files: {@code 250ms}, {@code 10s}, {@code 1.5s}, {@code 2m}, {@code 1h}. */
public final class DurationText {
    private static final Pattern FORMAT = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(us|ms|s|m|h)");

    private DurationText() {}

    /** Parses a number with a unit (us, ms, s, m, h); throws {@link IllegalArgumentException} with a readable message. */
    public static Duration parse(String text) {
        Matcher m = FORMAT.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) throw new IllegalArgumentException("'" + text + "' is not a duration; write a number and a unit, e.g. 500ms, 10s, 2m");
        double amount = Double.parseDouble(m.group(1));
        long unitNanos = switch (m.group(2)) {
            case "us" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            default -> 3_600_000_000_000L;
        };
        double nanos = amount * unitNanos;
        if (nanos > Long.MAX_VALUE / 2) throw new IllegalArgumentException("duration '" + text + "' is too long");
        return Duration.ofNanos(Math.round(nanos));
    }

    /** A short readable form: {@code 850us}, {@code 12.3ms}, {@code 1.62s}, {@code 2m5s}. */
    public static String format(Duration d) {
        long nanos = d.toNanos();
        if (nanos < 1_000_000L) return trim(nanos / 1_000.0) + "us";
        if (nanos < 1_000_000_000L) return trim(nanos / 1_000_000.0) + "ms";
        if (nanos < 60_000_000_000L) return trim(nanos / 1_000_000_000.0) + "s";
        long s = d.toSeconds();
        return s / 60 + "m" + (s % 60 == 0 ? "" : s % 60 + "s");
    }

    private static String trim(double v) {
        String s = v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : v >= 10 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.2f", v);
        if (s.contains(".")) s = s.replaceAll("0+$", "").replaceAll("\\.$", "");
        return s;
    }
}
