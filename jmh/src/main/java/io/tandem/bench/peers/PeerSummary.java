package io.tandem.bench.peers;

import io.tandem.bench.report.Stats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Medians over runs and the ratios the issue asks for: each Tandem engine against the best of the
 * replicated peers (Ratis, jgroups-raft, SOFAJRaft), against Aeron Cluster, and against the
 * unreplicated Tandem server (the practical upper bound), per configuration.
 */
final class PeerSummary {
    /** The medians of one system under one configuration over its successful runs. */
    record Cell(Config config, String system, int runs, int okRuns, double throughput, double meanMicros, double p50Micros, double p99Micros,
                double p999Micros, double maxMicros, double cpuMicrosPerOp, long errors) {}

    /**
     * An engine's median throughput and p99 divided by those of a reference system: throughput
     * ratios above 1 and p99 ratios below 1 favour the engine.
     *
     * @param reference what the engine is compared with: "best peer", "aeron-cluster" or "unreplicated"
     * @param referenceSystem the system that reference stood for in this configuration (the best peer varies)
     */
    record Ratio(Config config, String engine, String reference, String referenceSystem, double throughputRatio, double p99Ratio) {}

    private PeerSummary() {}

    /** One cell per configuration and system, in the order they first appear. */
    static List<Cell> cells(List<Results.Trial> trials) {
        Map<String, List<Results.Trial>> groups = new LinkedHashMap<>();
        for (Results.Trial t : trials) groups.computeIfAbsent(t.trial().config().id() + "|" + t.trial().system(), k -> new ArrayList<>()).add(t);
        List<Cell> cells = new ArrayList<>();
        for (List<Results.Trial> g : groups.values()) {
            List<Results.Trial> ok = g.stream().filter(t -> !t.failed()).toList();
            Plan.Trial first = g.getFirst().trial();
            cells.add(new Cell(first.config(), first.system(), g.size(), ok.size(), median(ok, t -> t.window().throughput()),
                    median(ok, t -> t.window().meanMicros()), median(ok, t -> t.window().p50Micros()), median(ok, t -> t.window().p99Micros()),
                    median(ok, t -> t.window().p999Micros()), median(ok, t -> t.window().maxMicros()), median(ok, Results.Trial::cpuMicrosPerOp),
                    ok.stream().mapToLong(t -> t.window().errors()).sum()));
        }
        return cells;
    }

    private static double median(List<Results.Trial> trials, ToDoubleFunction<Results.Trial> f) {
        return Stats.median(trials.stream().map(t -> f.applyAsDouble(t)).toList());
    }

    /** The ratios of every Tandem engine measured, per configuration, to each reference that was measured too. */
    static List<Ratio> ratios(List<Cell> cells) {
        List<Ratio> out = new ArrayList<>();
        List<Config> configs = cells.stream().map(Cell::config).distinct().toList();
        for (Config c : configs) {
            Map<String, Cell> bySystem = new LinkedHashMap<>();
            for (Cell cell : cells) if (cell.config().equals(c) && !Double.isNaN(cell.throughput())) bySystem.put(cell.system(), cell);
            Cell bestPeer = SystemCatalog.RAFT_PEERS.stream().map(bySystem::get).filter(x -> x != null)
                    .max(Comparator.comparingDouble(Cell::throughput)).orElse(null);
            Cell aeron = bySystem.get(SystemCatalog.AERON);
            Cell unreplicated = bySystem.get(SystemCatalog.TANDEM_UNREPLICATED);
            for (String engine : SystemCatalog.TANDEM_ENGINES) {
                Cell e = bySystem.get(engine);
                if (e == null) continue;
                if (bestPeer != null) out.add(ratio(c, e, "best peer", bestPeer));
                if (aeron != null) out.add(ratio(c, e, SystemCatalog.AERON, aeron));
                if (unreplicated != null) out.add(ratio(c, e, "unreplicated", unreplicated));
            }
        }
        return out;
    }

    private static Ratio ratio(Config c, Cell engine, String reference, Cell ref) {
        return new Ratio(c, engine.system(), reference, ref.system(), div(engine.throughput(), ref.throughput()), div(engine.p99Micros(), ref.p99Micros()));
    }

    static double div(double a, double b) {
        if (Double.isNaN(a) || Double.isNaN(b) || b == 0) return Double.NaN;
        return a / b;
    }

