package io.tandem.bench.peers;

import io.tandem.bench.Slowness;
import io.tandem.bench.SteadyState;
import io.tandem.bench.os.ProcStat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The cluster benchmark against peers (issue 9): the same closed-loop put workload against each
 * Tandem engine, the unreplicated Tandem server and the peer systems, every system in JVMs of its own
 * with identical settings, started from its {@code peers/<module>/target/peer-<module>.jar}.
 *
 * <pre>
 * jmh/run-peers.sh                    # quick: 1 run, 64 B with fsync off and on, 10 s + 10 s, a follower under a CPU quota
 * jmh/run-peers.sh --mode full        # 3 interleaved runs, 4 configurations, 20 s + 30 s, CPU quota, pauses, transport delay
 * </pre>
 */
@Command(name = "run-peers.sh", mixinStandardHelpOptions = true, sortOptions = false, description = {
        "Cluster benchmark against peers: closed-loop puts against each system's replicas (3, or 1 for tandem-unreplicated), each a JVM of its own",
        "(java -Xms1g -Xmx1g -XX:+UseParallelGC -XX:+AlwaysPreTouch -jar peers/<module>/target/peer-<module>.jar), on 127.0.0.1.",
        "Throughput matrix: per run, configuration and system a fresh cluster, warm-up (discarded), measured window; medians over runs.",
        "Slowdown scenarios: per system and fault a fresh cluster under load: healthy, a follower slow, healthy, the leader slow, healthy.",
        "Outputs in --out: results.csv, summary.csv, summary.md, slowdown.csv, throughput-<config>.png, latency-<fault>.png, timelines/, logs/."})
public final class PeerBenchmark implements Callable<Integer> {
    /** The presets of the two modes. */
    enum Mode {
        quick(1, List.of("64B-nofsync", "64B-fsync"), 10, 60, 10, List.of(Slowdown.Kind.cpu), List.of(Slowdown.Target.follower), 10, 5, 10),
        full(3, List.of("64B-nofsync", "64B-fsync", "1024B-nofsync", "1024B-fsync"), 20, 120, 30, List.of(Slowdown.Kind.cpu, Slowdown.Kind.pause, Slowdown.Kind.net),
                List.of(Slowdown.Target.follower, Slowdown.Target.leader), 60, 10, 20);

        final int runs, warmup, maxWarmup, measure, slowWarmup, slowHealthy, slowWindow;
        final List<String> configs;
        final List<Slowdown.Kind> kinds;
        final List<Slowdown.Target> targets;

        Mode(int runs, List<String> configs, int warmup, int maxWarmup, int measure, List<Slowdown.Kind> kinds, List<Slowdown.Target> targets, int slowWarmup,
             int slowHealthy, int slowWindow) {
            this.runs = runs;
            this.configs = configs;
            this.warmup = warmup;
            this.maxWarmup = maxWarmup;
            this.measure = measure;
            this.kinds = kinds;
            this.targets = targets;
            this.slowWarmup = slowWarmup;
            this.slowHealthy = slowHealthy;
            this.slowWindow = slowWindow;
        }
    }

    /** Everything a benchmark run needs, checked. */
    record Settings(String mode, List<String> systems, boolean systemsExplicit, int runs, List<Config> configs, int warmup, int measure,
                    List<Slowdown.Kind> kinds, Set<Slowdown.Target> slowTargets, Config slowConfig, int slowWarmup, int slowHealthy, int slowWindow, Slowness.CpuQuota cpu,
                    Slowness.Pauses pause, Slowness.NetworkDelay net, int clients, int keys, int basePort, int startTimeout, String heap,
                    int tandemAdminPortOffset, Path repoRoot, Path workDir, Path out, Path cgroupRoot, SteadyState warmupRule, Path profileWindow,
                    List<SystemOption> systemOptions, List<SystemOption> loadOptions) {
        /** The {@code --opt} settings for {@code system}'s replicas, in the order given. */
        List<String> optionsFor(String system) {
            return SystemOption.of(systemOptions, system);
        }

        /** The {@code --load-opt} settings for {@code system}'s load client, in the order given. */
        List<String> loadOptionsFor(String system) {
            return SystemOption.of(loadOptions, system);
        }

        Slowness slowness(Slowdown.Kind kind) {
            return switch (kind) {
                case cpu -> cpu;
                case pause -> pause;
                case net -> net;
            };
        }
    }

