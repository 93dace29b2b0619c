package io.tandem.bench.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.peers.driver.PeerMain;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimelineTest {
    static Histogram histogram(long... micros) {
        Histogram h = new Histogram(3);
        for (long v : micros) h.recordValue(v);
        return h;
    }

    static String row(int second, long ops, long errors, Histogram h) {
        return second + "," + (1_700_000_000_000L + second * 1000L) + "," + ops + "," + errors + ",16," + PeerMain.encode(h);
    }

    static String timeline(long[][] latenciesPerSecond, long[] errors) {
        StringBuilder t = new StringBuilder(Timeline.HEADER + "\n");
        for (int i = 0; i < latenciesPerSecond.length; i++) {
            t.append(row(i + 1, latenciesPerSecond[i].length, errors[i], histogram(latenciesPerSecond[i]))).append('\n');
        }
        return t.toString();
    }

    @Test
    void parsesRowsAndSkipsTheHeader() {
        List<Timeline.Second> rows = Timeline.parse(timeline(new long[][] {{100, 200}, {300}}, new long[] {0, 2}));
        assertThat(rows).hasSize(2);
        assertThat(rows.get(0).second()).isEqualTo(1);
        assertThat(rows.get(0).ops()).isEqualTo(2);
        assertThat(rows.get(0).histogram().getTotalCount()).isEqualTo(2);
        assertThat(rows.get(1).errors()).isEqualTo(2);
        assertThat(rows.get(1).epochMillis()).isEqualTo(1_700_000_002_000L);
        assertThat(Timeline.parseRow("  ")).isNull();
    }

    @Test
    void badRowsAreReportedWithTheRow() {
        assertThatThrownBy(() -> Timeline.parseRow("1,2,3")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("6 fields").hasMessageContaining("1,2,3");
        assertThatThrownBy(() -> Timeline.parseRow("x,1,1,0,0,AAAA")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad timeline row");
        assertThatThrownBy(() -> Timeline.parseRow("1,1,1,0,0,bm90IGEgaGlzdG9ncmFt")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void windowMergesOnlyItsSecondsExactly() {
        // seconds 1-2 are warm-up (slow), 3-5 measured
        List<Timeline.Second> rows = Timeline.parse(timeline(new long[][] {{90_000}, {80_000}, {100, 200, 300}, {400}, {500, 600}},
                new long[] {5, 5, 0, 1, 2}));
        Timeline.Window w = Timeline.window(rows, 2, 5);
        Histogram direct = histogram(100, 200, 300, 400, 500, 600);
        assertThat(w.complete()).isTrue();
        assertThat(w.ops()).isEqualTo(6);
        assertThat(w.errors()).isEqualTo(3);
        assertThat(w.throughput()).isEqualTo(2.0);
        assertThat(w.p50Micros()).isEqualTo(direct.getValueAtPercentile(50));
        assertThat(w.p99Micros()).isEqualTo(direct.getValueAtPercentile(99));
        assertThat(w.maxMicros()).isEqualTo(direct.getMaxValue());
        assertThat(w.meanMicros()).isEqualTo(direct.getMean());
        // the rows' histograms are not changed by merging
        assertThat(rows.get(2).histogram().getTotalCount()).isEqualTo(3);
    }

    @Test
    void missingSecondsMakeTheWindowIncomplete() {
        List<Timeline.Second> rows = Timeline.parse(timeline(new long[][] {{100}, {200}}, new long[] {0, 0}));
        Timeline.Window w = Timeline.window(rows, 0, 4);
        assertThat(w.complete()).isFalse();
        assertThat(w.seconds()).isEqualTo(2);
        assertThat(w.throughput()).isEqualTo(0.5); // over the nominal length: a load that died is not flattered
        Timeline.Window empty = Timeline.window(rows, 2, 3);
        assertThat(empty.ops()).isZero();
        assertThat(empty.p99Micros()).isNaN();
        assertThatThrownBy(() -> Timeline.window(rows, 3, 3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void perSecondSeriesLeaveGapsForIdleSeconds() {
        List<Timeline.Second> rows = Timeline.parse(timeline(new long[][] {{1000, 3000}, {}}, new long[] {0, 4}));
        assertThat(Timeline.meanPerSecond(rows)[0]).isEqualTo(histogram(1000, 3000).getMean());
        assertThat(Timeline.p99PerSecond(rows)[1]).isNaN();
    }

    @Test
    void tailReturnsCompleteLinesOnly(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("t.csv");
        LoadRun.Tail tail = new LoadRun.Tail(f);
        assertThat(tail.newLines()).isEmpty();
        Files.writeString(f, "a\nb");
        assertThat(tail.newLines()).containsExactly("a");
        Files.writeString(f, "a\nbc\nd\n");
        assertThat(tail.newLines()).containsExactly("bc", "d");
        assertThat(tail.newLines()).isEmpty();
    }

    @Test
    void cpuPerOperationIsTheWindowsCpuOfAllJvmsOverItsOperations() {
        Map<Long, Double> start = Map.of(1L, 10.0, 2L, 11.0, 3L, 12.0, 9L, 1.0);
        Map<Long, Double> end = Map.of(1L, 12.0, 2L, 12.5, 3L, 12.5, 9L, 2.0);
        CpuAccount.Usage u = CpuAccount.between(start, end, Set.of(1L, 2L, 3L), 9L);
        assertThat(u.replicaSeconds()).isEqualTo(4.0);
        assertThat(u.loadSeconds()).isEqualTo(1.0);
        assertThat(u.totalSeconds()).isEqualTo(5.0);
        assertThat(u.microsPerOp(50_000)).isEqualTo(100.0); // 5 CPU s over 50,000 puts
        assertThat(u.microsPerOp(0)).isNaN();
    }

    @Test
    void aMissingCpuReadingIsNotASmallerNumber() {
        Map<Long, Double> start = Map.of(1L, 10.0, 9L, 1.0);
        assertThat(CpuAccount.between(start, Map.of(1L, 11.0, 9L, Double.NaN), Set.of(1L), 9L).loadSeconds()).isNaN();
        assertThat(CpuAccount.between(start, Map.of(9L, 2.0), Set.of(1L), 9L).replicaSeconds()).isNaN();
        assertThat(CpuAccount.between(start, Map.of(1L, 11.0, 9L, 2.0), Set.of(1L), 9L).microsPerOp(100)).isEqualTo(20_000.0);
        assertThatThrownBy(() -> CpuAccount.between(start, Map.of(1L, 9.0, 9L, 2.0), Set.of(1L), 9L))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("backwards");
    }
}
