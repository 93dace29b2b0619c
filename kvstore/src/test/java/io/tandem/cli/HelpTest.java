package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Every command's help, as a new user first meets the command line. */
class HelpTest {
    private record Run(int exit, String out) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        CommandLine cli = TandemCli.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(out));
        int exit = cli.execute(args);
        return new Run(exit, out.toString());
    }

    @Test
    void everySubcommandAnswersHelpWithItsUsageAndExitZeroEvenWithoutItsRequiredOptions() {
        List<String> names = new ArrayList<>(TandemCli.commandLine().getSubcommands().keySet());
        names.remove("help");
        assertThat(names).contains("sim", "info", "demo", "cluster", "server", "put", "status", "check");
        for (String name : names) {
            Run r = run(name, "--help");
            assertThat(r.exit()).as("./tandem %s --help printed:%n%s", name, r.out()).isZero();
            assertThat(r.out()).as(name).startsWith("Usage: tandem " + name);
            Run h = run("help", name);
            assertThat(h.exit()).as("./tandem help %s", name).isZero();
        }
    }

    @Test
    void theCommandListShowsEachSummaryAsAWholeSentence() {
        Run r = run("--help");
        assertThat(r.exit()).isZero();
        // The list shows the first line of each command's description: it must end a sentence, not
        // stop in the middle of one.
        for (var e : TandemCli.commandLine().getSubcommands().entrySet()) {
            String[] description = e.getValue().getCommandSpec().usageMessage().description();
            if (description.length == 0) continue;
            assertThat(description[0].strip()).as("first description line of %s", e.getKey()).endsWith(".");
        }
    }

    @Test
    void infoNamesPrintsEachProtocolOfTheRegistryOnALineOfItsOwn() {
        Run r = run("info", "--names");
        assertThat(r.exit()).isZero();
        assertThat(r.out().lines().toList()).containsExactlyElementsOf(io.tandem.protocols.Protocols.names());
        assertThat(r.out().lines().toList()).contains("raft", "multipaxos", "copilot", "virtual-synchrony");
        Run full = run("info");
        assertThat(full.out()).contains("protocols     ").contains("raft");
    }

    @Test
    void versionNamesTheBuildAndTheJava() {
        Run r = run("--version");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).startsWith("tandem ").contains("Java " + Runtime.version().feature());
    }
}