    @Option(names = "--mode", description = "quick (1 run; 64B-nofsync,64B-fsync; 10..60 s warm-up + 10 s measured; slowdown: cpu on a follower) or full "
            + "(3 runs; all four configurations; 20..120 s + 30 s; slowdown: cpu,pause,net on a follower, then the leader). Default: ${DEFAULT-VALUE}.")
    Mode mode = Mode.quick;

    @Option(names = "--systems", split = ",", paramLabel = "NAME", description = "Systems to run (default: all: tandem-raft, tandem-multipaxos, "
            + "tandem-unreplicated, ratis, jgroups-raft, sofajraft, aeron-cluster). A default system whose jar is missing is skipped; a named one is an error.")
    List<String> systems;

    @Option(names = "--runs", description = "Interleaved runs of the throughput matrix (default: by mode); medians are reported.")
    Integer runs;

    @Option(names = "--configs", split = ",", paramLabel = "ID", description = "Configurations <size>B-fsync|<size>B-nofsync (default: by mode), or none to skip the matrix.")
    List<String> configs;

    @Option(names = "--warmup", paramLabel = "SECONDS", description = "Least load seconds discarded before the measured window (default: by mode).")
    Integer warmup;

    @Option(names = "--max-warmup", paramLabel = "SECONDS", description = "Longest warm-up (default: by mode); before it, the warm-up ends once the JIT "
            + "compiler threads of the trial's JVMs used at most --max-jit-percent of their CPU over the last 5 s and throughput stopped rising. "
            + "Equal to --warmup: a fixed warm-up.")
    Integer maxWarmup;

    @Option(names = "--max-jit-percent", description = "Warm-up: the JIT compilers' largest share of the trial's CPU over the last 5 s. Default: ${DEFAULT-VALUE}.")
    double maxJitPercent = 5;

    @Option(names = {"--measure", "--duration"}, paramLabel = "SECONDS", description = "Measured seconds per trial (default: by mode).")
    Integer measure;

    @Option(names = "--slowdown", split = ",", paramLabel = "KIND", description = "Slowdown fault kinds: cpu, pause, net (Tandem systems only), or none (default: by mode).")
    List<String> slowdown;

    @Option(names = "--slow-targets", split = ",", paramLabel = "TARGET", description = "Slowdown: which replicas are made slow, in turn: follower, leader "
            + "(default: by mode: quick follower, full follower,leader).")
    List<String> slowTargets;

    @Option(names = "--slowdown-config", paramLabel = "ID", description = "Configuration of the slowdown scenarios. Default: ${DEFAULT-VALUE}.")
    String slowdownConfig = "64B-fsync";

    @Option(names = "--slow-warmup", paramLabel = "SECONDS", description = "Slowdown: load seconds before the first healthy window (default: by mode).")
    Integer slowWarmup;

    @Option(names = "--slow-healthy", paramLabel = "SECONDS", description = "Slowdown: length of each healthy window (default: by mode).")
    Integer slowHealthy;

    @Option(names = "--slow-window", paramLabel = "SECONDS", description = "Slowdown: length of the follower-slow and leader-slow windows (default: by mode).")
    Integer slowWindow;

    @Option(names = "--cpu-percent", description = "cpu: cgroup v1 quota in %% of one core. Default: ${DEFAULT-VALUE}.")
    double cpuPercent = 20;

    @Option(names = "--cpu-period-ms", description = "cpu: CFS period. Default: ${DEFAULT-VALUE}.")
    long cpuPeriodMs = 100;

    @Option(names = "--pause-ms", description = "pause: length of each SIGSTOP. Default: ${DEFAULT-VALUE}.")
    long pauseMs = 500;

    @Option(names = "--pause-period-ms", description = "pause: one SIGSTOP per period. Default: ${DEFAULT-VALUE}.")
    long pausePeriodMs = 1000;

    @Option(names = "--net-delay-ms", description = "net: delay of every message the slow Tandem replica sends. Default: ${DEFAULT-VALUE}.")
    long netDelayMs = 400;

    @Option(names = "--clients", description = "Closed-loop clients, each with one put outstanding. Default: ${DEFAULT-VALUE}.")
    int clients = 16;

    @Option(names = "--keys", description = "Key space the puts pick from uniformly. Default: ${DEFAULT-VALUE}.")
    int keys = 10_000;

