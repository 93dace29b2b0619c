package io.tandem.jepsen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tandem.jepsen.host.Shell;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Clojure suite cannot be compiled here (Jepsen is on Clojars), so CI reads every form of it with
 * Debian's {@code clojure} reader ({@code jepsen/clj/check-syntax.sh}): unbalanced forms, bad literals and
 * reader errors fail the build.
 */
class ClojureSyntaxTest {
    private static final Path CLJ = Path.of(System.getProperty("tandem.jepsen.root", "."), "clj");

    @Test
    void everyFormOfTheClojureSuiteReads() {
        Shell shell = Shell.quiet();
        assumeTrue(shell.run("sh", "-c", "command -v clojure").ok(), "the 'clojure' command is not installed (Debian: apt-get install clojure)");
        Shell.Result r = shell.run(List.of(CLJ.resolve("check-syntax.sh").toString()), Duration.ofMinutes(2));
        assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("src/jepsen/tandem/db.clj").contains("project.clj").contains(" 0 with syntax errors");
    }
}
