package io.tandem.bench.peers;

import io.tandem.peers.driver.PeerMain;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * The load driver's per-second timeline ({@code second,epoch_ms,ops,errors,outstanding,histogram},
 * see {@code PeerMain load}): parsing, and merging the histograms of a window of seconds into one
 * measurement. Latencies are in microseconds, as the driver records them.
 */
final class Timeline {
    static final String HEADER = "second,epoch_ms,ops,errors,outstanding,histogram";

    /** One second of load: completed puts, failed puts, puts still outstanding at its end, and its latency histogram. */
    record Second(int second, long epochMillis, long ops, long errors, long outstanding, Histogram histogram) {}

    /**
     * The measurement of a window of seconds.
     *
     * @param seconds the seconds found in the window (fewer than expected if the load ended early)
     * @param expectedSeconds the window's length
     */
    record Window(int seconds, int expectedSeconds, long ops, long errors, double throughput, double meanMicros, double p50Micros,
                  double p99Micros, double p999Micros, double maxMicros) {
        boolean complete() {
            return seconds == expectedSeconds;
        }
    }

    private Timeline() {}

    /** Parses one data row; the header and blank lines give null. */
    static Second parseRow(String line) {
        String l = line.strip();
        if (l.isEmpty() || l.equals(HEADER)) return null;
        String[] f = l.split(",", -1);
        if (f.length != 6) throw new IllegalArgumentException("a timeline row has 6 fields, this has " + f.length + ": '" + abbreviate(l) + "'");
        try {
            return new Second(Integer.parseInt(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]),
                    PeerMain.decode(f[5]));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad timeline row '" + abbreviate(l) + "': " + e.getMessage(), e);
        }
    }

    /** Parses a whole timeline file's text. */
    static List<Second> parse(String text) {
        List<Second> rows = new ArrayList<>();
        for (String line : text.split("\n")) {
            Second s = parseRow(line);
            if (s != null) rows.add(s);
        }
        return rows;
    }

    /**
     * Merges seconds {@code from+1 .. to} (the driver numbers seconds from 1, so {@code from} is the
     * number of seconds discarded before the window): ops and errors summed, histograms added, the
     * throughput over the window's nominal length.
     */
    static Window window(List<Second> rows, int from, int to) {
        if (to <= from) throw new IllegalArgumentException("empty window " + from + ".." + to);
        Histogram merged = null;
        long ops = 0, errors = 0;
        int seconds = 0;
        for (Second s : rows) {
            if (s.second() <= from || s.second() > to) continue;
            seconds++;
            ops += s.ops();
            errors += s.errors();
            if (merged == null) merged = s.histogram().copy();
            else merged.add(s.histogram());
        }
        int expected = to - from;
        if (merged == null || merged.getTotalCount() == 0) {
            return new Window(seconds, expected, ops, errors, (double) ops / expected, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        return new Window(seconds, expected, ops, errors, (double) ops / expected, merged.getMean(), merged.getValueAtPercentile(50),
                merged.getValueAtPercentile(99), merged.getValueAtPercentile(99.9), merged.getMaxValue());
    }

    /** Per-second p99 (µs) of every row; NaN for a second without completed puts. */
    static double[] p99PerSecond(List<Second> rows) {
        return rows.stream().mapToDouble(s -> s.histogram().getTotalCount() == 0 ? Double.NaN : s.histogram().getValueAtPercentile(99)).toArray();
    }

    /** Per-second mean latency (µs) of every row; NaN for a second without completed puts. */
    static double[] meanPerSecond(List<Second> rows) {
        return rows.stream().mapToDouble(s -> s.histogram().getTotalCount() == 0 ? Double.NaN : s.histogram().getMean()).toArray();
    }

    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }
}
