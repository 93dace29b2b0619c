package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CheckCommandTest {
    @TempDir
    Path dir;

    private record Run(int exitCode, String out, String err) {}

    private Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = TandemCli.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private String file(String name, String content) throws IOException {
        Path path = dir.resolve(name);
        Files.writeString(path, content);
        return path.toString();
    }

    private static final String VALID = """
            {:process 0, :type :invoke, :f :write, :value 1}
            {:process 0, :type :ok, :f :write, :value 1}
            {:process 1, :type :invoke, :f :read, :value nil}
            {:process 1, :type :ok, :f :read, :value 1}
            """;

    private static final String STALE = """
            [{:process 0, :type :invoke, :f :write, :value 1}
             {:process 0, :type :ok, :f :write, :value 1}
             {:process 1, :type :invoke, :f :read, :value nil}
             {:process 1, :type :ok, :f :read, :value nil}]
            """;

    @Test
    void validFilesExitZero() throws IOException {
        String a = file("a.edn", VALID);
        Run run = run("check", "--model", "cas-register", a, a);
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).isEqualTo(a + ": valid (4 ops)\n" + a + ": valid (4 ops)\n");
    }

    @Test
    void invalidFileExitsOneAndNilReadModeMatters() throws IOException {
        String good = file("good.edn", VALID);
        String stale = file("stale.edn", STALE);
        Run strict = run("check", good, stale);
        assertThat(strict.exitCode()).isEqualTo(1);
        assertThat(strict.out()).startsWith(good + ": valid (4 ops)\n" + stale
                + ": INVALID: process 1 :read -> nil (:ok, lines 3-4) cannot be linearized");
        Run lenient = run("check", "--nil-reads", "lenient", stale);
        assertThat(lenient.exitCode()).isZero();
        Run explained = run("check", "--explain", stale);
        assertThat(explained.out()).contains("\n    Longest linearizable prefix found: 1 of 2 operations");
    }

    @Test
    void kvModelAndInitialValue() throws IOException {
        String kv = file("kv.edn", """
                {:index 0, :time 1, :type :invoke, :process 0, :f :read, :value [3 nil]}
                {:index 1, :time 2, :type :ok, :process 0, :f :read, :value [3 0]}
                """);
        assertThat(run("check", "--model", "kv", kv).exitCode()).isEqualTo(1);
        assertThat(run("check", "--model", "kv", "--initial", "0", kv).exitCode()).isZero();
    }

    @Test
    void parseErrorsNameFileAndLineAndExitTwo() throws IOException {
        String broken = file("broken.edn", VALID + "{:process 2, :type :invoke, :f :read\n");
        String orphan = file("orphan.edn", "{:process 2, :type :ok, :f :read, :value 1}\n");
        String good = file("good.edn", VALID);
        Run run = run("check", broken, orphan, dir.resolve("missing.edn").toString(), good);
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEqualTo(broken + ": error: line 6, column 1: end of input inside the map opened at line 5, column 1\n"
                + orphan + ": error: line 1: process 2 completes {:type :ok, :process 2, :f :read, :value 1} without a pending invocation\n"
                + dir.resolve("missing.edn") + ": error: no such file\n"
                + good + ": valid (4 ops)\n");
    }

    @Test
    void anInvalidFileWinsOverErrors() throws IOException {
        Run run = run("check", file("stale.edn", STALE), file("broken.edn", "{"));
        assertThat(run.exitCode()).isEqualTo(1);
    }

    @Test
    void exhaustedBudgetIsUnknown() throws IOException {
        StringBuilder hard = new StringBuilder();
        for (int p = 0; p < 12; p++) {
            hard.append("{:process ").append(p).append(", :type :invoke, :f :write, :value ").append(p).append("}\n");
        }
        hard.append("{:process 99, :type :invoke, :f :read, :value nil}\n{:process 99, :type :ok, :f :read, :value 42}\n");
        String file = file("hard.edn", hard.toString());
        Run run = run("check", "--max-steps", "100", file);
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).startsWith(file + ": unknown: search budget of 100 steps exhausted");
    }

    @Test
    void usageErrorsExitTwo() throws IOException {
        String good = file("good.edn", VALID);
        Run badModel = run("check", "--model", "queue", good);
        assertThat(badModel.exitCode()).isEqualTo(2);
        assertThat(badModel.err()).contains("unknown model 'queue' (expected cas-register or kv)");
        assertThat(run("check").exitCode()).isEqualTo(2);
        assertThat(run("check", "--nil-reads", "sometimes", good).exitCode()).isEqualTo(2);
        assertThat(run("check", "--initial", "{", good).exitCode()).isEqualTo(2);
    }
}