    @Option(names = "--base-port", description = "First port; trials rotate through base .. base+799 (20 ports per replica). Default: ${DEFAULT-VALUE}.")
    int basePort = 24000;

    @Option(names = "--start-timeout", paramLabel = "SECONDS", description = "Deadline for READY lines and a single leader. Default: ${DEFAULT-VALUE}.")
    int startTimeout = 120;

    @Option(names = "--heap", description = "-Xms and -Xmx of every JVM (replicas and load). Default: ${DEFAULT-VALUE}.")
    String heap = "1g";

    @Option(names = "--jvm-opt", paramLabel = "OPTION", description = "An extra option for every JVM (replicas and load), after the defaults; repeat for several, "
            + "e.g. --jvm-opt=-XX:StartFlightRecording=delay=20s,duration=10s,settings=profile,filename=/tmp/jfr/rec-%%p.jfr (profiling).")
    List<String> jvmOpts = new ArrayList<>();

    @Option(names = "--opt", paramLabel = "[SYSTEM:]KEY=VALUE", description = "A replica setting, passed as --opt KEY=VALUE to the replicas "
            + "of SYSTEM (one of --systems), or of every system without the prefix; repeat for several, e.g. --opt ratis:log-metadata=false "
            + "(each adapter's settings: peers/README.md).")
    List<String> opts = new ArrayList<>();

    @Option(names = "--load-opt", paramLabel = "[SYSTEM:]KEY=VALUE", description = "A load-client setting of SYSTEM (or of every system), passed as "
            + "--opt KEY=VALUE to the load JVM, e.g. --load-opt tandem-raft:request-timeout=20s.")
    List<String> loadOpts = new ArrayList<>();

    /** One {@code --opt}: a setting for one system, or for all ({@code system} null). */
    record SystemOption(String system, String setting) {
        static SystemOption parse(String text) {
            int eq = text.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("--opt takes [SYSTEM:]KEY=VALUE, got '" + text + "'");
            int colon = text.substring(0, eq).indexOf(':'); // keys have no ':'; values may (addresses)
            if (colon < 0) return new SystemOption(null, text);
            String system = text.substring(0, colon).strip();
            String setting = text.substring(colon + 1);
            if (setting.indexOf('=') <= 0) throw new IllegalArgumentException("--opt " + text + ": no KEY before '='");
            SystemCatalog.spec(system); // an unknown system fails here, with the known names
            return new SystemOption(system, setting);
        }

        static List<String> of(List<SystemOption> options, String system) {
            return options.stream().filter(o -> o.system() == null || o.system().equals(system)).map(SystemOption::setting).toList();
        }
    }

    @Option(names = "--profile-window", paramLabel = "DIR", description = "Profiles exactly the measured window of every trial: each replica's CPU by thread "
            + "(/proc, at the window's start and end) in DIR/<trial>-threads.csv and, for JVMs started with a continuous JFR recording "
            + "(--jvm-opt=-XX:StartFlightRecording=...), that recording's window cut out with jcmd JFR.dump into DIR/<trial>-r<replica>-<pid>.jfr.")
    Path profileWindow;

    @Option(names = "--tandem-admin-port-offset", description = "net: port offset (in the replica's block of 20) of a Tandem replica's KV client/admin port. Default: ${DEFAULT-VALUE}.")
    int tandemAdminPortOffset = 1;

    @Option(names = "--repo", description = "Repository root holding peers/<module>/target/peer-<module>.jar. Default: the current directory.")
    Path repoRoot = Path.of("");

    @Option(names = "--work-dir", description = "Data directories and the lock file. Default: ${DEFAULT-VALUE}.")
    Path workDir = Path.of("/var/tmp/tandem-peerbench");

    @Option(names = "--out", description = "Output directory (default: jmh/target/peers/<date-time>).")
    Path out;

    @Option(names = "--cgroup-root", description = "Where the cgroup v1 hierarchies are mounted. Default: ${DEFAULT-VALUE}.")
    Path cgroupRoot = Path.of("/sys/fs/cgroup");

    private final String[] args;

    PeerBenchmark(String[] args) {
        this.args = args.clone();
    }

    public static void main(String[] args) {
        System.exit(commandLine(args).execute(args));
    }

    static CommandLine commandLine(String[] args) {
        return new CommandLine(new PeerBenchmark(args)).setCaseInsensitiveEnumValuesAllowed(true);
    }

