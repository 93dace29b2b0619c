package io.tandem.bench.peers;

import io.tandem.bench.report.BarChart;
import io.tandem.bench.report.LatencyChart;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;

/** The peer benchmark's plots: a throughput bar chart per configuration and latency over time per slowdown scenario. */
final class PeerCharts {
    private static final Color TANDEM = new Color(40, 100, 180);
    private static final Color PEER = new Color(150, 150, 150);
    private static final Color P99 = new Color(200, 60, 40);
    private static final Color MEAN = new Color(40, 90, 170);
    private static final Color FOLLOWER_SHADE = new Color(255, 236, 200);
    private static final Color LEADER_SHADE = new Color(250, 215, 215);

    /** One bar: a system's median throughput and the lowest and highest of its runs. */
    record Bar(String system, double median, double low, double high) {}

    private PeerCharts() {}

    /** Bars of throughput, Tandem's systems in blue, with the runs' spread as a whisker ({@link BarChart}). */
    static BufferedImage throughputBars(String title, List<Bar> bars) {
        return BarChart.render(title, "puts/s", bars.stream()
                .map(b -> new BarChart.Bar(b.system(), b.median(), b.low(), b.high(), b.system().startsWith("tandem") ? TANDEM : PEER)).toList(),
                "bars: median over runs; whiskers: lowest and highest run");
    }

    /** {@link BarChart#niceStep}. */
    static double niceStep(double max, int count) {
        return BarChart.niceStep(max, count);
    }

    /**
     * One panel per system of a slowdown scenario: p99 and mean per second in ms over the load
     * seconds after the warm-up, the follower-slow and leader-slow windows shaded.
     */
    static LatencyChart.Panel latencyPanel(Results.Scenario s) {
        int warmup = s.phases().stream().filter(p -> p.phase().warmup()).mapToInt(p -> p.phase().to()).max().orElse(0);
        int n = s.p99Micros().length;
        List<Double> xs = new ArrayList<>(), p99 = new ArrayList<>(), mean = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int second = i + 1; // row i is load second i+1
            if (second <= warmup) continue;
            xs.add((double) (second - warmup));
            p99.add(s.p99Micros()[i] / 1000);
            mean.add(s.meanMicros()[i] / 1000);
        }
        double[] x = xs.stream().mapToDouble(Double::doubleValue).toArray();
        List<LatencyChart.Shade> shades = new ArrayList<>();
        for (Results.Phase p : s.phases()) {
            if (p.phase().target() == Slowdown.Target.none) continue;
            String label = p.phase().name() + (p.targetReplica() >= 0 ? " (r" + p.targetReplica() + ")" : " (not applied)");
            shades.add(new LatencyChart.Shade(p.phase().from() - warmup, p.phase().to() - warmup,
                    p.phase().target() == Slowdown.Target.follower ? FOLLOWER_SHADE : LEADER_SHADE, label));
        }
        long changed = s.leaderChanges().stream().filter(c -> c.second() > warmup).count();
        String changes = changed == 0 ? "" : ", " + changed + " leader change(s)";
        return new LatencyChart.Panel(s.system() + changes, List.of(
                new LatencyChart.Series("p99", P99, false, x, p99.stream().mapToDouble(Double::doubleValue).toArray()),
                new LatencyChart.Series("mean", MEAN, true, x, mean.stream().mapToDouble(Double::doubleValue).toArray())),
                Double.NaN, Double.NaN, Double.NaN, shades);
    }

    static List<LatencyChart.LegendEntry> latencyLegend() {
        return List.of(new LatencyChart.LegendEntry("p99 per second", P99, false), new LatencyChart.LegendEntry("mean per second", MEAN, true),
                new LatencyChart.LegendEntry("s after warm-up; shaded: slow", Color.GRAY, false));
    }
}
