package io.tandem.bench.sim;

import io.tandem.bench.report.BarChart;
import io.tandem.bench.report.Csv;
import io.tandem.bench.report.LatencyChart;
import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Bar charts of an ablation from {@code ./tandem simbench} output (issue 21: the compartmentalization steps): for each
 * step, the median over its runs (one {@code --out} directory per seed, each with a {@code results.csv}) of the
 * throughput and of the median latency, the lowest and highest run as whiskers, and each step's throughput as a
 * multiple of the first step's. Two charts side by side in one PNG.
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar io.tandem.bench.sim.AblationChart OUT.png "TITLE" STEP=DIR[,DIR...] ...
 * </pre>
 */
public final class AblationChart {
    private static final Color BASELINE = new Color(150, 150, 150);
    private static final Color STEP = new Color(40, 100, 180);
    private static final Color LATENCY = new Color(90, 150, 90);

    /** One step: its label and the runs' throughput (ops/s) and median latency (ms). */
    record Step(String label, double[] throughput, double[] p50Millis) {
        double median(double[] v) {
            double[] s = v.clone();
            Arrays.sort(s);
            return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
        }
    }

    private AblationChart() {}

    public static void main(String[] args) {
        if (args.length < 3) {
            System.err.println("usage: AblationChart OUT.png TITLE STEP=DIR[,DIR...] ...  (each DIR a simbench --out directory with results.csv)");
            System.exit(2);
        }
        List<Step> steps = new ArrayList<>();
        for (int i = 2; i < args.length; i++) steps.add(step(args[i]));
        Path out = Path.of(args[0]);
        LatencyChart.writePng(render(args[1], steps), out);
        for (Step s : steps) {
            System.out.printf(Locale.ROOT, "%s: %d run(s), median %,.0f ops/s (%.2fx), p50 %.2f ms%n", s.label(), s.throughput().length,
                    s.median(s.throughput()), s.median(s.throughput()) / steps.getFirst().median(steps.getFirst().throughput()), s.median(s.p50Millis()));
        }
        System.out.println("wrote " + out);
    }

    /** The two charts: throughput (labelled with its multiple of the first step) and median latency. */
    static java.awt.image.BufferedImage render(String title, List<Step> steps) {
        double base = steps.getFirst().median(steps.getFirst().throughput());
        List<BarChart.Bar> tput = new ArrayList<>();
        List<BarChart.Bar> p50 = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            double t = s.median(s.throughput());
            tput.add(new BarChart.Bar(String.format(Locale.ROOT, "%s %.2fx", s.label(), t / base), t, min(s.throughput()), max(s.throughput()),
                    i == 0 ? BASELINE : STEP));
            p50.add(new BarChart.Bar(s.label(), s.median(s.p50Millis()), min(s.p50Millis()), max(s.p50Millis()), LATENCY));
        }
        String runs = "bars: median of the runs; whiskers: lowest and highest";
        return BarChart.sideBySide(List.of(
                BarChart.render(title + ": throughput", "ops/s", tput, runs),
                BarChart.render(title + ": median latency", "ms", p50, runs, v -> String.format(Locale.ROOT, "%.2f", v))));
    }

    /** {@code LABEL=DIR[,DIR...]}: the step's runs, read from each directory's results.csv (first row). */
    static Step step(String arg) {
        int eq = arg.indexOf('=');
        if (eq <= 0 || eq == arg.length() - 1) throw new IllegalArgumentException("expected STEP=DIR[,DIR...], got " + arg);
        String[] dirs = arg.substring(eq + 1).split(",");
        double[] tput = new double[dirs.length];
        double[] p50 = new double[dirs.length];
        for (int i = 0; i < dirs.length; i++) {
            double[] row = read(Path.of(dirs[i]).resolve("results.csv"));
            tput[i] = row[0];
            p50[i] = row[1] / 1000;
        }
        return new Step(arg.substring(0, eq), tput, p50);
    }

    /** Throughput (ops/s) and p50 (µs) of the first row of a simbench results.csv. */
    static double[] read(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            if (lines.size() < 2) throw new IllegalArgumentException(file + " has no result row");
            List<String> header = Csv.fields(lines.get(0));
            List<String> row = Csv.fields(lines.get(1));
            int t = header.indexOf("throughput_ops_s"), p = header.indexOf("p50_us");
            if (t < 0 || p < 0) throw new IllegalArgumentException(file + " is not a simbench results.csv (no throughput_ops_s or p50_us column)");
            return new double[] {Double.parseDouble(row.get(t)), Double.parseDouble(row.get(p))};
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private static double min(double[] v) {
        return v.length < 2 ? Double.NaN : Arrays.stream(v).min().orElse(Double.NaN);
    }

    private static double max(double[] v) {
        return v.length < 2 ? Double.NaN : Arrays.stream(v).max().orElse(Double.NaN);
    }
}
