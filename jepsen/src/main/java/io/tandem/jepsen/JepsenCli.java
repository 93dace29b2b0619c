package io.tandem.jepsen;

import io.tandem.jepsen.host.HostLayout;
import io.tandem.jepsen.host.HostLock;
import io.tandem.jepsen.host.Shell;
import io.tandem.jepsen.nemesis.FaultKind;
import io.tandem.jepsen.nemesis.NemesisSpec;
import io.tandem.jepsen.workload.SpecException;
import io.tandem.jepsen.workload.WorkloadSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The local Jepsen runner's command line ({@code jepsen/run-local.sh} runs it as root).
 *
 * <pre>
 * run-local.sh --workload register --protocol raft --nemesis all --time 60
 * run-local.sh cleanup
 * </pre>
 *
 * Exit status: 0 the history is valid, 1 an anomaly was found, 2 the checker could not decide, 3 the run
 * could not be done (not root, no namespaces, the cluster did not start), 64 bad arguments.
 */
@Command(name = "jepsen", mixinStandardHelpOptions = true, sortOptions = false,
        subcommands = {JepsenCli.Cleanup.class, MatrixCommand.class},
        description = {"Run a Jepsen-style test against a local Tandem KV cluster: one server process per network namespace, "
                + "faults from iptables, signals, cgroups and the transport's fault layer, the history checked by Tandem's checker.",
                "Needs root. Results go to STORE/<test>/<timestamp>/ (history.edn, results.edn, latency.html, timeline.html, node logs).",
                "Exit status: 0 valid, 1 anomaly found, 2 unknown, 3 the run could not be done, 64 bad arguments."})
public final class JepsenCli implements Callable<Integer> {
    static final int CANNOT_RUN = 3;
    static final int USAGE = 64;

    @Option(names = "--workload", paramLabel = "NAME|FILE", description = "register (default), set, or a workload spec file (EDN).")
    String workload = "register";

    @Option(names = "--protocol", description = "The engine the servers run (default raft).")
    String protocol = "raft";

    @Option(names = "--nodes", description = "Number of servers (default 5).")
    int nodes = 5;

    @Option(names = "--nemesis", paramLabel = "FAULTS", description = "Comma-separated faults, 'all' or 'none' (default: the workload spec's). Known: all, none, "
            + "partition, kill, pause, packet (alias slow-net), slow-cpu, slow-disk, clock, member.")
    String nemesis;

    @Option(names = {"--time", "--time-limit"}, paramLabel = "SECONDS", description = "Length of the fault phase (default: the spec's).")
    Double time;

    @Option(names = "--interval", paramLabel = "SECONDS", description = "Mean time between two ops of one fault package (default: the spec's).")
    Double interval;

    @Option(names = "--nemesis-schedule", paramLabel = "SCHEDULE", description = "staggered (Jepsen's combined nemesis: packages overlap) or "
            + "one-at-a-time (one episode over at most a minority, heal, wait until every node is back; for virtual synchrony). Default: the spec's.")
    String nemesisSchedule;

    @Option(names = "--rate", description = "Total client operations per second (default: the spec's).")
    Double rate;

    @Option(names = "--concurrency", description = "Client threads, a number or like 2n (default: the spec's).")
    String concurrency;

    @Option(names = "--recovery", paramLabel = "SECONDS", description = "Wait after healing before the final reads (default: the spec's).")
    Double recovery;

    @Option(names = "--seed", description = "Seed of every random choice of the generators and the nemesis (default: random).")
    Long seed;

    @Option(names = "--store", paramLabel = "DIR", description = "The store directory (default store).")
    Path store = Path.of("store");

    @Option(names = "--no-loop-disks", description = "Keep node data in plain directories (no slow-disk fault).")
    boolean noLoopDisks;

    @Option(names = "--execution", paramLabel = "MODE", description = "How the servers execute commands: sequential (default), psmr or opt-psmr.")
    String execution;

    @Option(names = "--threads", paramLabel = "N", description = "Worker threads of a parallel execution (default 2).")
    Integer threads;

    @Option(names = "--shards", paramLabel = "N", description = "virtual-synchrony: the servers split the keys into N durable shards (issue 23); scans are refused, so the register workload.")
    Integer shards;

    @Option(names = "--tls", description = "Mutual TLS between the servers and client certificates for the clients (a development CA made in the run's store directory).")
    boolean tls;

    @Option(names = "--deployment", paramLabel = "FILE", description = "Where the protocol's roles run ('role = n1, n2' lines; multipaxos), given to every server.")
    Path deployment;

    @Option(names = "--server-classpath", paramLabel = "CP", description = "Class path of the servers (default: this runner's).")
    String serverClassPath;

