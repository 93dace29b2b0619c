package io.tandem.cli;

import io.tandem.checker.CheckOptions;
import io.tandem.checker.CheckResult;
import io.tandem.checker.LinearizabilityChecker;
import io.tandem.checker.Model;
import io.tandem.checker.NilReads;
import io.tandem.history.EdnParseException;
import io.tandem.history.EdnReader;
import io.tandem.history.History;
import io.tandem.history.HistoryException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tandem check}: the linearizability checker over Jepsen-format history files. */
@Command(
        name = "check",
        mixinStandardHelpOptions = true,
        description = {
            "Check Jepsen-format histories (EDN: one op map per line, or one vector/list of op maps) for "
                    + "linearizability.",
            "Prints one line per file: 'FILE: valid (N ops)', 'FILE: INVALID: why', 'FILE: unknown: why' "
                    + "or 'FILE: error: why'.",
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:every file is valid",
            "1:some file is not linearizable",
            "2:otherwise, some file could not be read or parsed, or its check was inconclusive; or a usage error",
        })
final class CheckCommand implements Callable<Integer> {
    static final int VALID = 0;
    static final int INVALID = 1;
    static final int ERROR = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--model", paramLabel = "MODEL", defaultValue = "cas-register",
            description = "cas-register (one register; op values are register values) or kv (one register per "
                    + "key; op values are [key value] tuples). Default: ${DEFAULT-VALUE}.")
    String model;

    @Option(names = "--nil-reads", paramLabel = "MODE", defaultValue = "strict",
            description = "strict: a read of nil means the register held nil; lenient: it means 'unknown' and "
                    + "matches anything (Knossos' rule; use it for Knossos-era histories). Default: ${DEFAULT-VALUE}.")
    NilReads nilReads;

    @Option(names = "--initial", paramLabel = "EDN", defaultValue = "nil",
            description = "The registers' initial value, as EDN. Default: ${DEFAULT-VALUE}.")
    String initial;

    @Option(names = "--max-steps", paramLabel = "N",
            description = "Search budget per file, in steps, before the verdict is 'unknown'. Default: "
                    + CheckOptions.DEFAULT_MAX_STEPS + ".")
    long maxSteps = CheckOptions.DEFAULT_MAX_STEPS;

    @Option(names = "--max-memory-mb", paramLabel = "MIB",
            description = "Memory the search may use per key to remember dead ends before the verdict is "
                    + "'unknown'. Default: " + (CheckOptions.DEFAULT_MAX_MEMORY_BYTES >> 20) + ".")
    long maxMemoryMib = CheckOptions.DEFAULT_MAX_MEMORY_BYTES >> 20;

    @Option(names = "--timeout", paramLabel = "SECONDS",
            description = "Wall-clock limit per file, after which the verdict is 'unknown'. Default: none.")
    Double timeoutSeconds;

    @Option(names = "--explain",
            description = "After an INVALID line, print the full report: the longest linearizable prefix found "
                    + "and the operations concurrent with the one that cannot be linearized.")
    boolean explain;

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "History files.")
    List<Path> files;

    @Override
    public Integer call() {
        Model checkedModel;
        CheckOptions options;
        try {
            checkedModel = Model.named(model, EdnReader.parse(initial));
            options = CheckOptions.defaults().withNilReads(nilReads).withMaxSteps(maxSteps)
                    .withMaxMemoryBytes(maxMemoryMib << 20);
            if (timeoutSeconds != null) {
                options = options.withTimeout(Duration.ofNanos(Math.round(timeoutSeconds * 1e9)));
            }
        } catch (IllegalArgumentException | EdnParseException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        PrintWriter out = spec.commandLine().getOut();
        boolean anyInvalid = false;
        boolean anyOther = false;
        for (Path file : files) {
            String verdict;
            try {
                History history = History.read(file);
                CheckResult result = LinearizabilityChecker.check(history, checkedModel, options);
                verdict = switch (result) {
                    case CheckResult.Valid v -> "valid (" + history.size() + " ops)";
                    case CheckResult.Invalid i -> {
                        anyInvalid = true;
                        yield "INVALID: " + i.summary() + (explain ? "\n" + indent(i.report()) : "");
                    }
                    case CheckResult.Unknown u -> {
                        anyOther = true;
                        yield "unknown: " + u.reason();
                    }
                };
            } catch (NoSuchFileException e) {
                anyOther = true;
                verdict = "error: no such file";
            } catch (IOException e) {
                anyOther = true;
                verdict = "error: cannot read: " + e;
            } catch (EdnParseException | HistoryException e) {
                anyOther = true;
                verdict = "error: " + e.getMessage();
            }
            out.println(file + ": " + verdict);
            out.flush();
        }
        return anyInvalid ? INVALID : anyOther ? ERROR : VALID;
    }

    private static String indent(String report) {
        return "    " + report.replace("\n", "\n    ");
    }
}
