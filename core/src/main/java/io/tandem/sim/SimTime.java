package io.tandem.sim;

import java.util.Locale;

/** Parses and prints virtual durations ("250ms", "1.5s", "100us", "42ns"); all simulator time is in nanoseconds. */
public final class SimTime {
    public static final long MICROS = 1_000L;
    public static final long MILLIS = 1_000_000L;
    public static final long SECONDS = 1_000_000_000L;

    private SimTime() {}

    public static long millis(long ms) {
        return ms * MILLIS;
    }

    public static long micros(long us) {
        return us * MICROS;
    }

    public static long seconds(long s) {
        return s * SECONDS;
    }

    /** Parses a duration with a unit suffix (ns, us, ms, s); a bare number is nanoseconds. */
    public static long parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        long unit;
        String number;
        if (t.endsWith("ns")) {
            unit = 1;
            number = t.substring(0, t.length() - 2);
        } else if (t.endsWith("us")) {
            unit = MICROS;
            number = t.substring(0, t.length() - 2);
        } else if (t.endsWith("ms")) {
            unit = MILLIS;
            number = t.substring(0, t.length() - 2);
        } else if (t.endsWith("s")) {
            unit = SECONDS;
            number = t.substring(0, t.length() - 1);
        } else {
            unit = 1;
            number = t;
        }
        try {
            double value = Double.parseDouble(number);
            if (!(value >= 0) || Double.isInfinite(value)) throw new NumberFormatException("negative or not finite");
            return Math.round(value * unit);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid duration '" + text + "': use a number with ns, us, ms or s", e);
        }
    }

    /** The shortest exact rendering in the largest unit that divides it, so that {@link #parse} gives it back. */
    public static String format(long nanos) {
        if (nanos != 0 && nanos % SECONDS == 0) return nanos / SECONDS + "s";
        if (nanos != 0 && nanos % MILLIS == 0) return nanos / MILLIS + "ms";
        if (nanos != 0 && nanos % MICROS == 0) return nanos / MICROS + "us";
        return nanos + "ns";
    }

    /** A human reading of a point in virtual time: seconds with microsecond precision. */
    public static String clock(long nanos) {
        return String.format(Locale.ROOT, "%d.%06ds", nanos / SECONDS, (nanos % SECONDS) / MICROS);
    }
}
