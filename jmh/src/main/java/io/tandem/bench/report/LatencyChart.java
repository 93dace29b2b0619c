package io.tandem.bench.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import javax.imageio.ImageIO;

/**
 * Small multiples of latency over time, drawn with Java2D (headless): one panel per scenario, a
 * shared logarithmic y axis in milliseconds and a shared x axis in seconds, so panels compare at a
 * glance. Each panel can shade a measurement window and mark the moment a fault was applied.
 */
public final class LatencyChart {
    private static final int PANEL_W = 560;
    private static final int PANEL_H = 250;
    private static final int LEFT = 56;
    private static final int RIGHT = 14;
    private static final int TOP = 26;
    private static final int BOTTOM = 30;
    private static final int TITLE_H = 40;
    private static final int LEGEND_H = 30;

    /** One line: y values (NaN leaves a gap) at x values. */
    public record Series(String label, Color color, boolean dashed, double[] x, double[] y) {
        public Series {
            Objects.requireNonNull(label);
            Objects.requireNonNull(color);
            if (x.length != y.length) throw new IllegalArgumentException("x and y differ in length");
        }
    }

    /**
     * One panel.
     *
     * @param markX     x of a vertical marker (the fault), NaN for none
     * @param shadeFrom start of the shaded window, NaN for none
     * @param shadeTo   end of the shaded window
     */
    public record Panel(String title, List<Series> series, double markX, double shadeFrom, double shadeTo, List<Shade> shades) {
        public Panel {
            series = List.copyOf(series);
            shades = List.copyOf(shades);
        }

        public Panel(String title, List<Series> series, double markX, double shadeFrom, double shadeTo) {
            this(title, series, markX, shadeFrom, shadeTo, List.of());
        }
    }

    /** A further shaded interval of a panel, in its own colour and labelled at its top (e.g. "leader slow"). */
    public record Shade(double from, double to, Color color, String label) {
        public Shade {
            Objects.requireNonNull(color);
            Objects.requireNonNull(label);
            if (!(to >= from)) throw new IllegalArgumentException("a shade must not end before it starts: " + from + ".." + to);
        }
    }

    /** A legend entry shown under the panels. */
    public record LegendEntry(String label, Color color, boolean dashed) {}

    private LatencyChart() {}

