package io.tandem.bench.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.DoubleFunction;

/**
 * Vertical bars drawn with Java2D (headless): one bar per label with its value printed on top, an optional whisker
 * (lowest and highest run), labels rotated under the bars so long ones fit, a linear y axis from 0 with 1-2-5 ticks.
 * Several charts can be laid side by side in one image ({@link #sideBySide}). Used by the peer benchmark's throughput
 * plots and the compartments ablation plots.
 */
public final class BarChart {
    /**
     * One bar.
     *
     * @param value the bar's height (NaN: drawn as "failed")
     * @param low   the whisker's low end, NaN for none
     * @param high  the whisker's high end, NaN for none
     */
    public record Bar(String label, double value, double low, double high, Color color) {
        public Bar {
            Objects.requireNonNull(label);
            Objects.requireNonNull(color);
        }

        public Bar(String label, double value, Color color) {
            this(label, value, Double.NaN, Double.NaN, color);
        }
    }

    private static final int HEIGHT = 420;

    private BarChart() {}

    /** A chart of {@code bars} under {@code title}; {@code unit} is written above the y axis, {@code note} under the chart. */
    public static BufferedImage render(String title, String unit, List<Bar> bars, String note) {
        return render(title, unit, bars, note, v -> String.format(Locale.ROOT, "%,.0f", v));
    }

    /** The same, with the values on top of the bars and on the axis written by {@code format}. */
    public static BufferedImage render(String title, String unit, List<Bar> bars, String note, DoubleFunction<String> format) {
        if (bars.isEmpty()) throw new IllegalArgumentException("nothing to draw");
        int left = 70, right = 20, top = 50, bottom = 80, barW = 60, gap = 30;
        int width = left + right + bars.size() * (barW + gap);
        int y0 = top, y1 = HEIGHT - bottom;
        double max = bars.stream().mapToDouble(b -> Double.isNaN(b.high()) ? b.value() : Math.max(b.high(), b.value()))
                .filter(d -> !Double.isNaN(d)).max().orElse(1);
        double step = niceStep(max, 6);
        double top_ = Math.max(step, Math.ceil(max / step) * step);
        BufferedImage img = new BufferedImage(Math.max(width, 480), HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, img.getWidth(), HEIGHT);
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
                String label = format.apply(t);
                g.drawString(label, left - 4 - fm.stringWidth(label), ty + 4);
            }
            g.drawString(unit, 8, y0 - 10);
            for (int i = 0; i < bars.size(); i++) {
                Bar b = bars.get(i);
                int bx = left + gap / 2 + i * (barW + gap);
                if (!Double.isNaN(b.value())) {
                    int by = (int) Math.round(y1 - b.value() / top_ * (y1 - y0));
                    g.setColor(b.color());
                    g.fillRect(bx, by, barW, y1 - by);
                    g.setColor(Color.BLACK);
                    String v = format.apply(b.value());
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
                // labels rotated so long ones fit under narrow bars
                Graphics2D r = (Graphics2D) g.create();
                r.rotate(Math.toRadians(30), bx + barW / 2.0, y1 + 12);
                r.drawString(b.label(), bx + barW / 2 - 10, y1 + 16);
                r.dispose();
            }
            g.setColor(Color.GRAY);
            g.drawLine(left, y1, width - right, y1);
            g.setColor(Color.DARK_GRAY);
            g.drawString(note, left, HEIGHT - 8);
        } finally {
            g.dispose();
        }
        return img;
    }

    /** The images next to each other, left to right, on white (heights may differ). */
    public static BufferedImage sideBySide(List<BufferedImage> images) {
        if (images.isEmpty()) throw new IllegalArgumentException("nothing to draw");
        int width = images.stream().mapToInt(BufferedImage::getWidth).sum();
        int height = images.stream().mapToInt(BufferedImage::getHeight).max().orElseThrow();
        BufferedImage out = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = out.createGraphics();
        try {
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            int x = 0;
            for (BufferedImage img : images) {
                g.drawImage(img, x, 0, null);
                x += img.getWidth();
            }
        } finally {
            g.dispose();
        }
        return out;
    }

    /** A step of 1, 2 or 5 times a power of ten giving at most about {@code count} ticks up to {@code max}. */
    public static double niceStep(double max, int count) {
        if (!(max > 0)) return 1;
        double raw = max / count;
        double pow = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5, 10}) if (m * pow >= raw) return m * pow;
        return 10 * pow;
    }
}
