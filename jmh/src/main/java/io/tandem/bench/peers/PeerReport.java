package io.tandem.bench.peers;

import io.tandem.bench.report.Csv;
import io.tandem.bench.report.LatencyChart;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.LinkedHashMap;

/**
 * The peer benchmark's output files: results.csv and slowdown.csv written row by row as trials
 * finish (an interrupted run keeps what it measured), then summary.csv, summary.md and the plots.
 */
final class PeerReport implements AutoCloseable {
    static final List<String> RESULTS_HEADER = List.of("run", "config", "value_size", "fsync", "system", "status", "seconds", "ops", "errors", "throughput",
            "mean_us", "p50_us", "p99_us", "p999_us", "max_us", "cpu_replicas_s", "cpu_load_s", "cpu_us_per_op", "leader_changes", "load_average", "note", "warmup_s", "jit_pct_of_cpu");
    static final List<String> SUMMARY_HEADER = List.of("config", "system", "runs", "ok_runs", "throughput", "mean_us", "p50_us", "p99_us", "p999_us", "max_us",
            "cpu_us_per_op", "errors", "vs_best_peer_system", "throughput_vs_best_peer", "p99_vs_best_peer", "throughput_vs_aeron", "p99_vs_aeron",
            "throughput_vs_unreplicated", "p99_vs_unreplicated");
    static final List<String> SLOWDOWN_HEADER = List.of("system", "fault", "fault_detail", "config", "status", "phase", "from_s", "to_s", "target_replica",
            "ops", "errors", "throughput", "mean_us", "p50_us", "p99_us", "p999_us", "max_us", "throughput_pct_of_healthy", "p99_pct_of_healthy",
            "leader_changes", "load_average", "note");

    private final Path dir;
    private final Csv results;
    private final Csv slowdown;

    PeerReport(Path dir) {
        this.dir = dir;
        this.results = Csv.create(dir.resolve("results.csv"), RESULTS_HEADER);
        this.slowdown = Csv.create(dir.resolve("slowdown.csv"), SLOWDOWN_HEADER);
    }

    void trial(Results.Trial r) {
        results.row(resultRow(r));
    }

    static Object[] resultRow(Results.Trial r) {
        Plan.Trial t = r.trial();
        Timeline.Window w = r.window();
        boolean has = w != null;
        return new Object[] {t.run(), t.config().id(), t.config().valueSize(), t.config().fsync(), t.system(), r.failed() ? "failed" : "ok",
                has ? w.seconds() : null, has ? w.ops() : null, has ? w.errors() : null, has ? w.throughput() : null, has ? w.meanMicros() : null,
                has ? w.p50Micros() : null, has ? w.p99Micros() : null, has ? w.p999Micros() : null, has ? w.maxMicros() : null,
                r.cpu().replicaSeconds(), r.cpu().loadSeconds(), r.cpuMicrosPerOp(), r.leaderChanges(), r.loadAverage(), r.note(),
                r.warmupSeconds() >= 0 ? r.warmupSeconds() : null, Double.isNaN(r.jitPercent()) ? null : r.jitPercent()};
    }

    void scenario(Results.Scenario sc) {
        for (Object[] row : slowdownRows(sc)) slowdown.row(row);
    }

    static List<Object[]> slowdownRows(Results.Scenario sc) {
        List<Object[]> rows = new ArrayList<>();
        if (sc.skipped() || sc.failed()) {
            rows.add(new Object[] {sc.system(), sc.kind(), sc.fault(), sc.config().id(), sc.skipped() ? "skipped" : "failed", null, null, null, null, null, null,
                    null, null, null, null, null, null, null, null, null, sc.loadAverage(), sc.note()});
            return rows;
        }
        for (Results.Phase p : sc.phases()) {
            Timeline.Window w = p.window();
            rows.add(new Object[] {sc.system(), sc.kind(), sc.fault(), sc.config().id(), "ok", p.phase().name(), p.phase().from(), p.phase().to(),
                    p.targetReplica() >= 0 ? p.targetReplica() : null, w.ops(), w.errors(), w.throughput(), w.meanMicros(), w.p50Micros(), w.p99Micros(),
                    w.p999Micros(), w.maxMicros(), p.throughputPercent(), p.p99Percent(), p.leaderChanges(), sc.loadAverage(), p.note()});
        }
        return rows;
    }

