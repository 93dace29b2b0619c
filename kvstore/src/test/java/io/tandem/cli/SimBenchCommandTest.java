package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class SimBenchCommandTest {
    private static final SimBenchCommand.Defaults DEFAULTS = new SimBenchCommand.Defaults(1, 2_000_000_000L, 1_000_000_000L, 4_000_000_000L, 1, 0);

    @Test
    void theShippedMatrixParses() throws Exception {
        List<SimBenchCommand.Scenario> list = SimBenchCommand.readScenarios(Path.of("../simbench/depfast.scenarios"), DEFAULTS);
        assertThat(list).hasSize(24);
        assertThat(list.get(1).protocol()).isEqualTo("raft");
        assertThat(list.get(1).slow().getFirst().format()).isEqualTo("follower:cpu=5%");
        assertThat(list.get(7).slow().getFirst().count()).isEqualTo(2);
        assertThat(list.getFirst().defaults().measure()).isEqualTo(5_000_000_000L);
    }

    @Test
    void aBadLineIsNamedWithItsFileAndLine(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("bad.scenarios");
        Files.writeString(f, "seed=3\nraft 3 16 healthy\nraft 3 16 follower:warp=9\n");
        assertThatThrownBy(() -> SimBenchCommand.readScenarios(f, DEFAULTS)).hasMessageContaining("bad.scenarios:3").hasMessageContaining("unknown fault 'warp=9'");
        Files.writeString(f, "speed=3\n");
        assertThatThrownBy(() -> SimBenchCommand.readScenarios(f, DEFAULTS)).hasMessageContaining("bad.scenarios:1").hasMessageContaining("unknown setting 'speed'");
    }

    @Test
    void aBadSlowdownIsAUsageError() {
        StringWriter out = new StringWriter();
        CommandLine cli = TandemCli.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(out));
        int exit = cli.execute("simbench", "--slow", "follower:cpu=5", "--out", "none");
        assertThat(exit).isEqualTo(2);
        assertThat(out.toString()).contains("needs a %");
    }

    @Test
    void aReadShareIsAFractionOrAPercentage() {
        assertThat(SimBenchCommand.parseShare("0.9")).isEqualTo(0.9);
        assertThat(SimBenchCommand.parseShare("90%")).isEqualTo(0.9);
        assertThat(SimBenchCommand.parseShare("0")).isEqualTo(0.0);
        assertThatThrownBy(() -> SimBenchCommand.parseShare("150%")).hasMessageContaining("outside 0 to 1");
        assertThatThrownBy(() -> SimBenchCommand.parseShare("-0.1")).hasMessageContaining("outside 0 to 1");
        assertThatThrownBy(() -> SimBenchCommand.parseShare("most")).hasMessageContaining("not a share");
        assertThatThrownBy(() -> SimBenchCommand.parseShare("NaN")).hasMessageContaining("outside 0 to 1");
    }

    @Test
    void aBadReadShareIsAUsageError() {
        StringWriter out = new StringWriter();
        CommandLine cli = TandemCli.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(out));
        int exit = cli.execute("simbench", "--read-share", "1.5", "--out", "none");
        assertThat(exit).isEqualTo(2);
        assertThat(out.toString()).contains("--read-share");
    }

    @Test
    void engineOptionsAreKeyValuePairs() {
        assertThat(SimBenchCommand.parseEngineOptions(List.of("max-batch-slots=1", "window-slots = 64")))
                .containsExactly(java.util.Map.entry("max-batch-slots", "1"), java.util.Map.entry("window-slots", "64"));
        assertThatThrownBy(() -> SimBenchCommand.parseEngineOptions(List.of("max-batch-slots"))).hasMessageContaining("not KEY=VALUE");
        assertThatThrownBy(() -> SimBenchCommand.parseEngineOptions(List.of("max-batch-slots="))).hasMessageContaining("not KEY=VALUE");
        assertThatThrownBy(() -> SimBenchCommand.parseEngineOptions(List.of("a=1", "a=2"))).hasMessageContaining("'a' is given twice");
    }

    @Test
    void aBadEngineOptionIsAUsageErrorBeforeAnyRun() {
        for (String[] bad : new String[][] {{"multipaxos", "max-batch-slot=1", "unknown multipaxos engine option 'max-batch-slot'"},
                {"multipaxos", "max-batch-slots=0", "maxBatchSlots must be >= 1"},
                {"multipaxos", "max-batch-slots=one", "not a whole number"},
                {"raft", "max-batch-slots=1", "unknown raft engine option 'max-batch-slots'"},
                {"raft", "max-inflight-messages=0", "maxInflightMessages must be >= 1"}}) {
            StringWriter out = new StringWriter();
            CommandLine cli = TandemCli.commandLine();
            cli.setOut(new PrintWriter(out));
            cli.setErr(new PrintWriter(out));
            int exit = cli.execute("simbench", "--protocol", bad[0], "--engine-option", bad[1], "--out", "none");
            assertThat(exit).as(bad[1]).isEqualTo(2);
            assertThat(out.toString()).as(bad[1]).contains("--engine-option").contains(bad[2]).doesNotContain("ops/s");
        }
    }
}