    private static List<SystemOption> systemOptions(String flag, List<String> given, List<String> systemNames) {
        List<SystemOption> out = new ArrayList<>();
        for (String o : given) {
            SystemOption so;
            try {
                so = SystemOption.parse(o);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(flag + ": " + e.getMessage());
            }
            if (so.system() != null && !systemNames.contains(so.system())) {
                throw new IllegalArgumentException(flag + " " + o + ": " + so.system() + " is not among the systems run (" + String.join(", ", systemNames) + ")");
            }
            out.add(so);
        }
        return List.copyOf(out);
    }

    /** Checks the options and fills in the mode's presets; a problem is an {@link IllegalArgumentException} with a message for the user. */
    Settings settings() {
        List<String> names = systems == null ? SystemCatalog.DEFAULT_SYSTEMS : distinct(systems);
        if (names.isEmpty()) throw new IllegalArgumentException("--systems names no system");
        for (String n : names) SystemCatalog.spec(n);
        int r = or(runs, mode.runs), w = or(warmup, mode.warmup), m = or(measure, mode.measure);
        if (r < 1) throw new IllegalArgumentException("--runs must be >= 1, was " + r);
        if (w < 0) throw new IllegalArgumentException("--warmup must be >= 0, was " + w);
        if (maxWarmup != null && maxWarmup < w) throw new IllegalArgumentException("--max-warmup must be >= --warmup (" + w + "), was " + maxWarmup);
        if (!(maxJitPercent >= 0 && maxJitPercent <= 100)) throw new IllegalArgumentException("--max-jit-percent must be 0..100, was " + maxJitPercent);
        // A --warmup above the mode's longest warm-up raises the longest with it.
        SteadyState rule = new SteadyState(w, maxWarmup != null ? maxWarmup : Math.max(w, mode.maxWarmup), 5, 0.05, maxJitPercent);
        if (m < 1) throw new IllegalArgumentException("--measure must be >= 1, was " + m);
        List<Config> cs = new ArrayList<>();
        List<String> configIds = configs == null ? mode.configs : distinct(configs);
        if (!(configIds.size() == 1 && configIds.getFirst().equalsIgnoreCase("none"))) {
            for (String id : configIds) cs.add(Config.parse(id));
        }
        List<Slowdown.Kind> kinds = new ArrayList<>();
        List<String> kindNames = slowdown == null ? mode.kinds.stream().map(Enum::name).toList() : distinct(slowdown);
        if (!(kindNames.size() == 1 && kindNames.getFirst().equalsIgnoreCase("none"))) {
            for (String k : kindNames) {
                try {
                    kinds.add(Slowdown.Kind.valueOf(k.strip().toLowerCase(Locale.ROOT)));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("unknown slowdown kind '" + k + "'; known: cpu, pause, net, or none");
                }
            }
        }
        Set<Slowdown.Target> targets = EnumSet.noneOf(Slowdown.Target.class);
        for (String t : slowTargets == null ? mode.targets.stream().map(Enum::name).toList() : distinct(slowTargets)) {
            switch (t.toLowerCase(Locale.ROOT)) {
                case "follower" -> targets.add(Slowdown.Target.follower);
                case "leader" -> targets.add(Slowdown.Target.leader);
                default -> throw new IllegalArgumentException("unknown slowdown target '" + t + "'; known: follower, leader");
            }
        }
        if (targets.isEmpty()) throw new IllegalArgumentException("--slow-targets names no target (follower, leader)");
        if (cs.isEmpty() && kinds.isEmpty()) throw new IllegalArgumentException("nothing to do: --configs none and --slowdown none");
        int sw = or(slowWarmup, mode.slowWarmup), sh = or(slowHealthy, mode.slowHealthy), sl = or(slowWindow, mode.slowWindow);
        if (sw < 0 || sh < 1 || sl < 1) throw new IllegalArgumentException("--slow-warmup must be >= 0, --slow-healthy and --slow-window >= 1");
        if (clients < 1) throw new IllegalArgumentException("--clients must be >= 1, was " + clients);
        if (keys < 1) throw new IllegalArgumentException("--keys must be >= 1, was " + keys);
        if (basePort < 1024 || basePort + 800 > 65535) throw new IllegalArgumentException("--base-port must leave base .. base+799 within 1024..65535, was " + basePort);
        if (startTimeout < 1) throw new IllegalArgumentException("--start-timeout must be >= 1 s");
        if (!heap.matches("[0-9]+[kKmMgG]?")) throw new IllegalArgumentException("--heap must be a JVM size such as 1g or 512m, was '" + heap + "'");
        if (tandemAdminPortOffset < 0 || tandemAdminPortOffset >= PeerCluster.PORTS_PER_REPLICA) {
            throw new IllegalArgumentException("--tandem-admin-port-offset must be 0.." + (PeerCluster.PORTS_PER_REPLICA - 1));
        }
        Slowness.CpuQuota cpu = new Slowness.CpuQuota(cpuPercent, Duration.ofMillis(cpuPeriodMs));
        io.tandem.bench.os.CgroupV1.cfsQuotaMicros(cpuPercent, cpuPeriodMs * 1000); // fails early on a quota the kernel would refuse
        Slowness.Pauses pause = new Slowness.Pauses(Duration.ofMillis(pauseMs), Duration.ofMillis(pausePeriodMs));
        Slowness.NetworkDelay net = new Slowness.NetworkDelay(Duration.ofMillis(netDelayMs));
        Path outDir = out != null ? out : Path.of("jmh", "target", "peers", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        return new Settings(mode.name(), names, systems != null, r, List.copyOf(cs), w, m, List.copyOf(kinds), Collections.unmodifiableSet(targets), Config.parse(slowdownConfig), sw, sh, sl,
                cpu, pause, net, clients, keys, basePort, startTimeout, heap, tandemAdminPortOffset, repoRoot.toAbsolutePath().normalize(),
                workDir.toAbsolutePath().normalize(), outDir.toAbsolutePath().normalize(), cgroupRoot, rule,
                profileWindow == null ? null : profileWindow.toAbsolutePath().normalize(), systemOptions("--opt", opts, names), systemOptions("--load-opt", loadOpts, names));
    }

    @Override
    public Integer call() throws Exception {
        Settings s;
        try {
            s = settings();
        } catch (IllegalArgumentException e) {
            System.err.println("run-peers.sh: " + e.getMessage());
            return 2;
        }
        List<SystemCatalog.Availability> availability = SystemCatalog.resolve(s.systems(), s.repoRoot());
        if (s.systemsExplicit()) {
            List<String> missing = availability.stream().filter(a -> a instanceof SystemCatalog.Availability.Skipped)
                    .map(a -> a.spec().name() + ": " + ((SystemCatalog.Availability.Skipped) a).reason()).toList();
            if (!missing.isEmpty()) {
                System.err.println("run-peers.sh: named system(s) cannot run:\n  " + String.join("\n  ", missing));
                return 2;
            }
        }
        Files.createDirectories(s.out());
        List<String> jvm = new ArrayList<>(List.of("-Xms" + s.heap(), "-Xmx" + s.heap(), "-XX:+UseParallelGC", "-XX:+AlwaysPreTouch",
                // Names the work directory on every command line, so a later run can find and stop what a killed run left.
                "-D" + PeerRunner.MARKER_PROPERTY + "=" + s.workDir()));
        jvm.addAll(jvmOpts);
        JvmProcess.Launcher launcher = new JvmProcess.Launcher(Path.of(System.getProperty("java.home"), "bin", "java"), jvm);
        String command = "jmh/run-peers.sh" + (args.length == 0 ? "" : " " + String.join(" ", args));
        System.out.printf(Locale.ROOT, "peer benchmark (%s): systems %s; %d run(s) x %s, %d..%d s warm-up + %d s measured; slowdown %s on %s; %d clients; out %s; load average %.2f%n",
                s.mode(), s.systems(), s.runs(), s.configs().stream().map(Config::id).toList(), s.warmupRule().minSeconds(), s.warmupRule().maxSeconds(), s.measure(), s.kinds(), s.slowConfig().id(),
                s.clients(), s.out(), ProcStat.loadAverage1m());
        try {
            return new PeerRunner(s, launcher, availability, command, System.out).run();
        } catch (IllegalStateException e) {
            System.err.println("run-peers.sh: " + e.getMessage());
            return 1;
        }
    }

    private static List<String> distinct(List<String> values) {
        return List.copyOf(new LinkedHashSet<>(values.stream().map(String::strip).filter(v -> !v.isEmpty()).toList()));
    }

    private static int or(Integer value, int fallback) {
        return value != null ? value : fallback;
    }
}