    @Option(names = "--workloads-dir", paramLabel = "DIR", description = "Where named workloads are looked up (default: jepsen/workloads if present, else the built-in copies).")
    Path workloadsDir;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new JepsenCli());
        cl.setExitCodeExceptionMapper(e -> USAGE);
        cl.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("jepsen: " + ex.getMessage());
            ex.getCommandLine().usage(ex.getCommandLine().getErr());
            return USAGE;
        });
        return cl;
    }

    @Override
    public Integer call() throws InterruptedException {
        PrintStream out = System.out;
        RunConfig config;
        try {
            config = config();
        } catch (SpecException | IllegalArgumentException | UncheckedIOException e) {
            System.err.println("jepsen: " + e.getMessage());
            return USAGE;
        }
        RunResult result;
        try {
            result = new JepsenRun(config, line -> out.println("jepsen: " + line)).run();
        } catch (JepsenRun.HostUnsuitableException e) {
            System.err.println("jepsen: this host cannot run the cluster: " + e.getMessage());
            return CANNOT_RUN;
        } catch (IllegalStateException e) {
            System.err.println("jepsen: " + e.getMessage());
            return CANNOT_RUN;
        }
        out.println();
        out.println(result.counts().table());
        if (!result.skipped().isEmpty()) {
            result.skipped().forEach((k, why) -> out.println("skipped fault " + k.cliName() + ": " + why));
        }
        out.println();
        out.println(result.check().summary());
        if (result.check().results().get(io.tandem.history.Keyword.of("report")) instanceof String report) out.println(report);
        out.println("verdict: " + switch (result.verdict()) {
            case VALID -> "valid (no anomalies)";
            case INVALID -> "INVALID (an anomaly was found)";
            case UNKNOWN -> "unknown (the checker could not decide)";
        });
        out.println("store: " + result.storeDir());
        return result.verdict().exitCode();
    }

    RunConfig config() {
        WorkloadSpec spec = loadWorkload(workload, workloadsDir);
        if (nemesis != null) spec = spec.withNemesis(spec.nemesis().withFaults(FaultKind.parse(nemesis)));
        if (interval != null) spec = spec.withNemesis(spec.nemesis().withInterval(Duration.ofMillis(Math.round(interval * 1000))));
        if (nemesisSchedule != null) spec = spec.withNemesis(spec.nemesis().withSchedule(NemesisSpec.Schedule.parse(nemesisSchedule)));
        if (time != null) spec = spec.withTimeLimit(Duration.ofMillis(Math.round(time * 1000)));
        if (rate != null) spec = spec.withRate(rate);
        if (concurrency != null) spec = spec.withConcurrency(concurrency.matches("\\d+") ? (Object) Long.parseLong(concurrency) : concurrency);
        if (recovery != null) spec = spec.withRecovery(Duration.ofMillis(Math.round(recovery * 1000)));
        spec.concurrency(nodes); // validates
        RunConfig c = RunConfig.defaults(spec, protocol).withNodes(nodes).withStoreRoot(store)
                .withLoopDisks(!noLoopDisks).withSeed(seed != null ? seed : new java.security.SecureRandom().nextLong());
        if (serverClassPath != null) c = c.withClassPath(serverClassPath);
        if (tls) c = c.withTls(true);
        if (deployment != null && !Files.isRegularFile(deployment)) throw new IllegalArgumentException("--deployment: no file " + deployment);
        if (shards != null) {
            java.util.Optional<String> refused = io.tandem.protocols.Protocols.byName(protocol).shardingRefused();
            if (refused.isPresent()) throw new IllegalArgumentException("--shards needs a protocol that splits its group into shards: " + refused.get());
        }
        if (shards != null) io.tandem.kv.shard.ShardedKvProtocol.check(shards, Math.max(1, nodes / shards), nodes);
        if (execution != null || threads != null || deployment != null || shards != null) {
            List<String> args = new java.util.ArrayList<>(c.extraServerArgs());
            if (shards != null) args.addAll(List.of("--shards", Integer.toString(shards)));
            if (execution != null) args.addAll(List.of("--execution", execution));
            if (threads != null) args.addAll(List.of("--threads", Integer.toString(threads)));
            if (deployment != null) args.addAll(List.of("--deployment", deployment.toAbsolutePath().normalize().toString()));
            c = c.withExtraServerArgs(args);
        }
        return c;
    }

    static WorkloadSpec loadWorkload(String workload, Path workloadsDir) {
        Path file = Path.of(workload);
        if (workload.endsWith(".edn") || Files.isRegularFile(file)) return WorkloadSpec.load(file);
        Path dir = workloadsDir != null ? workloadsDir : Path.of("jepsen", "workloads");
        Path named = dir.resolve(workload + ".edn");
        if (Files.isRegularFile(named)) return WorkloadSpec.load(named);
        String resource = "/workloads/" + workload + ".edn";
        try (InputStream in = JepsenCli.class.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalArgumentException("no workload '" + workload + "' (looked for " + named + " and the built-in " + resource + ")");
            return WorkloadSpec.parse(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code cleanup}: removes whatever a crashed run left on this host (namespaces, bridge, mounts, loop devices, cgroups, processes). */
    @Command(name = "cleanup", mixinStandardHelpOptions = true,
            description = "Remove what a crashed run left on this host: server processes, namespaces, the bridge, mounts, loop devices, cgroups. Idempotent.")
    static final class Cleanup implements Callable<Integer> {
        @Override
        public Integer call() {
            HostLayout layout = HostLayout.DEFAULT;
            Shell shell = new Shell(line -> System.out.println("jepsen cleanup: " + line));
            try (HostLock lock = HostLock.acquire(layout, Duration.ofMinutes(1), System.out::println)) {
                List<String> problems = new io.tandem.jepsen.host.Cleanup(layout, shell).run();
                problems.forEach(p -> System.err.println("jepsen cleanup: " + p));
                return problems.isEmpty() ? 0 : 1;
            }
        }
    }
}
