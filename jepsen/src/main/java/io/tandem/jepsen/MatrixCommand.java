package io.tandem.jepsen;

import io.tandem.jepsen.host.HostCapabilities;
import io.tandem.jepsen.host.HostLayout;
import io.tandem.jepsen.host.Shell;
import io.tandem.jepsen.nemesis.FaultKind;
import io.tandem.jepsen.nemesis.Nemesis;
import io.tandem.jepsen.workload.Verdict;
import io.tandem.jepsen.workload.WorkloadSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code matrix}: one run per (engine, workload, fault), each fault on its own and then all at once, and a
 * Markdown table of the verdicts and operation counts (what jepsen/README.md shows).
 */
@Command(name = "matrix", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run every fault on its own and all at once, against each engine and workload, and print a Markdown table of verdicts and operation counts.",
                "Exit status: 0 if every run was valid, 1 if any found an anomaly, 2 if any was unknown, 3 if a run could not be done."})
final class MatrixCommand implements Callable<Integer> {
    @Option(names = "--protocols", split = ",", description = "Engines (default raft,toy-pb).")
    List<String> protocols = List.of("raft", "toy-pb");

    @Option(names = "--workloads", split = ",", description = "Workloads (default register).")
    List<String> workloads = List.of("register");

    @Option(names = "--faults", description = "Faults, each run on its own, then all together (default all).")
    String faults = "all";

    @Option(names = "--combined-only", description = "Only the run with all the faults together.")
    boolean combinedOnly;

    @Option(names = "--time", paramLabel = "SECONDS", description = "Fault phase of each run (default 30).")
    double time = 30;

    @Option(names = "--interval", paramLabel = "SECONDS", description = "Mean time between ops of one fault package (default 5).")
    double interval = 5;

    @Option(names = "--rate", description = "Total client operations per second (default: the spec's).")
    Double rate;

    @Option(names = "--nodes", description = "Servers per run (default 5).")
    int nodes = 5;

    @Option(names = "--seed", description = "Seed of the first run; each run adds one (default 1).")
    long seed = 1;

    @Option(names = "--store", paramLabel = "DIR", description = "The store directory (default store).")
    Path store = Path.of("store");

    @Option(names = "--workloads-dir", paramLabel = "DIR", description = "Where named workloads are looked up.")
    Path workloadsDir;

    record Row(String protocol, String workload, String faults, Verdict verdict, RunResult result, String failure) {}

    private static String label(Set<FaultKind> schedule, RunResult r) {
        if (schedule.size() == 1) return schedule.iterator().next().cliName();
        if (r == null || r.skipped().isEmpty()) return "all";
        return "all but " + String.join(", ", r.skipped().keySet().stream().map(FaultKind::cliName).toList());
    }

    @Override
    public Integer call() throws InterruptedException {
        Set<FaultKind> kinds = FaultKind.parse(faults);
        List<Set<FaultKind>> schedules = new ArrayList<>();
        if (!combinedOnly) for (FaultKind k : kinds) schedules.add(EnumSet.of(k));
        if (kinds.size() > 1 || combinedOnly) schedules.add(EnumSet.copyOf(kinds));
        List<Row> rows = new ArrayList<>();
        HostCapabilities host = HostCapabilities.probe(HostLayout.DEFAULT, Shell.quiet());
        long s = seed;
        for (String protocol : protocols) {
            for (String w : workloads) {
                for (Set<FaultKind> schedule : schedules) {
                    WorkloadSpec spec = JepsenCli.loadWorkload(w, workloadsDir);
                    spec = spec.withTimeLimit(Duration.ofMillis(Math.round(time * 1000)))
                            .withNemesis(spec.nemesis().withFaults(schedule).withInterval(Duration.ofMillis(Math.round(interval * 1000))));
                    if (rate != null) spec = spec.withRate(rate);
                    if (schedule.size() == 1) {
                        String why = Nemesis.unavailable(schedule.iterator().next(), protocol, true, host);
                        if (why != null) {
                            System.out.println("jepsen matrix: " + protocol + " / " + w + " / " + schedule.iterator().next().cliName() + ": skipped, " + why);
                            continue;
                        }
                    }
                    RunConfig config = RunConfig.defaults(spec, protocol).withNodes(nodes).withSeed(s++).withStoreRoot(store);
                    System.out.println("jepsen matrix: " + protocol + " / " + w + " / " + label(schedule, null));
                    try {
                        RunResult r = new JepsenRun(config, line -> System.out.println("  " + line)).run();
                        System.out.println("  -> " + r.verdict() + ": " + r.counts().oneLine() + "; " + r.check().summary());
                        rows.add(new Row(protocol, w, label(schedule, r), r.verdict(), r, null));
                    } catch (JepsenRun.StoppedBySignalException e) {
                        System.err.println("jepsen matrix: " + e.getMessage());
                        return JepsenCli.CANNOT_RUN;
                    } catch (JepsenRun.HostUnsuitableException e) {
                        System.err.println("jepsen matrix: this host cannot run the cluster: " + e.getMessage());
                        return JepsenCli.CANNOT_RUN;
                    } catch (IllegalStateException e) {
                        System.out.println("  -> could not run: " + e.getMessage());
                        rows.add(new Row(protocol, w, label(schedule, null), null, null, e.getMessage()));
                    }
                }
            }
        }
        String table = table(rows);
        System.out.println();
        System.out.println(table);
        try {
            Files.createDirectories(store);
            Path file = store.resolve("matrix-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss")) + ".md");
            Files.writeString(file, table, StandardCharsets.UTF_8);
            System.out.println("table: " + file);
        } catch (IOException e) {
            System.err.println("jepsen matrix: cannot write the table: " + e.getMessage());
        }
        if (rows.stream().anyMatch(r -> r.failure() != null)) return JepsenCli.CANNOT_RUN;
        Verdict worst = Verdict.VALID;
        for (Row r : rows) worst = worst.and(r.verdict());
        return worst.exitCode();
    }

    private String table(List<Row> rows) {
        StringBuilder t = new StringBuilder();
        t.append(String.format(Locale.ROOT, "%d nodes, %.0f s of faults per run, fault interval %.0f s%n%n", nodes, time, interval));
        t.append("| engine | workload | nemesis | verdict | ok | fail | info | ok / fail / info per op | nemesis ops | store |\n");
        t.append("|---|---|---|---|---:|---:|---:|---|---:|---|\n");
        for (Row r : rows) {
            if (r.failure() != null) {
                t.append("| ").append(r.protocol()).append(" | ").append(r.workload()).append(" | ").append(r.faults())
                        .append(" | could not run: ").append(r.failure().replace('|', '/')).append(" | | | | | | |\n");
                continue;
            }
            var c = r.result().counts();
            String verdict = switch (r.verdict()) {
                case VALID -> "valid";
                case INVALID -> "**INVALID**";
                case UNKNOWN -> "unknown";
            };
            t.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %d | %d | %d | %s | %d | `%s` |%n", r.protocol(), r.workload(), r.faults(), verdict,
                    c.ok(), c.fail(), c.info(), c.oneLine().replace(" (ok/fail/info)", ""), c.nemesisOps(),
                    store.relativize(r.result().storeDir())));
        }
        return t.toString();
    }
}
