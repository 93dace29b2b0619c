package io.tandem.bench.peers;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.bench.report.LatencyChart;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PeerSummaryTest {
    static final Config SMALL = new Config(64, false);
    static final Config FSYNC = new Config(64, true);

    static Results.Trial trial(int run, Config c, String system, double throughput, double p99) {
        Timeline.Window w = new Timeline.Window(10, 10, (long) (throughput * 10), 1, throughput, p99 / 4, p99 / 5, p99, p99 * 2, p99 * 3);
        return new Results.Trial(new Plan.Trial(run, c, system), false, "", w, new CpuAccount.Usage(throughput * 10 * 80e-6, throughput * 10 * 20e-6), 0, 3.5);
    }

    static List<Results.Trial> trials() {
        List<Results.Trial> t = new ArrayList<>();
        double[][] raft = {{1000, 900}, {1200, 800}, {1100, 1000}};
        for (int run = 1; run <= 3; run++) {
            t.add(trial(run, SMALL, "tandem-raft", raft[run - 1][0], raft[run - 1][1]));
            t.add(trial(run, SMALL, "ratis", 500 + run, 2000));
            t.add(trial(run, SMALL, "sofajraft", 800, 1000));
            t.add(trial(run, SMALL, "aeron-cluster", 2000, 400));
            t.add(trial(run, SMALL, "tandem-unreplicated", 4000, 300));
        }
        t.add(Results.Trial.failure(new Plan.Trial(1, FSYNC, "tandem-raft"), "no single LEADER\nlog tail", 4));
        t.add(trial(1, FSYNC, "ratis", 100, 20_000));
        return t;
    }

    @Test
    void cellsAreMediansOverSuccessfulRuns() {
        List<PeerSummary.Cell> cells = PeerSummary.cells(trials());
        PeerSummary.Cell raft = cells.getFirst();
        assertThat(raft.system()).isEqualTo("tandem-raft");
        assertThat(raft.okRuns()).isEqualTo(3);
        assertThat(raft.throughput()).isEqualTo(1100);
        assertThat(raft.p99Micros()).isEqualTo(900);
        assertThat(raft.cpuMicrosPerOp()).isEqualTo(100.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(raft.errors()).isEqualTo(3);
        PeerSummary.Cell failed = cells.stream().filter(c -> c.config().equals(FSYNC) && c.system().equals("tandem-raft")).findFirst().orElseThrow();
        assertThat(failed.runs()).isEqualTo(1);
        assertThat(failed.okRuns()).isZero();
        assertThat(failed.throughput()).isNaN();
    }

    @Test
    void ratiosUseTheBestPeerAeronAndTheUnreplicatedBound() {
        List<PeerSummary.Ratio> r = PeerSummary.ratios(PeerSummary.cells(trials()));
        assertThat(r).hasSize(3); // only tandem-raft under 64B-nofsync; the failed fsync cell has no ratios
        PeerSummary.Ratio best = r.getFirst();
        assertThat(best.reference()).isEqualTo("best peer");
        assertThat(best.referenceSystem()).isEqualTo("sofajraft"); // 800 puts/s beats ratis' 502
        assertThat(best.throughputRatio()).isEqualTo(1100.0 / 800);
        assertThat(best.p99Ratio()).isEqualTo(0.9);
        assertThat(r.get(1).referenceSystem()).isEqualTo("aeron-cluster");
        assertThat(r.get(1).throughputRatio()).isEqualTo(0.55);
        assertThat(r.get(2).reference()).isEqualTo("unreplicated");
        assertThat(r.get(2).throughputRatio()).isEqualTo(1100.0 / 4000);
        assertThat(PeerSummary.div(1, 0)).isNaN();
    }

    @Test
    void markdownHasATablePerConfigurationRatiosSkipsAndFailures() {
        List<Results.Trial> t = trials();
        List<PeerSummary.Cell> cells = PeerSummary.cells(t);
        String md = PeerSummary.markdown(cells, PeerSummary.ratios(cells), List.of(), List.of("jgroups-raft: no jar at peers/jgroups-raft/target/peer-jgroups-raft.jar"),
                List.of("run1-64B-fsync-tandem-raft: no single LEADER\nlog tail"), "Command: `jmh/run-peers.sh`\n");
        assertThat(md).contains("## 64 B values, fsync off (64B-nofsync)", "## 64 B values, fsync on (64B-fsync)");
        assertThat(md).contains("| tandem-raft | 3/3 | 1,100 | 0.23 | 0.18 | 0.90 | 1.80 | 2.70 | 100.0 | 3 |");
        assertThat(md).contains("| tandem-raft | 0/1 |");
        assertThat(md).contains("| 64B-nofsync | tandem-raft | best peer (sofajraft) | 1.38 | 0.90 |");
        assertThat(md).contains("| 64B-nofsync | tandem-raft | unreplicated (tandem-unreplicated) | 0.28 | 3.00 |");
        assertThat(md).contains("## Skipped", "- jgroups-raft: no jar");
        assertThat(md).contains("## Failures", "- run1-64B-fsync-tandem-raft: no single LEADER").doesNotContain("\nlog tail");
    }

    static Results.Scenario scenario() {
        List<Slowdown.Phase> phases = Slowdown.phases(2, 2, 2, 3);
        List<Results.Phase> measured = new ArrayList<>();
        for (Slowdown.Phase p : phases) {
            boolean slow = p.target() != Slowdown.Target.none;
            Timeline.Window w = new Timeline.Window(2, 2, slow ? 100 : 200, 0, slow ? 50 : 100, 1000, 900, slow ? 3000 : 1500, 4000, 5000);
            measured.add(new Results.Phase(p, slow ? (p.target() == Slowdown.Target.leader ? 0 : 2) : -1, w, slow ? 50.0 : Double.NaN,
                    slow ? 200.0 : Double.NaN, p.target() == Slowdown.Target.leader ? 1 : 0, ""));
        }
        double[] p99 = new double[12], mean = new double[12];
        for (int i = 0; i < 12; i++) {
            p99[i] = 1000 + i * 100;
            mean[i] = 500;
        }
        return new Results.Scenario("tandem-raft", Slowdown.Kind.cpu, "cgroup cpu quota 20% of a core per 100 ms", FSYNC, false, false, "", measured, p99,
                mean, List.of(new Leadership.Change(9, 0, 1)), 4.0);
    }

    @Test
    void slowdownTableShowsPercentagesAndSkippedKinds() {
        String md = PeerSummary.slowdownMarkdown(List.of(scenario(),
                Results.Scenario.skipped("ratis", Slowdown.Kind.net, "network +400 ms egress", FSYNC, "only Tandem's servers have one")));
        assertThat(md).contains("| tandem-raft | cpu | 100 | 50 % | 200 % | 50 % | 200 % | 1 |");
        assertThat(md).contains("| ratis | net | | | | | | | skipped: only Tandem's servers have one |");
    }

    @Test
    void csvRowsMatchTheirHeaders() {
        for (Results.Trial t : trials()) assertThat(PeerReport.resultRow(t)).hasSize(PeerReport.RESULTS_HEADER.size());
        assertThat(PeerReport.slowdownRows(scenario())).hasSize(6).allSatisfy(r -> assertThat(r).hasSize(PeerReport.SLOWDOWN_HEADER.size()));
        assertThat(PeerReport.slowdownRows(Results.Scenario.failure("ratis", Slowdown.Kind.cpu, "x", FSYNC, "boom", 1)))
                .singleElement().satisfies(r -> assertThat(r).hasSize(PeerReport.SLOWDOWN_HEADER.size()));
        List<PeerSummary.Cell> cells = PeerSummary.cells(trials());
        List<Object[]> rows = PeerReport.summaryRows(cells, PeerSummary.ratios(cells));
        assertThat(rows).allSatisfy(r -> assertThat(r).hasSize(PeerReport.SUMMARY_HEADER.size()));
        assertThat(rows.getFirst()[12]).isEqualTo("sofajraft");
    }

    @Test
    void chartsRender() {
        BufferedImage bars = PeerCharts.throughputBars("t", List.of(new PeerCharts.Bar("tandem-raft", 1100, 1000, 1200),
                new PeerCharts.Bar("ratis", Double.NaN, Double.NaN, Double.NaN)));
        assertThat(bars.getWidth()).isGreaterThanOrEqualTo(480);
        assertThat(PeerCharts.niceStep(11_026, 6)).isEqualTo(2000);
        LatencyChart.Panel panel = PeerCharts.latencyPanel(scenario());
        assertThat(panel.series().getFirst().x()).hasSize(10).startsWith(1.0); // seconds after the 2 s warm-up
        assertThat(panel.shades()).extracting(LatencyChart.Shade::label).containsExactly("follower-slow (r2)", "leader-slow (r0)");
        assertThat(panel.shades().getFirst().from()).isEqualTo(2.0);
        assertThat(panel.title()).isEqualTo("tandem-raft, 1 leader change(s)");
        BufferedImage img = LatencyChart.render("x", List.of(panel, panel, panel), 2, PeerCharts.latencyLegend());
        assertThat(img.getWidth()).isPositive();
    }
}
