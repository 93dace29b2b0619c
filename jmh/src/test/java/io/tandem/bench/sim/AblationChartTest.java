package io.tandem.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.bench.report.Csv;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AblationChartTest {
    @TempDir
    Path dir;

    private Path run(String name, double throughput, double p50Micros) throws Exception {
        Path d = dir.resolve(name);
        Files.createDirectories(d);
        Files.writeString(d.resolve("results.csv"), "protocol,slow_nodes,throughput_ops_s,p50_us\n"
                + Csv.line("multipaxos", "n1,n2", throughput, p50Micros) + "\n");
        return d;
    }

    @Test
    void aStepIsTheMedianOfItsRunsAndTheChartRenders() throws Exception {
        AblationChart.Step classic = AblationChart.step("classic=" + run("c", 100, 2000));
        AblationChart.Step step = AblationChart.step("a4=" + run("a", 500, 1000) + "," + run("b", 700, 3000) + "," + run("d", 600, 1500));
        assertThat(step.median(step.throughput())).isEqualTo(600);
        assertThat(step.median(step.p50Millis())).isEqualTo(1.5);
        BufferedImage img = AblationChart.render("t", List.of(classic, step));
        assertThat(img.getWidth()).isGreaterThan(img.getHeight());
    }

    @Test
    void aBadArgumentOrFileIsRefusedByName() throws Exception {
        assertThatThrownBy(() -> AblationChart.step("no-dirs")).hasMessageContaining("STEP=DIR");
        Path d = dir.resolve("x");
        Files.createDirectories(d);
        Files.writeString(d.resolve("results.csv"), "a,b\n1,2\n");
        assertThatThrownBy(() -> AblationChart.step("x=" + d)).hasMessageContaining("not a simbench results.csv");
    }

    @Test
    void csvFieldsUndoLine() {
        assertThat(Csv.fields(Csv.line("a", "b,c", "say \"hi\"", 1.5))).containsExactly("a", "b,c", "say \"hi\"", "1.5");
    }
}
