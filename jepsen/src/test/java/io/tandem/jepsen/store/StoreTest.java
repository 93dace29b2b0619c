package io.tandem.jepsen.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.history.EdnReader;
import io.tandem.history.History;
import io.tandem.history.HistoryBuilder;
import io.tandem.history.Keyword;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreTest {
    @TempDir
    Path root;

    private static History sample() {
        HistoryBuilder h = History.builder();
        h.invoke(1_000_000, 0, Keyword.of("write"), List.of(1L, 2L));
        h.nemesis(1_500_000, Keyword.of("kill"), Keyword.of("one"));
        h.nemesis(2_000_000, Keyword.of("kill"), Map.of("n1", Keyword.of("killed")));
        h.info(3_000_000_000L, 0, List.of(1L, 2L), Keyword.of("timeout"));
        h.invoke(3_100_000_000L, 1, Keyword.of("read"), java.util.Arrays.asList(1L, null));
        h.ok(3_200_000_000L, 1, List.of(1L, 2L));
        h.nemesis(4_000_000_000L, Keyword.of("start"), Keyword.of("all"));
        h.nemesis(5_000_000_000L, Keyword.of("start"), Map.of("n1", Keyword.of("started")));
        return h.build();
    }

    @Test
    void writesJepsensLayoutAndPointsLatestAtTheRun() throws Exception {
        Store s = Store.create(root, "register");
        assertThat(s.dir().getParent()).isEqualTo(root.resolve("register"));
        assertThat(s.dir().getFileName().toString()).matches("\\d{8}T\\d{6}\\.\\d{3}[+-]\\d{4}");
        assertThat(root.resolve("latest").toRealPath()).isEqualTo(s.dir().toRealPath());
        assertThat(root.resolve("register/latest").toRealPath()).isEqualTo(s.dir().toRealPath());

        History h = sample();
        s.writeHistory(h);
        assertThat(History.read(s.file("history.edn"))).isEqualTo(h);
        List<String> txt = Files.readAllLines(s.file("history.txt"));
        assertThat(txt.getFirst()).isEqualTo("0\t:invoke\t:write\t[1 2]");
        assertThat(txt.get(3)).isEqualTo("0\t:info\t:write\t[1 2]\t:timeout");

        Map<Object, Object> results = new LinkedHashMap<>();
        results.put(Keyword.of("valid?"), true);
        results.put(Keyword.of("stats"), OpCounts.of(h).toEdn());
        s.writeEdn("results.edn", results);
        Object back = EdnReader.parse(Files.readString(s.file("results.edn")));
        assertThat(back).isEqualTo(results);
        assertThat(Files.readString(s.file("results.edn"))).contains("\n :stats");
    }

    @Test
    void countsOutcomesPerFunction() {
        OpCounts c = OpCounts.of(sample());
        assertThat(c.toEdn()).isEqualTo(Map.of(
                Keyword.of("read"), Map.of(Keyword.of("ok"), 1L, Keyword.of("fail"), 0L, Keyword.of("info"), 0L),
                Keyword.of("write"), Map.of(Keyword.of("ok"), 0L, Keyword.of("fail"), 0L, Keyword.of("info"), 1L)));
        assertThat(c.nemesisOps()).isEqualTo(2);
        assertThat(c.oneLine()).isEqualTo("read 1/0/0, write 0/0/1 (ok/fail/info)");
    }

    @Test
    void reportsShadeEachFaultFromItsStartToItsStop() {
        History h = sample();
        List<HtmlReport.Band> bands = HtmlReport.bands(h, 6);
        assertThat(bands).hasSize(1);
        assertThat(bands.getFirst().fault()).isEqualTo("kill");
        assertThat(bands.getFirst().from()).isEqualTo(0.002);
        assertThat(bands.getFirst().to()).isEqualTo(5.0);
        String latency = HtmlReport.latency("t", h);
        assertThat(latency).startsWith("<!DOCTYPE html>").contains("<svg").contains("process 1 :read [1 nil] → :ok [1 2]");
        assertThat(HtmlReport.timeline("t", h, 2)).contains("thread 1").contains("<rect");
    }
}
