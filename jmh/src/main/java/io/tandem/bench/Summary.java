package io.tandem.bench;

import io.tandem.bench.report.Stats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The medians over the windows of each scenario. Each fault window is compared with the healthy
 * windows right before and after it on the same cluster (the mean of the two), which cancels the
 * drift of a machine whose load changes and of JVMs that keep getting faster; the percentages are
 * the medians of those per-window ratios over the runs. They are checked against the fail-slow
 * target: throughput at least 95 % and p99 at most 110 % of healthy, and the leader's live heap
 * flat (growing no more than around the neighbouring healthy windows, plus 1 MiB per minute, at
 * least 2 MiB).
 */
final class Summary {
    static final double MIN_THROUGHPUT_PERCENT = 95;
    static final double MAX_P99_PERCENT = 110;
    /** Live-heap growth over a window allowed beyond the neighbouring healthy windows', per minute of window (DepFast spec §7.5). */
    static final double FLAT_HEAP_MIB_PER_MINUTE = 1;
    /**
     * The least growth allowed whatever the window length: the leader's live heap swings by about
     * 1.5 MiB with the Raft log between two snapshots (10,000 entries of ~150 bytes are kept until a
     * snapshot compacts them), so a short window cannot resolve less.
     */
    static final double FLAT_HEAP_FLOOR_MIB = 2;

    /**
     * One scenario's medians (absolute) and the medians of its per-window ratios to the neighbouring
     * healthy windows (percent); {@code extraLiveGrowthMiB} is the leader's live-heap growth beyond
     * theirs. The fail-stop columns divide this scenario's ratios by the fail-stop scenario's.
     */
    record Row(Scenario scenario, int runs, int failedRuns, double throughput, double throughputPercent, double meanMs, double meanPercent,
               double p99Ms, double p99Percent, double heapMeanMiB, double heapPercent, double liveGrowthMiB, double extraLiveGrowthMiB,
               double resends, Map<String, Double> warningsByKind, Map<String, Double> maxWarningsByKind, int leaderChanges,
               double leaderCpuPercent, double catchUpSeconds, long errors, double commitWaitMs, double throughputVsStopPercent, double p99VsStopPercent, String verdict) {
        double warnings() {
            return warningsByKind.values().stream().mapToDouble(Double::doubleValue).sum();
        }
    }

    /** A fault window's ratios to its healthy neighbours. */
    private record Relative(double throughput, double mean, double p99, double heap, double extraLiveGrowth) {}

    private Summary() {}

    /** One row per scenario, in the order scenarios first appear in {@code results}; {@code runs} counts windows. */
    static List<Row> of(List<WindowResult> results, int settleSeconds, int measureSeconds) {
        Map<String, List<WindowResult>> byScenario = new LinkedHashMap<>();
        Map<String, WindowResult> byPosition = new HashMap<>();
        for (WindowResult r : results) {
            byScenario.computeIfAbsent(r.scenario().id(), k -> new ArrayList<>()).add(r);
            byPosition.put(position(r.scenario().clusterSize(), r.run(), r.window()), r);
        }
        Map<String, Relative> relative = new HashMap<>();
        for (List<WindowResult> rs : byScenario.values()) {
            if (!rs.getFirst().scenario().isHealthy()) relative.put(rs.getFirst().scenario().id(), relativeMedians(rs, byPosition));
        }
        double windowMinutes = (settleSeconds + measureSeconds) / 60.0;
        List<Row> rows = new ArrayList<>();
        for (List<WindowResult> rs : byScenario.values()) {
            Scenario s = rs.getFirst().scenario();
            Medians m = Medians.of(rs);
            Relative rel = relative.get(s.id());
            Relative stop = s.isHealthy() || s.slowness() instanceof Slowness.Stopped ? null
                    : relative.get(new Scenario(s.clusterSize(), new Slowness.Stopped(), s.slowFollowers()).id());
            double n = Double.NaN;
            rows.add(new Row(s, m.runs, m.failed, m.throughput, rel == null ? n : rel.throughput, m.meanMs, rel == null ? n : rel.mean,
                    m.p99Ms, rel == null ? n : rel.p99, m.heapMeanMiB, rel == null ? n : rel.heap, m.liveGrowthMiB, rel == null ? n : rel.extraLiveGrowth,
                    m.resends, m.warningsByKind, m.maxWarningsByKind, m.leaderChanges, m.leaderCpu, m.catchUp, m.errors, m.commitWait,
                    stop == null ? n : Stats.percentOf(rel.throughput, stop.throughput), stop == null ? n : Stats.percentOf(rel.p99, stop.p99),
                    verdict(s, m, rel, windowMinutes)));
        }
        return rows;
    }

