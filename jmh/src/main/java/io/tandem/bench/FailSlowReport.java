package io.tandem.bench;

import io.tandem.bench.report.Csv;
import io.tandem.bench.report.LatencyChart;
import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes what the benchmark measured into its output directory: {@code windows.csv} (one row per
 * measurement window) and {@code timeline.csv} (every second of every cluster's run) while the
 * benchmark runs, then {@code summary.csv}, {@code summary.md} and {@code latency-over-time.png}.
 */
final class FailSlowReport implements FailSlowRunner.Sink, AutoCloseable {
    private static final Color[] RUN_COLORS = {new Color(31, 119, 180), new Color(255, 127, 14), new Color(44, 160, 44),
            new Color(148, 103, 189), new Color(140, 86, 75), new Color(227, 119, 194)};

    private final Path dir;
    private final Csv windows;
    private final Csv timeline;

    FailSlowReport(Path dir) {
        this.dir = dir;
        this.windows = Csv.create(dir.resolve("windows.csv"), List.of("scenario", "cluster_size", "slowness", "slow_followers", "run", "window", "start_tick", "leader",
                "slow_nodes", "window_s", "ops", "errors", "throughput_ops_s", "mean_ms", "p50_ms", "p99_ms", "p999_ms", "max_ms",
                "leader_heap_mean_mib", "leader_heap_max_mib", "leader_heap_slope_mib_per_min", "leader_live_start_mib", "leader_live_end_mib",
                "resends", "warnings", "warnings_by_kind", "background_messages", "commit_overdue", "commit_wait_ms", "leader_cpu_pct",
                "followers_cpu_pct", "slow_cpu_pct", "client_cpu_pct", "leader_changed", "catch_up_s", "load_avg", "failure"));
        this.timeline = Csv.create(dir.resolve("timeline.csv"), List.of("cluster_size", "run", "second", "end_time", "phase", "ops", "mean_ms", "p99_ms",
                "max_ms", "errors", "leader_heap_mib", "leader_resends_total", "leader_warnings_total"));
    }

    /** Appends one finished window to windows.csv. */
    @Override
    public void window(WindowResult r) {
        windows.row(r.scenario().id(), r.scenario().clusterSize(), r.scenario().slowness().describe(), r.scenario().slowFollowers(), r.run(),
                r.window(), r.startTick(), r.leader(), String.join(" ", r.slowNodes()), r.windowSeconds(), r.ops(), r.errors(), r.throughput(), r.meanMs(), r.p50Ms(),
                r.p99Ms(), r.p999Ms(), r.maxMs(), r.heapMeanMiB(), r.heapMaxMiB(), r.heapSlopeMiBPerMin(), r.liveStartMiB(), r.liveEndMiB(),
                r.resends(), r.failed() ? Double.NaN : r.warnings(), Summary.warnings(r.warningsByKind()), r.backgroundMessages(),
                r.commitOverdue(), r.commitWaitMs(), r.leaderCpuPercent(), r.cpuPercent().getOrDefault("followers", Double.NaN),
                r.cpuPercent().getOrDefault("slow", Double.NaN), r.cpuPercent().getOrDefault("client", Double.NaN), r.leaderChanged(),
                r.catchUpSeconds(), r.loadAverage(), r.failure());
    }

    /** Appends the timeline of one cluster's run to timeline.csv. */
    @Override
    public void session(int clusterSize, int run, List<WindowResult.Second> seconds) {
        for (WindowResult.Second s : seconds) {
            timeline.row(clusterSize, run, s.second(), java.time.Instant.ofEpochMilli(s.endEpochMillis()), s.phase(), s.ops(), s.meanMs(), s.p99Ms(), s.maxMs(), s.errors(),
                    s.leaderHeapMiB(), s.resends(), s.warnings());
        }
    }

    /** Writes summary.csv, summary.md (with {@code conditions} above the table) and the plot; returns the Markdown. */
    String finish(List<WindowResult> results, int settleSeconds, int measureSeconds, String conditions) {
        List<Summary.Row> rows = Summary.of(results, settleSeconds, measureSeconds);
        try (Csv csv = Csv.create(dir.resolve("summary.csv"), List.of("scenario", "description", "runs", "failed_runs", "throughput_ops_s",
                "throughput_pct", "mean_ms", "mean_pct", "p99_ms", "p99_pct", "leader_heap_mean_mib", "leader_heap_pct", "leader_live_growth_mib", "leader_live_growth_beyond_healthy_mib",
                "leader_cpu_pct", "resends", "warnings", "warnings_by_kind", "leader_changes", "errors", "commit_wait_ms",
                "throughput_vs_stop_pct", "p99_vs_stop_pct", "catch_up_s", "result"))) {
            for (Summary.Row r : rows) {
                csv.row(r.scenario().id(), r.scenario().describe(), r.runs(), r.failedRuns(), r.throughput(), r.throughputPercent(), r.meanMs(),
                        r.meanPercent(), r.p99Ms(), r.p99Percent(), r.heapMeanMiB(), r.heapPercent(), r.liveGrowthMiB(), r.extraLiveGrowthMiB(), r.leaderCpuPercent(),
                        r.resends(), r.warnings(), Summary.warnings(r.warningsByKind()), r.leaderChanges(), r.errors(), r.commitWaitMs(),
                        r.throughputVsStopPercent(), r.p99VsStopPercent(), r.catchUpSeconds(), r.verdict());
            }
        }
        String md = conditions + "\n" + Summary.markdown(rows);
        try {
            Files.writeString(dir.resolve("summary.md"), md, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (results.stream().anyMatch(r -> !r.failed())) {
            LatencyChart.writePng(chart(results, settleSeconds), dir.resolve("latency-over-time.png"));
        }
        return md;
    }

    static java.awt.image.BufferedImage chart(List<WindowResult> results, int settleSeconds) {
        Map<String, List<WindowResult>> byScenario = new LinkedHashMap<>();
        for (WindowResult r : results) if (!r.failed()) byScenario.computeIfAbsent(r.scenario().id(), k -> new ArrayList<>()).add(r);
        List<LatencyChart.Panel> panels = new ArrayList<>();
        int maxRun = 0;
        for (List<WindowResult> rs : byScenario.values()) {
            List<LatencyChart.Series> series = new ArrayList<>();
            for (WindowResult r : rs) {
                maxRun = Math.max(maxRun, r.run());
                Color c = RUN_COLORS[(r.run() - 1) % RUN_COLORS.length];
                int n = r.timeline().size();
                double[] x = new double[n], p99 = new double[n], mean = new double[n];
                for (int i = 0; i < n; i++) {
                    WindowResult.Second s = r.timeline().get(i);
                    x[i] = s.second() + 1; // the tick covering [t, t+1) is drawn at its end
                    p99[i] = s.p99Ms();
                    mean[i] = s.meanMs();
                }
                series.add(new LatencyChart.Series("run " + r.run() + " p99", c, false, x, p99));
                series.add(new LatencyChart.Series("run " + r.run() + " mean", c, true, x, mean));
            }
            Scenario s = rs.getFirst().scenario();
            int measure = rs.getFirst().windowSeconds();
            panels.add(new LatencyChart.Panel(s.describe(), series, s.isHealthy() ? Double.NaN : 0, settleSeconds, settleSeconds + measure));
        }
        List<LatencyChart.LegendEntry> legend = new ArrayList<>();
        legend.add(new LatencyChart.LegendEntry("p99 per second", Color.GRAY, false));
        legend.add(new LatencyChart.LegendEntry("mean per second", Color.GRAY, true));
        for (int run = 1; run <= maxRun; run++) legend.add(new LatencyChart.LegendEntry("run " + run, RUN_COLORS[(run - 1) % RUN_COLORS.length], false));
        legend.add(new LatencyChart.LegendEntry("fault applied", new Color(200, 60, 60), true));
        legend.add(new LatencyChart.LegendEntry("shaded: measurement window", new Color(235, 242, 250), false));
        return LatencyChart.render("Fail-slow benchmark: client put latency per second around each window (log scale; x: seconds since the fault)",
                panels, 2, legend);
    }

    @Override
    public void close() {
        windows.close();
        timeline.close();
    }
}
