package io.tandem.bench.peers;

import io.tandem.bench.report.LatencyChart;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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

    /** Horizontal-axis bars of throughput, Tandem's systems in blue, with the runs' spread as a whisker. */
    static BufferedImage throughputBars(String title, List<Bar> bars) {
        if (bars.isEmpty()) throw new IllegalArgumentException("nothing to draw");
        int left = 70, right = 20, top = 50, bottom = 80, barW = 60, gap = 30;
        int width = left + right + bars.size() * (barW + gap);
        int height = 420;
        int y0 = top, y1 = height - bottom;
        double max = bars.stream().mapToDouble(b -> Double.isNaN(b.high()) ? b.median() : Math.max(b.high(), b.median()))
                .filter(d -> !Double.isNaN(d)).max().orElse(1);
        double step = niceStep(max, 6);
        double top_ = Math.max(step, Math.ceil(max / step) * step);
        BufferedImage img = new BufferedImage(Math.max(width, 480), height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, img.getWidth(), height);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
            g.drawString(title, 12, 24);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
            FontMetrics fm = g.getFontMetrics();
            for (double t = 0; t <= top_ + 1e-9; t += step) {
                int ty = (int) Math.round(y1 - t / top_ * (y1 - y0));
                g.setColor(new Color(225, 225, 225));
                g.drawLine(left, ty, width - right, ty);
                g.setColor(Color.DARK_GRAY);
                String label = String.format(Locale.ROOT, "%,.0f", t);
                g.drawString(label, left - 4 - fm.stringWidth(label), ty + 4);
            }
            g.drawString("puts/s", 8, y0 - 10);
            for (int i = 0; i < bars.size(); i++) {
                Bar b = bars.get(i);
                int bx = left + gap / 2 + i * (barW + gap);
                if (!Double.isNaN(b.median())) {
                    int by = (int) Math.round(y1 - b.median() / top_ * (y1 - y0));
                    g.setColor(b.system().startsWith("tandem") ? TANDEM : PEER);
                    g.fillRect(bx, by, barW, y1 - by);
                    g.setColor(Color.BLACK);
                    String v = String.format(Locale.ROOT, "%,.0f", b.median());
                    g.drawString(v, bx + (barW - fm.stringWidth(v)) / 2, by - 4);
                    if (!Double.isNaN(b.low()) && !Double.isNaN(b.high()) && b.high() > b.low()) {
                        int lo = (int) Math.round(y1 - b.low() / top_ * (y1 - y0)), hi = (int) Math.round(y1 - b.high() / top_ * (y1 - y0));
                        g.setStroke(new BasicStroke(1.2f));
                        g.drawLine(bx + barW / 2, lo, bx + barW / 2, hi);
                        g.drawLine(bx + barW / 2 - 6, lo, bx + barW / 2 + 6, lo);
                        g.drawLine(bx + barW / 2 - 6, hi, bx + barW / 2 + 6, hi);
                        g.setStroke(new BasicStroke(1));
                    }
                } else {
                    g.setColor(Color.GRAY);
                    g.drawString("failed", bx + 8, y1 - 6);
                }
                g.setColor(Color.BLACK);
                // system names rotated so long ones fit under narrow bars
                Graphics2D r = (Graphics2D) g.create();
                r.rotate(Math.toRadians(30), bx + barW / 2.0, y1 + 12);
                r.drawString(b.system(), bx + barW / 2 - 10, y1 + 16);
                r.dispose();
            }
            g.setColor(Color.GRAY);
            g.drawLine(left, y1, width - right, y1);
            g.setColor(Color.DARK_GRAY);
            g.drawString("bars: median over runs; whiskers: lowest and highest run", left, height - 8);
        } finally {
            g.dispose();
        }
        return img;
    }

    /** A step of 1, 2 or 5 times a power of ten giving at most about {@code count} ticks up to {@code max}. */
    static double niceStep(double max, int count) {
        if (!(max > 0)) return 1;
        double raw = max / count;
        double pow = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5, 10}) if (m * pow >= raw) return m * pow;
        return 10 * pow;
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