    /** Writes summary.csv, summary.md and the plots; returns the markdown. */
    String finish(List<Results.Trial> trials, List<Results.Scenario> scenarios, List<String> skipped, List<String> failures, String conditions) {
        List<PeerSummary.Cell> cells = PeerSummary.cells(trials);
        List<PeerSummary.Ratio> ratios = PeerSummary.ratios(cells);
        try (Csv summary = Csv.create(dir.resolve("summary.csv"), SUMMARY_HEADER)) {
            for (Object[] row : summaryRows(cells, ratios)) summary.row(row);
        }
        String md = PeerSummary.markdown(cells, ratios, scenarios, skipped, failures, conditions);
        try {
            Files.writeString(dir.resolve("summary.md"), md);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write summary.md: " + e.getMessage(), e);
        }
        plots(trials, cells, scenarios);
        return md;
    }

    static List<Object[]> summaryRows(List<PeerSummary.Cell> cells, List<PeerSummary.Ratio> ratios) {
        List<Object[]> rows = new ArrayList<>();
        for (PeerSummary.Cell c : cells) {
            PeerSummary.Ratio best = find(ratios, c, "best peer"), aeron = find(ratios, c, SystemCatalog.AERON), unrep = find(ratios, c, "unreplicated");
            rows.add(new Object[] {c.config().id(), c.system(), c.runs(), c.okRuns(), c.throughput(), c.meanMicros(), c.p50Micros(), c.p99Micros(),
                    c.p999Micros(), c.maxMicros(), c.cpuMicrosPerOp(), c.errors(), best == null ? null : best.referenceSystem(),
                    best == null ? null : best.throughputRatio(), best == null ? null : best.p99Ratio(), aeron == null ? null : aeron.throughputRatio(),
                    aeron == null ? null : aeron.p99Ratio(), unrep == null ? null : unrep.throughputRatio(), unrep == null ? null : unrep.p99Ratio()});
        }
        return rows;
    }

    private static PeerSummary.Ratio find(List<PeerSummary.Ratio> ratios, PeerSummary.Cell c, String reference) {
        return ratios.stream().filter(r -> r.config().equals(c.config()) && r.engine().equals(c.system()) && r.reference().equals(reference))
                .findFirst().orElse(null);
    }

    private void plots(List<Results.Trial> trials, List<PeerSummary.Cell> cells, List<Results.Scenario> scenarios) {
        for (Config c : cells.stream().map(PeerSummary.Cell::config).distinct().toList()) {
            List<PeerCharts.Bar> bars = new ArrayList<>();
            for (PeerSummary.Cell cell : cells) {
                if (!cell.config().equals(c)) continue;
                double[] tps = trials.stream().filter(t -> !t.failed() && t.trial().config().equals(c) && t.trial().system().equals(cell.system()))
                        .mapToDouble(t -> t.window().throughput()).toArray();
                double lo = java.util.Arrays.stream(tps).min().orElse(Double.NaN), hi = java.util.Arrays.stream(tps).max().orElse(Double.NaN);
                bars.add(new PeerCharts.Bar(cell.system(), cell.throughput(), lo, hi));
            }
            LatencyChart.writePng(PeerCharts.throughputBars("Throughput, " + PeerSummary.describe(c), bars), dir.resolve("throughput-" + c.id() + ".png"));
        }
        Map<Slowdown.Kind, List<LatencyChart.Panel>> byKind = new LinkedHashMap<>();
        for (Results.Scenario sc : scenarios) {
            if (sc.skipped() || sc.failed() || sc.p99Micros().length == 0) continue;
            byKind.computeIfAbsent(sc.kind(), k -> new ArrayList<>()).add(PeerCharts.latencyPanel(sc));
        }
        for (Map.Entry<Slowdown.Kind, List<LatencyChart.Panel>> e : byKind.entrySet()) {
            String fault = scenarios.stream().filter(sc -> sc.kind() == e.getKey()).findFirst().map(Results.Scenario::fault).orElse("");
            LatencyChart.writePng(LatencyChart.render("Slowdown: " + fault, e.getValue(), 2,
                    PeerCharts.latencyLegend()), dir.resolve("latency-" + e.getKey() + ".png"));
        }
    }

    @Override
    public void close() {
        results.close();
        slowdown.close();
    }
}
