package io.tandem.cli;

import io.tandem.protocols.Protocols;
import io.tandem.sim.SimBench;
import io.tandem.sim.cost.CostModel;
import io.tandem.sim.cost.CostTable;
import io.tandem.sim.cost.Slowdown;
import io.tandem.sim.cost.Units;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tandem simbench}: the performance simulator (issue 18). Runs a protocol's real engines in
 * the deterministic simulator with time from the calibrated cost table, under closed-loop clients,
 * healthy and with slowdowns, and prints and writes throughput and latency relative to healthy.
 * Deterministic: the same command gives the same numbers on any machine.
 */
@Command(name = "simbench", sortOptions = false, mixinStandardHelpOptions = true, description = {
        "Performance simulator: the real engines in the simulator with time from a calibrated cost table (CPU cores as queues, disk, links).",
        "With --slow, each slowed run is compared with the healthy run of the same seed. --scenarios FILE runs a whole matrix.",
        "Writes results.csv and timeline.csv (per 250 ms of each measured window) to --out."})
final class SimBenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--protocol", description = "Protocol (default ${DEFAULT-VALUE}); with TANDEM_TEST_PROTOCOLS=1 also the broken twins.")
    String protocol = "raft";

    @Option(names = "--nodes", description = "Group size (default ${DEFAULT-VALUE}).")
    int nodes = 3;

    @Option(names = "--clients", description = "Closed-loop clients, one operation outstanding each (default ${DEFAULT-VALUE}).")
    int clients = 16;

    @Option(names = "--slow", paramLabel = "TARGET:FAULT[,FAULT]", description = {"A slowdown applied after the warm-up; repeat for several. TARGET: follower, follower*2, leader, nK.",
            "FAULT: cpu=5%%[/1s], disk=512KiB/s, disk+=5ms, net=+400ms, pause=500ms/1s, stop."})
    List<String> slow = new ArrayList<>();

    @Option(names = "--scenarios", paramLabel = "FILE", description = "Run every scenario of FILE (one per line: protocol nodes clients healthy|slowdown...; see simbench/depfast.scenarios).")
    Path scenarios;

    @Option(names = "--deployment", paramLabel = "FILE", description = {"Where the protocol's roles run ('role = n1, n2' lines; multipaxos), for every run. Each member is its own machine",
            "(--cores), so one member per role instance gives one machine per role, as in the Compartmentalization paper."})
    Path deployment;

    @Option(names = "--engine-option", paramLabel = "KEY=VALUE", description = {"An engine setting for every run; repeat for several. multipaxos: max-batch-slots (1: one command per",
            "Phase 2, the paper's unbatched MultiPaxos), max-batch-bytes, window-slots, max-inflight-messages, max-queued-commands, batch-max-commands,",
            "proxy-stripe-slots; raft: max-inflight-messages, max-inflight-bytes, max-batch-entries, max-batch-bytes."})
    List<String> engineOption = new ArrayList<>();

    @Option(names = "--read-share", paramLabel = "SHARE", description = {"Share of operations that are linearizable reads, 0 to 1 or a percentage like 90%% (default 0: write-only).",
            "Each client draws read or write per operation; reads take the protocol's linearizable read path (multipaxos: leaderless, spec 2.4)."})
    String readShare = "0";

    @Option(names = "--seed", description = "Seed (default ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--cores", description = "Cores of each node's own machine (default ${DEFAULT-VALUE}).")
    int cores = 1;

    @Option(names = "--shared-cores", description = "0, or put every node and the load generator on one machine of this many cores (like this VM; default ${DEFAULT-VALUE}).")
    int sharedCores = 0;

    @Option(names = "--warmup", description = "Virtual warm-up before the slowdowns (default ${DEFAULT-VALUE}).")
    String warmup = "2s";

    @Option(names = "--settle", description = "Virtual time after the slowdowns, not measured (default ${DEFAULT-VALUE}).")
    String settle = "1s";

    @Option(names = "--measure", description = "Measured virtual window (default ${DEFAULT-VALUE}).")
    String measure = "4s";

    @Option(names = "--costs", paramLabel = "FILE", description = "Cost table (default: the table calibrated on the development machine, see protocols/README.md).")
    Path costs;

    @Option(names = "--out", paramLabel = "DIR", description = "Where to write results.csv and timeline.csv (default simbench-out/<date-time>); 'none' writes nothing.")
    String out;

    private double share;

    @Override
    public Integer call() throws IOException {
        CostTable table = costs == null ? CostTable.calibrated() : CostTable.read(costs);
        List<Scenario> list = new ArrayList<>();
        Defaults d = new Defaults(seed, parse(warmup), parse(settle), parse(measure), cores, sharedCores);
        double share;
        try {
            share = parseShare(readShare);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--read-share: " + e.getMessage());
        }
        if (scenarios != null) {
            if (!slow.isEmpty()) throw new ParameterException(spec.commandLine(), "--scenarios and --slow do not go together");
            list.addAll(readScenarios(scenarios, d));
        } else {
            List<Slowdown> s = new ArrayList<>();
            try {
                for (String text : slow) s.add(Slowdown.parse(text));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            list.add(new Scenario(protocol, nodes, clients, d, List.of()));
            if (!s.isEmpty()) list.add(new Scenario(protocol, nodes, clients, d, s));
        }
        this.share = share;
        try {
            this.engineOptions = parseEngineOptions(engineOption);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--engine-option: " + e.getMessage());
        }
        for (Scenario sc : list) engineProtocol(sc.protocol()); // a bad option stops before the first run
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.printf("cost table: calibrated %s on %s (%s cores), load %s%n", table.meta("date"), table.meta("host"), table.meta("cores"), table.meta("load.before"));
        if (!engineOptions.isEmpty()) stdout.println("engine options: " + engineOptions);
        stdout.println(header());
        Map<String, SimBench.Result> healthy = new LinkedHashMap<>();
        List<String[]> rows = new ArrayList<>();
        List<String> timeline = new ArrayList<>();
        long wall = System.nanoTime();
        for (Scenario sc : list) {
            String key = sc.baselineKey();
            if (!sc.slow().isEmpty() && !healthy.containsKey(key)) {
                SimBench.Result h = run(sc.healthy(), table);
                healthy.put(key, h);
                emit(stdout, rows, timeline, h, null);
            }
            SimBench.Result r = run(sc, table);
            if (sc.slow().isEmpty()) {
                if (healthy.containsKey(key)) continue; // already run as a baseline
                healthy.put(key, r);
            }
            emit(stdout, rows, timeline, r, sc.slow().isEmpty() ? null : healthy.get(key));
        }
        stdout.printf(Locale.ROOT, "%d runs in %.1f s wall%n", rows.size(), (System.nanoTime() - wall) / 1e9);
        if (!"none".equals(out)) {
            Path dir = Path.of(out != null ? out : "simbench-out/" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
            Files.createDirectories(dir);
            List<String> csv = new ArrayList<>();
            csv.add(String.join(",", COLUMNS));
            for (String[] r : rows) csv.add(String.join(",", r));
            Files.write(dir.resolve("results.csv"), csv, StandardCharsets.UTF_8);
            timeline.addFirst("protocol,nodes,clients,slow,t_ms,ops,ops_per_s,mean_us,p99_us,leader_queued_max,leader_outbox_bytes_max");
            Files.write(dir.resolve("timeline.csv"), timeline, StandardCharsets.UTF_8);
            nodeRows.addFirst("protocol,nodes,clients,slow,read_share,node,roles,cpu_cores,queue_max,sent_per_op,disk_busy,received_per_op");
            Files.write(dir.resolve("nodes.csv"), nodeRows, StandardCharsets.UTF_8);
            List<String> stages = new ArrayList<>(stageRows);
            stages.addFirst("protocol,nodes,clients,slow,seed,machine,is_leader,stage,cores_busy,cores_turns,cores_work");
            Files.write(dir.resolve("stages.csv"), stages, StandardCharsets.UTF_8);
            stdout.println("wrote " + dir.resolve("results.csv") + ", " + dir.resolve("nodes.csv") + " and " + dir.resolve("timeline.csv"));
        }
        return 0;
    }

    private SimBench.Result run(Scenario sc, CostTable table) {
        CostModel.Resources res = sc.defaults().sharedCores() > 0 ? CostModel.Resources.shared(sc.defaults().sharedCores()) : CostModel.Resources.dedicated(sc.defaults().cores());
        SimBench.Config c = new SimBench.Config(sc.nodes(), sc.clients(), 10_000, sc.defaults().warmup(), sc.defaults().settle(), sc.defaults().measure(), sc.defaults().seed(), res, sc.slow(), share);
        io.tandem.engine.Protocol p = engineProtocol(sc.protocol());
        io.tandem.roles.Deployment placed = null;
        if (deployment != null) {
            io.tandem.roles.RoleCatalog roles = p.roles().orElseThrow(() -> new ParameterException(spec.commandLine(), sc.protocol() + " runs one engine per member and takes no deployment file"));
            try {
                placed = io.tandem.roles.Deployment.read(deployment, roles);
                p = p.withDeployment(placed);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--deployment: " + e.getMessage());
            }
        }
        SimBench.Result r;
        try {
            r = SimBench.run(p, c, table);
        } catch (io.tandem.roles.DeploymentException e) { // e.g. a member the file names is beyond --nodes
            throw new ParameterException(spec.commandLine(), "--deployment: " + e.getMessage());
        }
        for (SimBench.NodeStat n : r.nodeStats()) {
            String roles = placed == null ? "all" : String.join("+", placed.resolve(members(sc.nodes())).rolesOf(io.tandem.engine.NodeId.of(n.node())));
            nodeRows.add(String.join(",", r.protocol(), Integer.toString(sc.nodes()), Integer.toString(sc.clients()), r.slowText(), String.format(Locale.ROOT, "%.2f", share),
                    n.node(), roles.isEmpty() ? "none" : roles, String.format(Locale.ROOT, "%.3f", n.cpu()), Integer.toString(n.queueMax()),
                    String.format(Locale.ROOT, "%.2f", r.ops() == 0 ? Double.NaN : n.sent() / (double) r.ops()), String.format(Locale.ROOT, "%.3f", n.disk()),
                    String.format(Locale.ROOT, "%.2f", r.ops() == 0 ? Double.NaN : n.received() / (double) r.ops())));
        }
        return r;
    }

    private final List<String> nodeRows = new ArrayList<>();

    private Map<String, String> engineOptions = Map.of();

    /** The protocol with the --engine-option settings, or a usage error naming the bad one. */
    private io.tandem.engine.Protocol engineProtocol(String name) {
        try {
            return Protocols.byName(name).withEngineOptions(engineOptions);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--engine-option: " + e.getMessage());
        }
    }

    /** {@code KEY=VALUE} texts as an ordered map ({@link io.tandem.protocols.EngineOptions#parse}). */
    static Map<String, String> parseEngineOptions(List<String> texts) {
        return io.tandem.protocols.EngineOptions.parse(texts);
    }

    private static List<io.tandem.engine.NodeId> members(int n) {
        List<io.tandem.engine.NodeId> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) out.add(io.tandem.engine.NodeId.of("n" + i));
        return out;
    }

    /** A share: a number from 0 to 1, or a percentage from 0% to 100%. */
    static double parseShare(String text) {
        String t = text.strip();
        double v;
        try {
            v = t.endsWith("%") ? Double.parseDouble(t.substring(0, t.length() - 1)) / 100 : Double.parseDouble(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a share (0 to 1, or 0% to 100%)");
        }
        if (!(v >= 0 && v <= 1)) throw new IllegalArgumentException("'" + text + "' is outside 0 to 1 (0% to 100%)");
        return v;
    }

    static final String[] COLUMNS = {"protocol", "nodes", "clients", "slow", "resources", "seed", "throughput_ops_s", "mean_us", "p50_us", "p99_us", "p999_us", "max_us",
            "throughput_pct", "mean_pct", "p99_pct", "leader", "slow_nodes", "leader_queue_start", "leader_queue_max", "leader_queue_end", "leader_queue_max_healthy",
            "leader_inflight_to_slow_max", "slow_backlog_start", "slow_backlog_end", "leader_cpu_cores", "cpu_us_per_op", "leader_changes", "retries", "events", "wall_s",
            "read_share", "leader_sent_per_op", "busiest_node", "busiest_cpu_cores", "p90_us",
            "leader_outbox_start_bytes", "leader_outbox_max_bytes", "leader_outbox_end_bytes", "leader_outbox_dropped",
            "leader_util", "leader_work_util", "leader_log_entries_start", "leader_log_entries_max", "leader_log_entries_end",
            "leader_log_bytes_start", "leader_log_bytes_max", "leader_log_bytes_end", "leader_inflight_bytes_start", "leader_inflight_bytes_max",
            "leader_inflight_bytes_end", "leader_inflight_msgs_max"};

    private static String header() {
        return String.format(Locale.ROOT, "%-34s %-5s %-3s %-30s %9s %8s %8s %8s %6s %6s %6s %13s %5s %7s %-12s %14s %s", "protocol", "nodes", "cl", "slow", "ops/s", "mean_us", "p50_us", "p99_us",
                "thr%", "mean%", "p99%", "leader q s/max/e", "cpu", "ldr m/op", "busiest", "outbox KiB m/e", "wall") + "  util/work  log KiB s/m/e  infl KiB s/m/e";
    }

    private void emit(PrintWriter stdout, List<String[]> rows, List<String> timeline, SimBench.Result r, SimBench.Result base) {
        String thrPct = base == null ? "" : pct(r.throughput(), base.throughput());
        String meanPct = base == null ? "" : pct(r.meanMicros(), base.meanMicros());
        String p99Pct = base == null ? "" : pct(r.p99Micros(), base.p99Micros());
        stdout.println(String.format(Locale.ROOT, "%-34s %-5d %-3d %-30s %9.0f %8.0f %8.0f %8.0f %6s %6s %6s %13s %5.2f %7.2f %-12s %14s %.1fs", r.protocol(), r.config().nodes(), r.config().clients(), r.slowText(),
                r.throughput(), r.meanMicros(), r.p50Micros(), r.p99Micros(), thrPct, meanPct, p99Pct,
                r.leaderQueueStart() + "/" + r.leaderQueueMax() + "/" + r.leaderQueueEnd(), r.leaderCpu(), r.leaderSentPerOp(),
                r.busiest() == null ? "-" : r.busiest().node() + "@" + String.format(Locale.ROOT, "%.2f", r.busiest().cpu()),
                (r.leaderOutboxMax() >> 10) + "/" + (r.leaderOutboxEnd() >> 10), r.wallNanos() / 1e9)
                + String.format(Locale.ROOT, "  %.2f/%.2f  %d/%d/%d  %d/%d/%d", leaderUtil(r, false), leaderUtil(r, true),
                r.leaderHeldStart().logBytes() >> 10, r.leaderHeldMax().logBytes() >> 10, r.leaderHeldEnd().logBytes() >> 10,
                r.leaderHeldStart().inflightBytes() >> 10, r.leaderHeldMax().inflightBytes() >> 10, r.leaderHeldEnd().inflightBytes() >> 10));
        rows.add(new String[] {r.protocol(), Integer.toString(r.config().nodes()), Integer.toString(r.config().clients()), r.slowText(), r.config().resources().format(),
                Long.toString(r.config().seed()), f0(r.throughput()), f0(r.meanMicros()), f0(r.p50Micros()), f0(r.p99Micros()), f0(r.p999Micros()), f0(r.maxMicros()),
                thrPct, meanPct, p99Pct, String.valueOf(r.leader()), String.join(" ", r.slowNodes()), Integer.toString(r.leaderQueueStart()),
                Integer.toString(r.leaderQueueMax()), Integer.toString(r.leaderQueueEnd()), base == null ? "" : Integer.toString(base.leaderQueueMax()),
                Integer.toString(r.leaderInFlightMax()), Integer.toString(r.backlogStart()), Integer.toString(r.backlogEnd()), String.format(Locale.ROOT, "%.3f", r.leaderCpu()), String.format(Locale.ROOT, "%.1f", r.cpuMicrosPerOp()), Integer.toString(r.leaderChanges()),
                Long.toString(r.retries()), Long.toString(r.events()), String.format(Locale.ROOT, "%.2f", r.wallNanos() / 1e9),
                String.format(Locale.ROOT, "%.2f", r.config().readShare()), String.format(Locale.ROOT, "%.2f", r.leaderSentPerOp()),
                r.busiest() == null ? "" : r.busiest().node(), r.busiest() == null ? "" : String.format(Locale.ROOT, "%.3f", r.busiest().cpu()), f0(r.p90Micros()),
                Long.toString(r.leaderOutboxStart()), Long.toString(r.leaderOutboxMax()), Long.toString(r.leaderOutboxEnd()), Long.toString(r.leaderOutboxDropped()),
                String.format(Locale.ROOT, "%.3f", leaderUtil(r, false)), String.format(Locale.ROOT, "%.3f", leaderUtil(r, true)),
                Long.toString(r.leaderHeldStart().logEntries()), Long.toString(r.leaderHeldMax().logEntries()), Long.toString(r.leaderHeldEnd().logEntries()),
                Long.toString(r.leaderHeldStart().logBytes()), Long.toString(r.leaderHeldMax().logBytes()), Long.toString(r.leaderHeldEnd().logBytes()),
                Long.toString(r.leaderHeldStart().inflightBytes()), Long.toString(r.leaderHeldMax().inflightBytes()), Long.toString(r.leaderHeldEnd().inflightBytes()),
                Long.toString(r.leaderHeldMax().inflightMessages())});
        r.stageCores().forEach((k, v) -> {
            int slash = k.indexOf('/');
            double turns = r.stageTurnCores().getOrDefault(k, 0.0);
            if (v > 0) stageRows.add(String.join(",", r.protocol(), Integer.toString(r.config().nodes()), Integer.toString(r.config().clients()), r.slowText(),
                    Long.toString(r.config().seed()), k.substring(0, slash), k.equals(String.valueOf(r.leader()) + k.substring(slash)) ? "leader" : "",
                    k.substring(slash + 1), String.format(Locale.ROOT, "%.4f", v), String.format(Locale.ROOT, "%.4f", turns), String.format(Locale.ROOT, "%.4f", v - turns)));
        });
        for (SimBench.Bucket b : r.timeline()) {
            timeline.add(String.join(",", r.protocol(), Integer.toString(r.config().nodes()), Integer.toString(r.config().clients()), r.slowText(),
                    Long.toString(b.startNanos() / 1_000_000), Long.toString(b.ops()), f0(b.ops() * 4.0), f0(b.meanMicros()), f0(b.p99Micros()), Integer.toString(b.leaderQueued()), Long.toString(b.leaderOutboxBytes())));
        }
    }

    /**
     * The leader's utilisation in the window: its machine's busy core time per second over its cores (DepFast set its load so
     * that this is about 75 %). {@code workOnly}: without the wake-up turns ({@link SimBench.Result#stageTurnCores}), i.e. the
     * jobs' own work, the part that does not fall away as the load grows. NaN without a leader or on a shared machine.
     */
    static double leaderUtil(SimBench.Result r, boolean workOnly) {
        if (r.leader() == null || r.config().resources().sharedCores() > 0) return Double.NaN;
        double busy = 0;
        for (var e : r.stageCores().entrySet()) {
            if (!e.getKey().startsWith(r.leader() + "/")) continue;
            busy += e.getValue() - (workOnly ? r.stageTurnCores().getOrDefault(e.getKey(), 0.0) : 0);
        }
        return busy / r.config().resources().coresPerNode();
    }

    private final List<String> stageRows = new ArrayList<>();

    static String pct(double value, double healthy) {
        return String.format(Locale.ROOT, "%.1f", 100.0 * value / healthy);
    }

    private static String f0(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.0f", v);
    }

    private long parse(String d) {
        try {
            return Units.parseNanos(d);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    record Defaults(long seed, long warmup, long settle, long measure, int cores, int sharedCores) {}

    record Scenario(String protocol, int nodes, int clients, Defaults defaults, List<Slowdown> slow) {
        String baselineKey() {
            return protocol + "/" + nodes + "/" + clients + "/" + defaults;
        }

        Scenario healthy() {
            return new Scenario(protocol, nodes, clients, defaults, List.of());
        }
    }

    /**
     * A scenario file: {@code key=value} lines set defaults for the lines after them (seed, warmup,
     * settle, measure, cores, shared-cores); every other line is {@code protocol nodes clients} then
     * {@code healthy} or one or more slowdowns; {@code #} starts a comment.
     */
    static List<Scenario> readScenarios(Path file, Defaults start) throws IOException {
        List<Scenario> out = new ArrayList<>();
        Defaults d = start;
        int lineNo = 0;
        for (String raw : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            lineNo++;
            String line = raw.replaceAll("#.*", "").trim();
            if (line.isEmpty()) continue;
            try {
                if (line.matches("[a-z-]+=\\S+")) {
                    String[] kv = line.split("=", 2);
                    d = switch (kv[0]) {
                        case "seed" -> new Defaults(Long.parseLong(kv[1]), d.warmup(), d.settle(), d.measure(), d.cores(), d.sharedCores());
                        case "warmup" -> new Defaults(d.seed(), Units.parseNanos(kv[1]), d.settle(), d.measure(), d.cores(), d.sharedCores());
                        case "settle" -> new Defaults(d.seed(), d.warmup(), Units.parseNanos(kv[1]), d.measure(), d.cores(), d.sharedCores());
                        case "measure" -> new Defaults(d.seed(), d.warmup(), d.settle(), Units.parseNanos(kv[1]), d.cores(), d.sharedCores());
                        case "cores" -> new Defaults(d.seed(), d.warmup(), d.settle(), d.measure(), Integer.parseInt(kv[1]), d.sharedCores());
                        case "shared-cores" -> new Defaults(d.seed(), d.warmup(), d.settle(), d.measure(), d.cores(), Integer.parseInt(kv[1]));
                        default -> throw new IllegalArgumentException("unknown setting '" + kv[0] + "' (seed, warmup, settle, measure, cores, shared-cores)");
                    };
                    continue;
                }
                String[] f = line.split("\\s+");
                if (f.length < 4) throw new IllegalArgumentException("expected: protocol nodes clients healthy|slowdown...");
                List<Slowdown> s = new ArrayList<>();
                for (int i = 3; i < f.length; i++) if (!f[i].equals("healthy")) s.add(Slowdown.parse(f[i]));
                out.add(new Scenario(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]), d, s));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + ":" + lineNo + ": " + e.getMessage(), e);
            }
        }
        return out;
    }
}
