package io.tandem.cli;

import io.tandem.engine.Protocol;
import io.tandem.protocols.Protocols;
import io.tandem.sim.FaultKind;
import io.tandem.sim.FaultMinimizer;
import io.tandem.sim.FaultSchedule;
import io.tandem.sim.Simulation;
import io.tandem.sim.Latency;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.SimTime;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tandem sim}: runs seeds of a protocol in the deterministic simulator, prints a progress
 * line now and then and exactly one summary line {@code seeds=N failures=F ...} at the end. A
 * failing seed prints itself, every option and the command that replays it exactly; the fault
 * schedule of the first failure is minimized.
 */
@Command(name = "sim", sortOptions = false, mixinStandardHelpOptions = true, description = {
        "Run the deterministic simulator: seeds of a protocol under faults, invariants and a linearizability check.",
        "Invariants are checked after every step and client histories for linearizability. Exit status 1 if any seed fails.",
        "Replay a seed exactly with the command a failure prints (or --seed S --seeds 1)."})
final class SimCommand implements Callable<Integer> {
    private static final SimOptions DEFAULTS = SimOptions.defaults();

    @Spec
    CommandSpec spec;

    /** The protocol names, for help and completion. */
    static final class ProtocolNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return Protocols.names().iterator();
        }
    }

    @Option(names = "--protocol", required = true, completionCandidates = ProtocolNames.class, description = "Protocol to simulate, one of: ${COMPLETION-CANDIDATES}.")
    String protocol;

    @Option(names = "--deployment", paramLabel = "FILE", description = "Where the protocol's roles run ('role = n1, n2' lines, as for tandem cluster; multipaxos); "
            + "--nodes must cover every member it names. Random engine configurations keep it.")
    java.nio.file.Path deployment;

    @Option(names = "--seeds", description = "How many seeds to run (default ${DEFAULT-VALUE}).")
    int seeds = 100;

    @Option(names = "--seed", description = "First seed (default ${DEFAULT-VALUE}); seeds run are [seed, seed + seeds).")
    long seed = DEFAULTS.seed();

    @Option(names = "--nodes", description = "Group size (default ${DEFAULT-VALUE}; 5 with --shards, so that shards move as members come and go).")
    int nodes = DEFAULTS.nodes();

    @Option(names = "--clients", description = "Concurrent clients (default ${DEFAULT-VALUE}).")
    int clients = DEFAULTS.clients();

    @Option(names = "--ops", description = "Client operations per seed in the fault phase (default ${DEFAULT-VALUE}).")
    int ops = DEFAULTS.ops();

    @Option(names = "--keys", description = "Register keys in use at a time (default ${DEFAULT-VALUE}).")
    int keys = DEFAULTS.keys();

    @Option(names = "--ops-per-key", description = "Operations per key before it is retired (default ${DEFAULT-VALUE}).")
    int opsPerKey = DEFAULTS.opsPerKey();

    @Option(names = "--duration", description = "Virtual length of the fault phase (default ${DEFAULT-VALUE}).")
    String duration = SimTime.format(DEFAULTS.durationNanos());

    @Option(names = "--op-timeout", description = "Client operation timeout; then :info (default ${DEFAULT-VALUE}).")
    String opTimeout = SimTime.format(DEFAULTS.opTimeoutNanos());

    @Option(names = "--liveness", description = "After healing, bound for every client's answers (default ${DEFAULT-VALUE}).")
    String liveness = SimTime.format(DEFAULTS.livenessNanos());

    @Option(names = "--liveness-ops", description = "Definite answers each client needs after healing (default ${DEFAULT-VALUE}).")
    int livenessOps = DEFAULTS.livenessOps();

    @Option(names = "--faults", description = "all, none or a list of: partition,crash,pause,clock,slow,loss (default ${DEFAULT-VALUE}).")
    String faults = FaultKind.formatList(DEFAULTS.faults());

    @Option(names = "--fault-rate", description = "Fault episodes per virtual second (default ${DEFAULT-VALUE}).")
    double faultRate = DEFAULTS.faultsPerSecond();

    @Option(names = "--fault-length", description = "Mean length of a fault episode (default ${DEFAULT-VALUE}).")
    String faultLength = SimTime.format(DEFAULTS.meanFaultNanos());

    @Option(names = "--latency", description = "Network latency: fixed:D, uniform:MIN:MAX or exp:MIN:MEAN (default ${DEFAULT-VALUE}).")
    String latency = DEFAULTS.networkLatency().format();

    @Option(names = "--loss", description = "Message loss probability (default ${DEFAULT-VALUE}).")
    double loss = DEFAULTS.lossRate();

    @Option(names = "--dup", description = "Message duplication probability (default ${DEFAULT-VALUE}).")
    double dup = DEFAULTS.duplicateRate();

    @Option(names = "--reorder", description = "Probability a message may overtake earlier ones (default ${DEFAULT-VALUE}).")
    double reorder = DEFAULTS.reorderRate();

    @Option(names = "--codec", arity = "1", description = "true: pass messages through the protocol's Kryo codec; false: by reference (default ${DEFAULT-VALUE}).")
    boolean codec = DEFAULTS.codec();

    @Option(names = "--disk-latency", description = "Disk flush latency distribution (default ${DEFAULT-VALUE}).")
    String diskLatency = DEFAULTS.diskLatency().format();

    @Option(names = "--torn-writes", arity = "1", description = "A crash may tear the first unsynced log record (default ${DEFAULT-VALUE}).")
    boolean tornWrites = DEFAULTS.tornWrites();

    @Option(names = "--unsynced-survival", description = "Probability a crash keeps a prefix of unsynced writes (default ${DEFAULT-VALUE}).")
    double unsyncedSurvival = DEFAULTS.unsyncedSurvival();

    @Option(names = "--max-events", description = "Fail a seed that needs more events (default ${DEFAULT-VALUE}).")
    long maxEvents = DEFAULTS.maxEvents();

    @Option(names = "--invariants", arity = "1", description = "Check the built-in and protocol invariants after every step (default ${DEFAULT-VALUE}); "
            + "with false only the client history is judged.")
    boolean invariants = DEFAULTS.invariants();

    @Option(names = "--pipelined", description = "Add a client keeping this many commands in flight on one session, retried until answered; "
            + "every replica must apply each exactly once (default ${DEFAULT-VALUE}: none).")
    int pipelined = DEFAULTS.pipelinedCommands();

    @Option(names = "--clock-drift-ppm", paramLabel = "PPM", description = "Bound on each node's clock rate error, parts per million (default ${DEFAULT-VALUE}); 0 for perfect rates.")
    int clockDriftPpm = DEFAULTS.clockDriftPpm();

    @Option(names = "--lease-reads", paramLabel = "SHARE", description = "Share of reads asked with the LEASE policy, 0 to 1 (default ${DEFAULT-VALUE}).")
    double leaseReads = DEFAULTS.leaseReadShare();

    @Option(names = "--stale-reads", paramLabel = "SHARE", description = "Share of reads asked with ReadPolicy.stale(minIndex) at any member, for engines that serve them; "
            + "minIndex is the highest index applied anywhere at invocation, so the history check judges them as linearizable (default ${DEFAULT-VALUE}).")
    double staleReads = DEFAULTS.staleReadShare();

    @Option(names = "--engine-config", paramLabel = "random|default", description = "random: each seed runs the engine with a configuration drawn from the seed within its valid ranges "
            + "(timeouts, snapshot thresholds and chunks, batching, optional features); default: the protocol's own (default ${DEFAULT-VALUE}).")
    String engineConfig = "random";

    @Option(names = "--profile", paramLabel = "PROFILE", description = "Fault profile: standard, crash-heavy, slow-disk, or mixed (one of them per seed: a quarter crash-heavy, a quarter slow-disk) "
            + "(default ${DEFAULT-VALUE}).")
    String profile = "mixed";

    @Option(names = "--admin", arity = "1", description = "An operator issues the protocol's admin commands in the fault phase: leader transfers and "
            + "membership changes (remove, add learner, promote), for engines that take them (default ${DEFAULT-VALUE}).")
    boolean admin = false;

    @Option(names = "--schedule", description = "Explicit fault schedule (as a failure prints it) instead of generating one.")
    String schedule;

    @Option(names = "--max-failures", description = "Stop after this many failing seeds (default ${DEFAULT-VALUE}).")
    int maxFailures = 10;

    @Option(names = "--no-minimize", description = "Do not minimize the fault schedule of the first failure.")
    boolean noMinimize;

    @Option(names = "--execution", paramLabel = "MODE", description = "How nodes execute: sequential, psmr or opt-psmr (the runtime's parallel executor, its workers stepped deterministically from the seed).")
    String execution = DEFAULTS.execution().text();

    @Option(names = "--threads", paramLabel = "N", description = "Workers of a parallel execution mode (default: 2 with psmr/opt-psmr, else 1).")
    Integer threads;

    @Option(names = "--trace", description = "Write one line per event of the first seed to this file.")
    Path trace;

    @Option(names = "--shards", paramLabel = "N", description = "virtual-synchrony: run its subgroups and shards (a kv subgroup of N shards beside the whole group and a log subgroup; "
            + "every member multicasts in each shard it serves), checking virtual synchrony per shard as shards move with the views.")
    Integer shards;

    @Option(names = "--durable", description = "With --shards: the shards are durable (a store subgroup of every member and N kv shards, no clients); "
            + "faults are total failures and restarts, and nothing reported persisted may be lost.")
    boolean durable;

    @Option(names = "--window", paramLabel = "W", description = "virtual-synchrony: every seed's send window (ring slots per sender) is W instead of the one drawn "
            + "from the seed (1 to 32), the other drawn settings unchanged; for checking a window an application or benchmark runs (default: drawn).")
    Integer window;

    @Option(names = "--history-dir", description = "Write the client history (Jepsen EDN) of each failing seed to this directory.")
    Path historyDir;

    SimOptions options() {
        try {
            return new SimOptions(seed, nodes, clients, ops, keys, opsPerKey, SimTime.parse(duration), SimTime.parse(opTimeout), SimTime.parse(liveness),
                    livenessOps, FaultKind.parseList(faults), faultRate, SimTime.parse(faultLength), Latency.parse(latency), loss, dup, reorder, codec,
                    Latency.parse(diskLatency), tornWrites, unsyncedSurvival, maxEvents, invariants, schedule == null ? null : FaultSchedule.parse(schedule), pipelined, clockDriftPpm, leaseReads, staleReads,
                    io.tandem.execution.ExecutionMode.parse(execution),
                    threads != null ? threads : io.tandem.execution.ExecutionMode.parse(execution) == io.tandem.execution.ExecutionMode.SEQUENTIAL ? 1 : 2,
                    parseEngineConfig(engineConfig), io.tandem.sim.FaultProfile.parse(profile), admin);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    private static boolean parseEngineConfig(String text) {
        return switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "random" -> true;
            case "default" -> false;
            default -> throw new IllegalArgumentException("--engine-config must be random or default, was '" + text + "'");
        };
    }

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        Protocol p;
        try {
            p = Protocols.byName(protocol);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        if (deployment != null) {
            io.tandem.roles.RoleCatalog roles = p.roles().orElseThrow(() -> new ParameterException(spec.commandLine(), protocol + " runs one engine per member and takes no deployment file"));
            try {
                p = p.withDeployment(io.tandem.roles.Deployment.read(deployment, roles));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--deployment: " + e.getMessage(), e);
            }
        }
        if (seeds < 1) throw new ParameterException(spec.commandLine(), "--seeds must be >= 1");
        SimOptions base = options();
        io.tandem.protocols.vsync.ShardSimulation sharded = null;
        if (durable && shards == null) throw new ParameterException(spec.commandLine(), "--durable needs --shards");
        if (shards != null) {
            if (!spec.commandLine().getParseResult().hasMatchedOption("--nodes")) base = base.withWorkload(5, base.clients(), base.ops());
            // The protocol says whether it splits its group into shards (Protocol.shardingRefused), and why not.
            java.util.Optional<String> refused = p.shardingRefused();
            if (refused.isPresent()) throw new ParameterException(spec.commandLine(), "--shards needs a protocol that splits its group into shards: " + refused.get());
            try {
                sharded = io.tandem.protocols.vsync.ShardSimulation.over(p, shards, durable, base.nodes());
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage(), e);
            }
            p = sharded;
            base = sharded.adapt(base);
        }
        if (window != null) {
            if (!(p instanceof io.tandem.protocols.vsync.VirtualSynchronyProtocol v)) throw new ParameterException(spec.commandLine(), "--window is virtual-synchrony's send window; " + p.name() + " has none");
            try {
                p = v.withSimulatedWindow(window);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage(), e);
            }
        }
        try {
            Simulation.checkConfiguration(p, base);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), p.name() + " cannot run as simulated (--nodes " + base.nodes() + "): " + e.getMessage(), e);
        }
        out.println("simulating " + p.name() + ": " + seeds + " seed(s) from " + seed + "; " + base.describe());
        out.flush();
        if (trace != null) writeTrace(p, base.withSeed(seed));

        List<Long> seedList = new ArrayList<>(seeds);
        for (int i = 0; i < seeds; i++) seedList.add(seed + i);
        long started = System.nanoTime();
        long[] lastProgress = {started};
        int[] done = {0};
        int[] failed = {0};
        SimRunner.Summary summary = SimRunner.run(p, base, seedList, maxFailures, r -> {
            done[0]++;
            if (!r.passed()) {
                failed[0]++;
                out.println(SimRunner.describeFailure(r));
                writeHistory(r);
            }
            long now = System.nanoTime();
            if (now - lastProgress[0] > 2_000_000_000L || done[0] == seeds) {
                lastProgress[0] = now;
                out.printf(java.util.Locale.ROOT, "progress %d/%d seeds, %d failures, %.1f seeds/s%n", done[0], seeds, failed[0], done[0] * 1e9 / (now - started));
            }
            out.flush();
        });
        if (!summary.failures().isEmpty() && !noMinimize) {
            SimResult first = summary.failures().getFirst();
            if (first.schedule().size() > 0) {
                FaultMinimizer.Minimized m = FaultMinimizer.minimize(p, first, 200, null);
                out.println("minimal fault schedule for seed " + first.seed() + " (" + m.schedule().size() + " of " + first.schedule().size()
                        + " events, " + m.runs() + " runs): " + m.schedule().format());
                out.println("  " + m.result().failure().orElseThrow().summary().replace("\n", "\n    "));
                out.println("  replay minimal: " + SimRunner.replayCommand(p.name(), m.result().options()));
            }
        }
        if (sharded != null) out.println(sharded.report());
        out.println(summary.line());
        out.flush();
        return summary.failures().isEmpty() ? 0 : 1;
    }

    private void writeTrace(Protocol p, SimOptions options) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(trace)) {
            new Simulation(p, options, line -> {
                try {
                    w.write(line);
                    w.newLine();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).run();
        }
        spec.commandLine().getOut().println("wrote the event trace of seed " + options.seed() + " to " + trace);
    }

    private void writeHistory(SimResult r) {
        if (historyDir == null) return;
        try {
            Files.createDirectories(historyDir);
            Path file = historyDir.resolve(r.protocol() + "-seed-" + r.seed() + ".edn");
            r.history().write(file);
            spec.commandLine().getOut().println("  history: " + file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