    private static String position(int clusterSize, int run, int window) {
        return clusterSize + "/" + run + "/" + window;
    }

    /** The medians over a fault scenario's windows of their ratios to the healthy windows next to them. */
    private static Relative relativeMedians(List<WindowResult> windows, Map<String, WindowResult> byPosition) {
        List<Double> tp = new ArrayList<>(), mean = new ArrayList<>(), p99 = new ArrayList<>(), heap = new ArrayList<>(), live = new ArrayList<>();
        for (WindowResult r : windows) {
            if (r.failed()) continue;
            List<WindowResult> refs = new ArrayList<>();
            for (int w : new int[] {r.window() - 1, r.window() + 1}) {
                WindowResult h = byPosition.get(position(r.scenario().clusterSize(), r.run(), w));
                if (h != null && h.scenario().isHealthy() && !h.failed()) refs.add(h);
            }
            if (refs.isEmpty()) continue;
            tp.add(Stats.percentOf(r.throughput(), refs.stream().mapToDouble(WindowResult::throughput).average().orElse(Double.NaN)));
            mean.add(Stats.percentOf(r.meanMs(), refs.stream().mapToDouble(WindowResult::meanMs).average().orElse(Double.NaN)));
            p99.add(Stats.percentOf(r.p99Ms(), refs.stream().mapToDouble(WindowResult::p99Ms).average().orElse(Double.NaN)));
            heap.add(Stats.percentOf(r.heapMeanMiB(), refs.stream().mapToDouble(WindowResult::heapMeanMiB).average().orElse(Double.NaN)));
            live.add(r.liveGrowthMiB() - refs.stream().mapToDouble(WindowResult::liveGrowthMiB).average().orElse(Double.NaN));
        }
        return new Relative(Stats.median(tp), Stats.median(mean), Stats.median(p99), Stats.median(heap), Stats.median(live));
    }

    private static String verdict(Scenario s, Medians m, Relative rel, double windowMinutes) {
        if (s.isHealthy()) return "reference";
        if (m.runs == 0) return "no successful run";
        if (rel == null || Double.isNaN(rel.throughput)) return "no healthy neighbour";
        List<String> misses = new ArrayList<>();
        if (!(rel.throughput >= MIN_THROUGHPUT_PERCENT)) misses.add(String.format(Locale.ROOT, "throughput %.0f%%", rel.throughput));
        if (!(rel.p99 <= MAX_P99_PERCENT)) misses.add(String.format(Locale.ROOT, "p99 %.0f%%", rel.p99));
        double allowed = Math.max(FLAT_HEAP_FLOOR_MIB, FLAT_HEAP_MIB_PER_MINUTE * windowMinutes);
        if (!Double.isNaN(rel.extraLiveGrowth) && rel.extraLiveGrowth > allowed) {
            misses.add(String.format(Locale.ROOT, "live heap +%.1f MiB", rel.extraLiveGrowth));
        }
        if (m.leaderChanges > 0) misses.add(m.leaderChanges + " leader change(s)");
        String expected = s.toleratedByDesign() ? "" : " (expected: a majority is slow)";
        return misses.isEmpty() ? "meets target" + expected : "misses: " + String.join(", ", misses) + expected;
    }