    /** Draws the panels in {@code columns} columns under {@code title}. */
    public static BufferedImage render(String title, List<Panel> panels, int columns, List<LegendEntry> legend) {
        if (panels.isEmpty()) throw new IllegalArgumentException("nothing to draw");
        int cols = Math.max(1, Math.min(columns, panels.size()));
        int rows = (panels.size() + cols - 1) / cols;
        int width = cols * PANEL_W;
        int height = TITLE_H + rows * PANEL_H + LEGEND_H;
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
            g.drawString(title, 12, 25);

            Range x = new Range(0, 1);
            double yMin = Double.POSITIVE_INFINITY, yMax = 0;
            for (Panel p : panels) {
                for (Series s : p.series()) {
                    for (int i = 0; i < s.x().length; i++) {
                        if (!Double.isNaN(s.x()[i])) x = x.include(s.x()[i]);
                        double v = s.y()[i];
                        if (!Double.isNaN(v) && v > 0) {
                            yMin = Math.min(yMin, v);
                            yMax = Math.max(yMax, v);
                        }
                    }
                }
                if (!Double.isNaN(p.shadeTo())) x = x.include(p.shadeTo());
                for (Shade sh : p.shades()) x = x.include(sh.to());
            }
            if (yMax == 0) {
                yMin = 0.1;
                yMax = 1;
            }
            LogAxis y = LogAxis.covering(yMin, yMax);
            for (int i = 0; i < panels.size(); i++) {
                int px = (i % cols) * PANEL_W;
                int py = TITLE_H + (i / cols) * PANEL_H;
                drawPanel(g, panels.get(i), px, py, x, y);
            }
            drawLegend(g, legend, 12, height - LEGEND_H + 18);
        } finally {
            g.dispose();
        }
        return img;
    }

    public static void writePng(BufferedImage img, Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            if (!ImageIO.write(img, "png", file.toFile())) throw new IOException("no PNG writer");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static void drawPanel(Graphics2D g, Panel p, int px, int py, Range x, LogAxis y) {
        int x0 = px + LEFT, x1 = px + PANEL_W - RIGHT;
        int y0 = py + TOP, y1 = py + PANEL_H - BOTTOM;
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
        g.setColor(Color.BLACK);
        g.drawString(p.title(), x0, py + 16);

        if (!Double.isNaN(p.shadeFrom()) && !Double.isNaN(p.shadeTo())) {
            int a = sx(p.shadeFrom(), x, x0, x1), b = sx(p.shadeTo(), x, x0, x1);
            g.setColor(new Color(235, 242, 250));
            g.fillRect(a, y0, Math.max(1, b - a), y1 - y0);
        }
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        FontMetrics fm = g.getFontMetrics();
        for (Shade sh : p.shades()) {
            int a = sx(sh.from(), x, x0, x1), b = sx(sh.to(), x, x0, x1);
            g.setColor(sh.color());
            g.fillRect(a, y0, Math.max(1, b - a), y1 - y0);
            g.setColor(Color.DARK_GRAY);
            g.drawString(sh.label(), a + 3, y0 + 11);
        }
        for (double tick : y.ticks()) {
            int ty = sy(tick, y, y0, y1);
            g.setColor(new Color(225, 225, 225));
            g.drawLine(x0, ty, x1, ty);
            g.setColor(Color.DARK_GRAY);
            String label = tick >= 1 ? String.format("%.0f ms", tick) : String.format("%.1f ms", tick);
            g.drawString(label, x0 - 4 - fm.stringWidth(label), ty + 4);
        }
        double step = niceStep(x.hi - x.lo, 8);
        for (double t = Math.ceil(x.lo / step) * step; t <= x.hi + 1e-9; t += step) {
            int tx = sx(t, x, x0, x1);
            g.setColor(Color.DARK_GRAY);
            g.drawLine(tx, y1, tx, y1 + 3);
            String label = String.format(step < 1 ? "%.1f" : "%.0f", Math.abs(t) < step / 2 ? 0.0 : t); // never "-0"
            g.drawString(label, tx - fm.stringWidth(label) / 2, y1 + 14);
        }
        g.drawString("s", x1 - 6, y1 + 26);
        if (!Double.isNaN(p.markX())) {
            int mx = sx(p.markX(), x, x0, x1);
            g.setColor(new Color(200, 60, 60));
            Stroke old = g.getStroke();
            g.setStroke(new BasicStroke(1.2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {3, 3}, 0));
            g.drawLine(mx, y0, mx, y1);
            g.setStroke(old);
        }
        for (Series s : p.series()) {
            Path2D.Double path = new Path2D.Double();
            boolean pen = false;
            for (int i = 0; i < s.x().length; i++) {
                double v = s.y()[i];
                if (Double.isNaN(v) || v <= 0 || Double.isNaN(s.x()[i])) {
                    pen = false;
                    continue;
                }
                double cx = sx(s.x()[i], x, x0, x1), cy = sy(v, y, y0, y1);
                if (pen) path.lineTo(cx, cy);
                else path.moveTo(cx, cy);
                pen = true;
            }
            g.setColor(s.color());
            g.setStroke(stroke(s.dashed()));
            g.draw(path);
        }
        g.setStroke(new BasicStroke(1));
        g.setColor(Color.GRAY);
        g.drawRect(x0, y0, x1 - x0, y1 - y0);
    }

    private static void drawLegend(Graphics2D g, List<LegendEntry> legend, int x, int y) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        FontMetrics fm = g.getFontMetrics();
        int cx = x;
        for (LegendEntry e : legend) {
            g.setColor(e.color());
            g.setStroke(stroke(e.dashed()));
            g.drawLine(cx, y - 4, cx + 24, y - 4);
            g.setStroke(new BasicStroke(1));
            g.setColor(Color.BLACK);
            g.drawString(e.label(), cx + 30, y);
            cx += 30 + fm.stringWidth(e.label()) + 22;
        }
    }

    private static Stroke stroke(boolean dashed) {
        return dashed ? new BasicStroke(1.1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10, new float[] {5, 3}, 0)
                : new BasicStroke(1.6f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND);
    }

    private static int sx(double v, Range x, int x0, int x1) {
        return (int) Math.round(x0 + (v - x.lo) / (x.hi - x.lo) * (x1 - x0));
    }

    private static int sy(double v, LogAxis y, int y0, int y1) {
        double f = (Math.log10(v) - y.lo) / (y.hi - y.lo);
        return (int) Math.round(y1 - Math.max(0, Math.min(1, f)) * (y1 - y0));
    }

    /** A step of 1, 2 or 5 times a power of ten giving at most about {@code count} ticks over {@code span}. */
    static double niceStep(double span, int count) {
        double raw = span / Math.max(1, count);
        double pow = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5, 10}) if (m * pow >= raw) return m * pow;
        return 10 * pow;
    }

    private record Range(double lo, double hi) {
        Range include(double v) {
            return new Range(Math.min(lo, v), Math.max(hi, v));
        }
    }

    /** A log10 axis spanning whole decades. */
    record LogAxis(double lo, double hi) {
        static LogAxis covering(double min, double max) {
            double lo = Math.floor(Math.log10(min));
            double hi = Math.ceil(Math.log10(max));
            if (hi <= lo) hi = lo + 1;
            return new LogAxis(lo, hi);
        }

        List<Double> ticks() {
            return java.util.stream.IntStream.rangeClosed((int) lo, (int) hi).mapToObj(e -> Math.pow(10, e)).toList();
        }
    }
}
