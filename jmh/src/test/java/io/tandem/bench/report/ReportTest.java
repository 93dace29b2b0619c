package io.tandem.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
    @TempDir
    Path tmp;

    @Test
    void medianSkipsMissingValues() {
        assertThat(Stats.median(3, 1, 2)).isEqualTo(2);
        assertThat(Stats.median(4, 1, 3, 2)).isEqualTo(2.5);
        assertThat(Stats.median(Double.NaN, 5, 1)).isEqualTo(3);
        assertThat(Stats.median()).isNaN();
        assertThat(Stats.median(Double.NaN)).isNaN();
    }

    @Test
    void percentagesMeansAndMaxima() {
        assertThat(Stats.percentOf(95, 100)).isEqualTo(95);
        assertThat(Stats.percentOf(1, 0)).isNaN();
        assertThat(Stats.percentOf(Double.NaN, 3)).isNaN();
        assertThat(Stats.mean(1, 2, Double.NaN, 6)).isEqualTo(3);
        assertThat(Stats.max(1, Double.NaN, 6)).isEqualTo(6);
        assertThat(Stats.mean()).isNaN();
    }

    @Test
    void slopeIsTheLeastSquaresFit() {
        assertThat(Stats.slope(new double[] {0, 1, 2, 3}, new double[] {1, 3, 5, 7})).isCloseTo(2, within(1e-12));
        assertThat(Stats.slope(new double[] {0, 1, 2, 3}, new double[] {5, 5, 5, 5})).isZero();
        assertThat(Stats.slope(new double[] {0, 1, Double.NaN}, new double[] {0, 2, 100})).isCloseTo(2, within(1e-12));
        assertThat(Stats.slope(new double[] {1}, new double[] {1})).isNaN();
        assertThat(Stats.slope(new double[] {2, 2}, new double[] {1, 5})).isNaN();
        assertThatThrownBy(() -> Stats.slope(new double[2], new double[3])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void csvQuotesWhatNeedsItAndFormatsNumbers() {
        assertThat(Csv.escape("plain")).isEqualTo("plain");
        assertThat(Csv.escape("a,b")).isEqualTo("\"a,b\"");
        assertThat(Csv.escape("say \"hi\"")).isEqualTo("\"say \"\"hi\"\"\"");
        assertThat(Csv.escape("two\nlines")).isEqualTo("\"two\nlines\"");
        assertThat(Csv.format(1.5)).isEqualTo("1.5");
        assertThat(Csv.format(2.0)).isEqualTo("2");
        assertThat(Csv.format(1.23456)).isEqualTo("1.235");
        assertThat(Csv.format(-0.0001)).isEqualTo("0");
        assertThat(Csv.format(Double.NaN)).isEmpty();
        assertThat(Csv.format(null)).isEmpty();
        assertThat(Csv.format(12L)).isEqualTo("12");
        assertThat(Csv.line("x", 1, 2.5, null, "a,b")).isEqualTo("x,1,2.5,,\"a,b\"");
    }

    @Test
    void csvFileHasTheHeaderAndRejectsRowsOfAnotherWidth() throws IOException {
        Path f = tmp.resolve("sub/out.csv");
        try (Csv csv = Csv.create(f, List.of("a", "b"))) {
            csv.row("x", 1.0);
            assertThatThrownBy(() -> csv.row("only one")).isInstanceOf(IllegalArgumentException.class);
            assertThat(Files.readAllLines(f)).containsExactly("a,b", "x,1"); // flushed row by row
        }
    }

    @Test
    void prometheusTextIsParsedAndSummed() {
        PrometheusText m = PrometheusText.parse("""
                # HELP tandem_raft_peer_resends_total resends
                # TYPE tandem_raft_peer_resends_total counter
                tandem_raft_peer_resends_total{node="n1",peer="n2",protocol="raft"} 3.0
                tandem_raft_peer_resends_total{node="n1",peer="n3",protocol="raft"} 4.0
                jvm_memory_used_bytes{area="heap",id="PS Eden Space"} 6.1997008E7
                jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 1.6E7
                jvm_memory_used_bytes{area="heap",id="PS Old Gen"} 1194680.0 1700000000000
                tandem_slowness_warnings_total{kind="same-quorum",node="n1",peer="n3"} 2
                tandem_slowness_warnings_total{kind="same-quorum",node="n1",peer="n2"} 1
                tandem_slowness_warnings_total{kind="resend-storm",node="n1",peer="n3"} 1
                odd_label{msg="a \\"quoted\\" \\\\ value, with comma",x="}"} +Inf
                no_labels 7
                """);
        assertThat(m.sum("tandem_raft_peer_resends_total")).isEqualTo(7);
        assertThat(m.sum("jvm_memory_used_bytes", l -> "heap".equals(l.get("area")))).isEqualTo(6.1997008E7 + 1194680.0);
        assertThat(m.sumBy("tandem_slowness_warnings_total", "kind")).isEqualTo(Map.of("same-quorum", 3.0, "resend-storm", 1.0));
        assertThat(m.samples()).filteredOn(s -> s.name().equals("odd_label")).singleElement()
                .satisfies(s -> {
                    assertThat(s.label("msg")).isEqualTo("a \"quoted\" \\ value, with comma");
                    assertThat(s.label("x")).isEqualTo("}");
                    assertThat(s.value()).isInfinite();
                });
        assertThat(m.sum("no_labels")).isEqualTo(7);
        assertThat(m.sum("absent")).isZero();
        assertThat(m.has("absent")).isFalse();
        assertThatThrownBy(() -> PrometheusText.parse("ok 1\nbroken{a=\"x\" 2\n")).hasMessageContaining("line 2");
        assertThatThrownBy(() -> PrometheusText.parse("novalue\n")).hasMessageContaining("line 1");
    }

    @Test
    void chartDrawsOnePanelPerScenarioOnSharedAxes() throws IOException {
        double[] x = {1, 2, 3, 4, 5};
        LatencyChart.Panel healthy = new LatencyChart.Panel("healthy", List.of(
                new LatencyChart.Series("p99", Color.BLUE, false, x, new double[] {5, 6, Double.NaN, 5, 4})), Double.NaN, 2, 5);
        LatencyChart.Panel slow = new LatencyChart.Panel("slow", List.of(
                new LatencyChart.Series("p99", Color.RED, false, x, new double[] {5, 60, 600, 50, 0})), 1, 2, 5);
        BufferedImage img = LatencyChart.render("t", List.of(healthy, slow, healthy), 2,
                List.of(new LatencyChart.LegendEntry("p99", Color.GRAY, false)));
        assertThat(img.getWidth()).isEqualTo(2 * 560);
        assertThat(img.getHeight()).isEqualTo(40 + 2 * 250 + 30);
        Path png = tmp.resolve("c.png");
        LatencyChart.writePng(img, png);
        assertThat(Files.size(png)).isPositive();
        assertThatThrownBy(() -> LatencyChart.render("t", List.of(), 2, List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void axesUseRoundSteps() {
        assertThat(LatencyChart.niceStep(60, 8)).isEqualTo(10);
        assertThat(LatencyChart.niceStep(14, 8)).isEqualTo(2);
        assertThat(LatencyChart.niceStep(3, 8)).isEqualTo(0.5);
        LatencyChart.LogAxis axis = LatencyChart.LogAxis.covering(0.7, 450);
        assertThat(axis.ticks()).containsExactly(0.1, 1.0, 10.0, 100.0, 1000.0);
        assertThat(LatencyChart.LogAxis.covering(10, 10).ticks()).containsExactly(10.0, 100.0);
    }
}