    /** Medians over the successful runs of one scenario. */
    private record Medians(int runs, int failed, double throughput, double meanMs, double p99Ms, double heapMeanMiB, double liveGrowthMiB,
                           double resends, Map<String, Double> warningsByKind, Map<String, Double> maxWarningsByKind, int leaderChanges,
                           double leaderCpu, double catchUp, long errors,
                           double commitWait) {
        static Medians of(List<WindowResult> all) {
            List<WindowResult> ok = all.stream().filter(r -> !r.failed()).toList();
            TreeSet<String> kinds = new TreeSet<>();
            ok.forEach(r -> kinds.addAll(r.warningsByKind().keySet()));
            Map<String, Double> warnings = new TreeMap<>();
            Map<String, Double> maxWarnings = new TreeMap<>();
            for (String k : kinds) {
                List<Double> counts = ok.stream().map(r -> r.warningsByKind().getOrDefault(k, 0.0)).toList();
                warnings.put(k, Stats.median(counts));
                maxWarnings.put(k, counts.stream().mapToDouble(Double::doubleValue).max().orElse(0));
            }
            return new Medians(ok.size(), all.size() - ok.size(),
                    Stats.median(ok.stream().map(WindowResult::throughput).toList()),
                    Stats.median(ok.stream().map(WindowResult::meanMs).toList()),
                    Stats.median(ok.stream().map(WindowResult::p99Ms).toList()),
                    Stats.median(ok.stream().map(WindowResult::heapMeanMiB).toList()),
                    Stats.median(ok.stream().map(WindowResult::liveGrowthMiB).toList()),
                    Stats.median(ok.stream().map(WindowResult::resends).toList()),
                    warnings, maxWarnings,
                    (int) ok.stream().filter(WindowResult::leaderChanged).count(),
                    Stats.median(ok.stream().map(WindowResult::leaderCpuPercent).toList()),
                    Stats.median(ok.stream().map(WindowResult::catchUpSeconds).toList()),
                    ok.stream().mapToLong(WindowResult::errors).sum(),
                    Stats.median(ok.stream().map(WindowResult::commitWaitMs).toList()));
        }
    }

    /** The summary as a Markdown table (what docs/raft.md shows). */
    static String markdown(List<Row> rows) {
        StringBuilder s = new StringBuilder();
        s.append("| scenario | windows | throughput (ops/s) | throughput % | mean (ms) | mean % | p99 (ms) | p99 % | commit wait (ms) | vs fail-stop (throughput / p99) | leader heap (MiB, mean in use) | leader live heap growth (MiB; beyond healthy) | leader CPU (% of a core) | resends | slowness warnings | catch-up (s) | result |\n");
        s.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Row r : rows) {
            s.append("| ").append(r.scenario().describe())
                    .append(" | ").append(r.runs()).append(r.failedRuns() > 0 ? " (+" + r.failedRuns() + " failed)" : "")
                    .append(" | ").append(num(r.throughput(), 0))
                    .append(" | ").append(pct(r.throughputPercent()))
                    .append(" | ").append(num(r.meanMs(), 2))
                    .append(" | ").append(pct(r.meanPercent()))
                    .append(" | ").append(num(r.p99Ms(), 2))
                    .append(" | ").append(pct(r.p99Percent()))
                    .append(" | ").append(num(r.commitWaitMs(), 2))
                    .append(" | ").append(Double.isNaN(r.throughputVsStopPercent()) ? "" : pct(r.throughputVsStopPercent()) + " / " + pct(r.p99VsStopPercent()))
                    .append(" | ").append(num(r.heapMeanMiB(), 0)).append(Double.isNaN(r.heapPercent()) || r.scenario().isHealthy() ? "" : " (" + pct(r.heapPercent()) + ")")
                    .append(" | ").append(signed(r.liveGrowthMiB())).append(r.scenario().isHealthy() ? "" : " (" + signed(r.extraLiveGrowthMiB()) + ")")
                    .append(" | ").append(num(r.leaderCpuPercent(), 0))
                    .append(" | ").append(num(r.resends(), 0))
                    .append(" | ").append(warnings(r.warningsByKind(), r.maxWarningsByKind()))
                    .append(" | ").append(r.scenario().isHealthy() ? "" : num(r.catchUpSeconds(), 1))
                    .append(" | ").append(r.verdict())
                    .append(" |\n");
        }
        return s.toString();
    }

    static String warnings(Map<String, Double> byKind) {
        return warnings(byKind, Map.of());
    }

    /** "14 same-quorum, 0 resend-storm (max 1)": the median count of each kind, and the largest when it differs. */
    static String warnings(Map<String, Double> byKind, Map<String, Double> maxByKind) {
        if (byKind.isEmpty()) return "0";
        StringBuilder s = new StringBuilder();
        byKind.forEach((k, v) -> {
            s.append(s.isEmpty() ? "" : ", ").append(num(v, 0)).append(' ').append(k);
            Double max = maxByKind.get(k);
            if (max != null && max > v) s.append(" (max ").append(num(max, 0)).append(')');
        });
        return s.toString();
    }

    private static String num(double v, int decimals) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    private static String pct(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.0f%%", v);
    }

    private static String signed(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%+.1f", v);
    }
}
