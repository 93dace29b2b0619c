package io.tandem.jepsen.store;

import io.tandem.history.EdnWriter;
import io.tandem.history.History;
import io.tandem.history.Keyword;
import io.tandem.history.Op;
import io.tandem.history.Operation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Self-contained HTML reports (inline SVG, no scripts or external files), Jepsen's {@code latency-raw.png},
 * {@code rate.png} and {@code timeline.html} in one form: {@link #latency} plots every client operation's
 * latency over time and the throughput per second, {@link #timeline} draws each client thread's
 * operations as bars; both shade the periods in which each fault was active.
 */
public final class HtmlReport {
    private static final Map<String, String> FAULT_STOP = Map.of(
            "start-partition", "stop-partition", "kill", "start", "pause", "resume", "start-packet", "stop-packet",
            "start-slow-cpu", "stop-slow-cpu", "start-slow-disk", "stop-slow-disk", "bump-clock", "reset-clock", "shrink", "grow");
    private static final Map<String, String> FAULT_COLOR = Map.of(
            "start-partition", "#E9DCA0", "kill", "#E9A4A0", "pause", "#A0B1E9", "start-packet", "#C5A0E9",
            "start-slow-cpu", "#A0E9D4", "start-slow-disk", "#B7E9A0", "bump-clock", "#E9C9A0", "shrink", "#D0D0D0");
    private static final List<String> FAULT_ORDER = List.of("start-partition", "kill", "pause", "start-packet", "start-slow-cpu",
            "start-slow-disk", "bump-clock", "shrink");
    private static final Map<String, String> FAULT_LABEL = Map.of(
            "start-partition", "partition", "kill", "kill", "pause", "pause", "start-packet", "packet",
            "start-slow-cpu", "slow-cpu", "start-slow-disk", "slow-disk", "bump-clock", "clock", "shrink", "member");
    private static final int LANE = 9;
    private static final String OK_COLOR = "#3A7BD5";
    private static final String FAIL_COLOR = "#E0607E";
    private static final String INFO_COLOR = "#F0A030";

    private HtmlReport() {}

    /** A period in which one fault was active, in seconds since the start. */
    record Band(String fault, double from, double to, String color) {}

    /** The fault periods of a history: from each start's completion to the completion of its stop. */
    static List<Band> bands(History history, double end) {
        List<Band> bands = new ArrayList<>();
        Map<String, Boolean> awaitingCompletion = new HashMap<>();
        Map<String, Double> openSince = new LinkedHashMap<>();
        Map<String, String> startOfStop = new HashMap<>();
        FAULT_STOP.forEach((start, stop) -> startOfStop.put(stop, start));
        for (Op op : history.ops()) {
            if (op.isClient() || !(op.f() instanceof Keyword k)) continue;
            String f = k.name();
            // Nemesis ops come in pairs (invocation, completion), both :info: the second of each pair counts.
            boolean completion = awaitingCompletion.getOrDefault(f, false);
            awaitingCompletion.put(f, !completion);
            if (!completion) continue;
            double t = op.time() / 1e9;
            if (FAULT_STOP.containsKey(f)) {
                openSince.putIfAbsent(f, t);
            } else if (startOfStop.containsKey(f)) {
                String start = startOfStop.get(f);
                Double since = openSince.remove(start);
                if (since != null) bands.add(new Band(start, since, t, FAULT_COLOR.get(start)));
            }
        }
        openSince.forEach((start, since) -> bands.add(new Band(start, since, end, FAULT_COLOR.get(start))));
        return bands;
    }

    /** Latency over time (log scale) and throughput per second, with fault bands. */
    public static String latency(String title, History history) {
        List<Operation> ops = history.operations();
        double end = history.ops().isEmpty() ? 1 : Math.max(1, history.ops().getLast().time() / 1e9);
        double maxLatency = 1;
        for (Operation o : ops) if (o.isCompleted()) maxLatency = Math.max(maxLatency, latencyMs(o));
        List<Band> bands = bands(history, end);
        List<String> lanes = lanes(bands);
        int w = 1100;
        int left = 70;
        int right = 20;
        int top = 24 + lanes.size() * LANE;
        int bottom = 40;
        int h = top + 360 + bottom;
        double logMax = Math.log10(Math.max(10, maxLatency * 1.2));
        double logMin = -1; // 0.1 ms
        StringBuilder svg = new StringBuilder();
        svg.append(svgOpen(w, h));
        appendLanes(svg, bands, lanes, left, 22, w - left - right, end);
        // axes and grid
        for (int e = (int) Math.ceil(logMin); e <= Math.floor(logMax); e++) {
            double y = top + (h - top - bottom) * (1 - (e - logMin) / (logMax - logMin));
            svg.append(String.format(Locale.ROOT, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#ddd'/>", left, y, w - right, y));
            svg.append(String.format(Locale.ROOT, "<text x='%d' y='%.1f' font-size='11' text-anchor='end'>%s ms</text>", left - 4, y + 4, fmt(Math.pow(10, e))));
        }
        appendTimeAxis(svg, left, w - right, h - bottom, end);
        for (Operation o : ops) {
            if (!o.isCompleted()) continue;
            double x = left + (w - left - right) * (o.invocation().time() / 1e9) / end;
            double l = Math.max(0.1, latencyMs(o));
            double y = top + (h - top - bottom) * (1 - (Math.log10(l) - logMin) / (logMax - logMin));
            svg.append(String.format(Locale.ROOT, "<circle cx='%.1f' cy='%.1f' r='1.8' fill='%s' fill-opacity='0.7'><title>%s</title></circle>",
                    x, y, color(o.outcome()), escape(describe(o))));
        }
        svg.append(String.format(Locale.ROOT, "<text x='%d' y='%d' font-size='12'>latency of each client operation (log scale) over time, faults above</text>", left, 14));
        svg.append("</svg>");

        // throughput per second by outcome
        int seconds = (int) Math.ceil(end);
        long[][] rate = new long[3][seconds + 1];
        long maxRate = 1;
        for (Operation o : ops) {
            if (!o.isCompleted()) continue;
            int s = (int) Math.min(seconds, o.completion().time() / 1_000_000_000L);
            int i = switch (o.outcome()) { case OK -> 0; case FAIL -> 1; default -> 2; };
            maxRate = Math.max(maxRate, ++rate[i][s]);
        }
        int rh = top + 200 + bottom;
        StringBuilder r = new StringBuilder(svgOpen(w, rh));
        appendLanes(r, bands, lanes, left, 22, w - left - right, end);
        for (int k = 0; k <= 4; k++) {
            double v = maxRate * k / 4.0;
            double y = top + (rh - top - bottom) * (1 - k / 4.0);
            r.append(String.format(Locale.ROOT, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#ddd'/>", left, y, w - right, y));
            r.append(String.format(Locale.ROOT, "<text x='%d' y='%.1f' font-size='11' text-anchor='end'>%s/s</text>", left - 4, y + 4, fmt(v)));
        }
        appendTimeAxis(r, left, w - right, rh - bottom, end);
        String[] colors = {OK_COLOR, FAIL_COLOR, INFO_COLOR};
        for (int i = 0; i < 3; i++) {
            StringBuilder pts = new StringBuilder();
            for (int s = 0; s <= seconds; s++) {
                double x = left + (w - left - right) * (s + 0.5) / end;
                double y = top + (rh - top - bottom) * (1 - (double) rate[i][s] / maxRate);
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", Math.min(x, w - right), y));
            }
            r.append("<polyline fill='none' stroke='").append(colors[i]).append("' stroke-width='1.5' points='").append(pts).append("'/>");
        }
        r.append(String.format(Locale.ROOT, "<text x='%d' y='%d' font-size='12'>completed operations per second (ok, fail, info)</text>", left, 14));
        r.append("</svg>");
        return page(title + " — latency", svg + "<br>" + r + legend());
    }

    /** Each client thread's operations as bars over time, with fault bands. */
    public static String timeline(String title, History history, int concurrency) {
        List<Operation> ops = history.operations();
        double end = history.ops().isEmpty() ? 1 : Math.max(1, history.ops().getLast().time() / 1e9);
        int left = 70;
        int lane = 16;
        List<Band> bands = bands(history, end);
        List<String> lanes = lanes(bands);
        int top = 10 + lanes.size() * LANE + 6;
        int w = (int) Math.max(1200, Math.min(20000, end * 60));
        int h = top + lane * concurrency + 40;
        StringBuilder svg = new StringBuilder(svgOpen(w, h));
        appendLanes(svg, bands, lanes, left, 8, w - left - 10, end);
        for (int t = 0; t < concurrency; t++) {
            svg.append(String.format(Locale.ROOT, "<text x='%d' y='%d' font-size='11' text-anchor='end'>thread %d</text>", left - 4, top + t * lane + 12, t));
        }
        appendTimeAxis(svg, left, w - 10, top + lane * concurrency, end);
        for (Operation o : ops) {
            if (!(o.process() instanceof Long p)) continue;
            int t = (int) (p % concurrency);
            double x1 = left + (w - left - 10) * (o.invocation().time() / 1e9) / end;
            double x2 = o.isCompleted() ? left + (w - left - 10) * (o.completion().time() / 1e9) / end : w - 10;
            svg.append(String.format(Locale.ROOT, "<rect x='%.1f' y='%d' width='%.1f' height='%d' fill='%s' fill-opacity='0.8'><title>%s</title></rect>",
                    x1, top + t * lane + 2, Math.max(0.8, x2 - x1), lane - 4, color(o.outcome()), escape(describe(o))));
        }
        svg.append("</svg>");
        return page(title + " — timeline", "<div style='overflow-x:auto'>" + svg + "</div>" + legend());
    }

    private static double latencyMs(Operation o) {
        return (o.completion().time() - o.invocation().time()) / 1e6;
    }

    private static String describe(Operation o) {
        StringBuilder s = new StringBuilder();
        s.append("process ").append(o.process()).append(' ').append(EdnWriter.toEdn(o.f())).append(' ').append(EdnWriter.toEdn(o.invocation().value()));
        if (o.isCompleted()) {
            s.append(" → ").append(EdnWriter.toEdn(o.completion().type().keyword())).append(' ').append(EdnWriter.toEdn(o.completion().value()));
            Object err = o.completion().error();
            if (err != null) s.append(' ').append(EdnWriter.toEdn(err));
            s.append(String.format(Locale.ROOT, " (%.1f ms at %.3f s)", latencyMs(o), o.invocation().time() / 1e9));
        } else {
            s.append(" → never completed");
        }
        return s.toString();
    }

    private static String color(Op.Type t) {
        return switch (t) {
            case OK -> OK_COLOR;
            case FAIL -> FAIL_COLOR;
            default -> INFO_COLOR;
        };
    }

    /** The faults that occur, in a fixed order: one lane each. */
    private static List<String> lanes(List<Band> bands) {
        List<String> out = new ArrayList<>();
        for (String f : FAULT_ORDER) if (bands.stream().anyMatch(b -> b.fault().equals(f))) out.add(f);
        return out;
    }

    /** One labelled strip per fault, a bar wherever that fault was active. */
    private static void appendLanes(StringBuilder svg, List<Band> bands, List<String> lanes, int x0, int y0, int width, double end) {
        for (int i = 0; i < lanes.size(); i++) {
            String fault = lanes.get(i);
            int y = y0 + i * LANE;
            svg.append(String.format(Locale.ROOT, "<text x='%d' y='%d' font-size='9' text-anchor='end'>%s</text>", x0 - 4, y + LANE - 2, FAULT_LABEL.get(fault)));
            svg.append(String.format(Locale.ROOT, "<rect x='%d' y='%d' width='%d' height='%d' fill='#f4f4f4'/>", x0, y, width, LANE - 2));
            for (Band b : bands) {
                if (!b.fault().equals(fault)) continue;
                double x1 = x0 + width * b.from() / end;
                double x2 = x0 + width * b.to() / end;
                svg.append(String.format(Locale.ROOT, "<rect x='%.1f' y='%d' width='%.1f' height='%d' fill='%s'><title>%s %.1f–%.1f s</title></rect>",
                        x1, y, Math.max(1, x2 - x1), LANE - 2, b.color(), escape(FAULT_LABEL.get(fault)), b.from(), b.to()));
            }
        }
    }

    private static void appendTimeAxis(StringBuilder svg, int x0, int x1, int y, double end) {
        svg.append(String.format(Locale.ROOT, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#444'/>", x0, y, x1, y));
        double step = end <= 30 ? 5 : end <= 120 ? 10 : end <= 600 ? 60 : 300;
        for (double s = 0; s <= end; s += step) {
            double x = x0 + (x1 - x0) * s / end;
            svg.append(String.format(Locale.ROOT, "<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>%s s</text>", x, y + 14, fmt(s)));
        }
    }

    private static String legend() {
        return "<p style='font:12px sans-serif'>" + swatch(OK_COLOR, "ok") + swatch(FAIL_COLOR, "fail") + swatch(INFO_COLOR, "info (indeterminate)")
                + " — hover a point or bar for the operation</p>";
    }

    private static String swatch(String color, String label) {
        return "<span style='display:inline-block;width:12px;height:12px;background:" + color + ";margin:0 4px 0 12px'></span>" + escape(label);
    }

    private static String svgOpen(int w, int h) {
        return "<svg xmlns='http://www.w3.org/2000/svg' width='" + w + "' height='" + h + "' style='font-family:sans-serif'>";
    }

    private static String page(String title, String body) {
        return "<!DOCTYPE html><html><head><meta charset='utf-8'><title>" + escape(title) + "</title></head><body style='font-family:sans-serif'><h3>"
                + escape(title) + "</h3>" + body + "</body></html>\n";
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;").replace("\"", "&quot;");
    }
}