    /** The markdown summary: per configuration a table of medians, then the ratios, then the slowdown scenarios. */
    static String markdown(List<Cell> cells, List<Ratio> ratios, List<Results.Scenario> scenarios, List<String> skipped, List<String> failures,
                           String conditions) {
        StringBuilder md = new StringBuilder("# Cluster benchmark against peers\n\n");
        md.append(conditions).append('\n');
        for (Config c : cells.stream().map(Cell::config).distinct().toList()) {
            md.append("## ").append(describe(c)).append("\n\n");
            md.append("| system | ok runs | throughput (puts/s) | mean (ms) | p50 (ms) | p99 (ms) | p99.9 (ms) | max (ms) | CPU (µs/op) | errors |\n");
            md.append("|---|---|---|---|---|---|---|---|---|---|\n");
            for (Cell cell : cells) {
                if (!cell.config().equals(c)) continue;
                md.append("| ").append(cell.system()).append(" | ").append(cell.okRuns()).append('/').append(cell.runs()).append(" | ")
                        .append(num(cell.throughput(), 0)).append(" | ").append(ms(cell.meanMicros())).append(" | ").append(ms(cell.p50Micros()))
                        .append(" | ").append(ms(cell.p99Micros())).append(" | ").append(ms(cell.p999Micros())).append(" | ").append(ms(cell.maxMicros()))
                        .append(" | ").append(num(cell.cpuMicrosPerOp(), 1)).append(" | ").append(cell.errors()).append(" |\n");
            }
            md.append('\n');
        }
        if (!ratios.isEmpty()) {
            md.append("## Ratios (medians; throughput > 1 and p99 < 1 favour the Tandem engine)\n\n");
            md.append("| configuration | engine | compared with | throughput ratio | p99 ratio |\n|---|---|---|---|---|\n");
            for (Ratio r : ratios) {
                String ref = r.reference().equals(r.referenceSystem()) ? r.reference() : r.reference() + " (" + r.referenceSystem() + ")";
                md.append("| ").append(r.config().id()).append(" | ").append(r.engine()).append(" | ").append(ref).append(" | ")
                        .append(num(r.throughputRatio(), 2)).append(" | ").append(num(r.p99Ratio(), 2)).append(" |\n");
            }
            md.append('\n');
        }
        if (!scenarios.isEmpty()) md.append(slowdownMarkdown(scenarios));
        if (!skipped.isEmpty()) {
            md.append("## Skipped\n\n");
            for (String s : skipped) md.append("- ").append(s).append('\n');
            md.append('\n');
        }
        if (!failures.isEmpty()) {
            md.append("## Failures\n\n");
            for (String f : failures) md.append("- ").append(f.lines().findFirst().orElse("")).append('\n');
            md.append("\n(full messages with log tails in results.csv / slowdown.csv and logs/)\n");
        }
        return md.toString();
    }

    /** The slowdown table: per system and fault, throughput and p99 in the slow windows as % of the neighbouring healthy windows. */
    static String slowdownMarkdown(List<Results.Scenario> scenarios) {
        StringBuilder md = new StringBuilder("## Slowdown (slow window as % of the neighbouring healthy windows)\n\n");
        md.append("| system | fault | healthy puts/s | follower slow: throughput | p99 | leader slow: throughput | p99 | leader changes | note |\n");
        md.append("|---|---|---|---|---|---|---|---|---|\n");
        for (Results.Scenario s : scenarios) {
            md.append("| ").append(s.system()).append(" | ").append(s.kind());
            if (s.skipped() || s.failed()) {
                md.append(" | | | | | | | ").append(s.skipped() ? "skipped: " : "failed: ").append(oneLine(s.note())).append(" |\n");
                continue;
            }
            Results.Phase follower = find(s, Slowdown.Target.follower), leader = find(s, Slowdown.Target.leader);
            double healthy = Stats.mean(s.phases().stream().filter(p -> p.phase().target() == Slowdown.Target.none && !p.phase().warmup())
                    .mapToDouble(p -> p.window().throughput()).toArray());
            int changes = s.phases().stream().filter(p -> !p.phase().warmup()).mapToInt(Results.Phase::leaderChanges).sum();
            md.append(" | ").append(num(healthy, 0)).append(" | ").append(pct(follower, true)).append(" | ").append(pct(follower, false))
                    .append(" | ").append(pct(leader, true)).append(" | ").append(pct(leader, false)).append(" | ").append(changes).append(" | ")
                    .append(oneLine(s.note())).append(" |\n");
        }
        return md.append('\n').toString();
    }

    private static Results.Phase find(Results.Scenario s, Slowdown.Target target) {
        return s.phases().stream().filter(p -> p.phase().target() == target).findFirst().orElse(null);
    }

    private static String pct(Results.Phase p, boolean throughput) {
        if (p == null) return "n/a";
        if (p.targetReplica() < 0) return "not applied";
        double v = throughput ? p.throughputPercent() : p.p99Percent();
        return Double.isNaN(v) ? "" : num(v, 0) + " %";
    }

    static String describe(Config c) {
        return (c.valueSize() >= 1024 && c.valueSize() % 1024 == 0 ? c.valueSize() / 1024 + " KiB" : c.valueSize() + " B") + " values, fsync "
                + (c.fsync() ? "on" : "off") + " (" + c.id() + ")";
    }

    static String ms(double micros) {
        return Double.isNaN(micros) ? "" : num(micros / 1000, micros < 10_000 ? 2 : 1);
    }

    static String num(double v, int decimals) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "" : String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    private static String oneLine(String s) {
        if (s == null) return "";
        String l = s.lines().findFirst().orElse("").replace("|", "/");
        return l.length() <= 160 ? l : l.substring(0, 157) + "...";
    }
}
