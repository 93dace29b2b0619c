package io.tandem.bench;

import io.tandem.bench.os.FileStores;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The fail-slow cluster benchmark (DepFast thesis, issue 5): a healthy run and runs with one
 * follower (three nodes) or two followers (five nodes) made slow by a CPU quota, a disk throttle, a
 * network delay or SIGSTOP pauses, each compared with the healthy run of the same invocation.
 *
 * <pre>
 * jmh/run-failslow.sh                   # quick: 10 s per window, 1 run
 * jmh/run-failslow.sh --mode full       # 30 s per window, 3 runs, medians
 * </pre>
 *
 * Needs root and cgroup v1 (cpu and blkio controllers), losetup, mkfs.ext4 and mount. Results go to
 * {@code --out} (windows.csv, timeline.csv, summary.csv, summary.md, latency-over-time.png, server logs).
 */
@Command(name = "run-failslow.sh", mixinStandardHelpOptions = true, sortOptions = false, description = {
        "Fail-slow benchmark: a Raft KV cluster of separate server JVMs on loopback with closed-loop put load, healthy and with slow followers.",
        "Per run and cluster size: a fresh cluster, warm-up, then windows healthy, fault 1, healthy, fault 2, ..., healthy.",
        "A window: fault applied to follower(s) of the current leader (never the leader), settle, measure, fault removed, followers catch up.",
        "Scenario ids: n<size>-<kind>[-x<count>], kinds healthy, stop (fail-stop reference), cpu, disk, net, pause; the healthy windows of each size are always included.",
        "Needs root, cgroup v1 (cpu, blkio), losetup, mkfs.ext4, mount."})
public final class FailSlowBenchmark implements Callable<Integer> {
    /** The preset lengths of the two modes. */
    enum Mode {
        quick(30, 180, 3, 10, 1), full(60, 300, 5, 30, 3);

        final int warmup, maxWarmup, settle, measure, runs;

        Mode(int warmup, int maxWarmup, int settle, int measure, int runs) {
            this.warmup = warmup;
            this.maxWarmup = maxWarmup;
            this.settle = settle;
            this.measure = measure;
            this.runs = runs;
        }
    }

    static final String DEFAULT_SCENARIOS = "n3-healthy,n3-stop,n3-cpu,n3-disk,n3-net,n3-pause,n5-healthy,n5-stop-x2,n5-cpu-x2,n5-net-x2";

    @Option(names = "--mode", description = "quick (warm-up 30..180 s, 3 s settle, 10 s measured per window, 1 run) or full (60..300 s, 5 s, 30 s, 3 runs). Default: ${DEFAULT-VALUE}.")
    Mode mode = Mode.quick;

    @Option(names = "--runs", description = "Repetitions of every scenario (default: by mode); medians are reported.")
    Integer runs;

    @Option(names = "--warmup", paramLabel = "SECONDS", description = "Least load on a fresh cluster before its first window (default: by mode).")
    Integer warmup;

    @Option(names = "--max-warmup", paramLabel = "SECONDS", description = "Longest warm-up; before it, warm-up ends once the servers' JIT compiler threads "
            + "used under 5%% of a core over the last 10 s and throughput stopped rising (last 10 s within 5%% of the 10 s before). Default: by mode.")
    Integer maxWarmup;

    @Option(names = "--settle", paramLabel = "SECONDS", description = "Time after applying the fault that is not measured (default: by mode).")
    Integer settle;

    @Option(names = "--duration", paramLabel = "SECONDS", description = "Measured seconds per window (default: by mode).")
    Integer duration;

    @Option(names = "--scenarios", split = ",", paramLabel = "ID", description = "Scenarios to run (default: " + DEFAULT_SCENARIOS + ").")
    List<String> scenarios = new ArrayList<>(List.of(DEFAULT_SCENARIOS.split(",")));

    @Option(names = "--clients", description = "Closed-loop clients, each with one put outstanding. Default: ${DEFAULT-VALUE}.")
    int clients = 16;

    @Option(names = "--keys", description = "Key space the puts pick from uniformly. Default: ${DEFAULT-VALUE}.")
    int keys = 10_000;

    @Option(names = "--value-size", paramLabel = "BYTES", description = "Bytes per value. Default: ${DEFAULT-VALUE}.")
    int valueSize = 64;

    @Option(names = "--cpu-percent", description = "cpu: quota in %% of one core. Default: ${DEFAULT-VALUE} (thesis).")
    double cpuPercent = 5;

    @Option(names = "--cpu-period-ms", description = "cpu: CFS period. Default: ${DEFAULT-VALUE} (thesis: 50 ms of CPU per second).")
    long cpuPeriodMs = 1000;

    @Option(names = "--disk-bps", description = "disk: read and write throttle in bytes/s on the follower's loop device. Default: ${DEFAULT-VALUE} (thesis harness: 512 KiB/s).")
    long diskBps = 524_288;

    @Option(names = "--net-delay-ms", description = "net: delay of every message the slow follower sends. Default: ${DEFAULT-VALUE} (thesis).")
    long netDelayMs = 400;

    @Option(names = "--pause-ms", description = "pause: how long each SIGSTOP lasts. Default: ${DEFAULT-VALUE}.")
    long pauseMs = 500;

    @Option(names = "--pause-period-ms", description = "pause: one SIGSTOP per period. Default: ${DEFAULT-VALUE}.")
    long pausePeriodMs = 1000;

    @Option(names = "--server-heap", description = "-Xms and -Xmx of every server JVM. Default: ${DEFAULT-VALUE}.")
    String serverHeap = "256m";

    @Option(names = "--server-jvm-opt", paramLabel = "OPT", description = "Extra JVM option for every server (repeatable).")
    List<String> serverJvmOptions = new ArrayList<>();

    @Option(names = "--jfr", description = "Record a JFR profile of every server into the output's logs directory.")
    boolean jfr;

    @Option(names = "--work-dir", description = "Where the data disks are mounted (and the lock file lives). Default: ${DEFAULT-VALUE}.")
    Path workDir = Path.of("/var/tmp/tandem-failslow");

    @Option(names = "--image-dir", description = "Where the data disks' sparse image files live: on disk (default: the work directory) "
            + "or on tmpfs (/dev/shm) to keep a shared, busy physical disk out of the measurement.")
    Path imageDir;

    @Option(names = "--disk-size-mb", description = "Size of each node's (sparse) data disk. Default: ${DEFAULT-VALUE}.")
    long diskSizeMb = 1024;

    @Option(names = "--out", description = "Output directory (default: jmh/target/failslow/<date-time>).")
    Path out;

    @Option(names = "--base-port", description = "Peers on base+i, clients on base+1000+i, metrics on base+2000+i. Default: ${DEFAULT-VALUE}.")
    int basePort = 27000;

    @Option(names = "--cgroup-root", description = "Where the cgroup v1 hierarchies are mounted. Default: ${DEFAULT-VALUE}.")
    Path cgroupRoot = Path.of("/sys/fs/cgroup");

    @Option(names = "--seed", description = "Seed of the clients' key choice. Default: ${DEFAULT-VALUE}.")
    long seed = 1;

    @Option(names = "--port-spacing", description = "Clients listen on base+spacing+i, metrics on base+2*spacing+i. Default: ${DEFAULT-VALUE}.")
    int portSpacing = 1000;

    @Option(names = "--protocol", description = "Engine every server runs (registry name: raft, multipaxos, copilot, ...). Default: ${DEFAULT-VALUE}.")
    String protocol = "raft";

    /** Which node a fault window slows. */
    enum SlowTarget {
        follower, leader
    }

    @Option(names = "--slow-target", description = "follower (the last non-leaders, the thesis' setup) or leader (the leader; with copilot the pilot of log 0). Default: ${DEFAULT-VALUE}.")
    SlowTarget slowTarget = SlowTarget.follower;

    private final String[] args;

    FailSlowBenchmark(String[] args) {
        this.args = args.clone();
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new FailSlowBenchmark(args)).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    /** Serves the scenario ids in order, with each cluster size's healthy reference first. */
    static List<Scenario> plan(List<String> ids, Scenario.SlownessKinds kinds) {
        Map<Integer, LinkedHashSet<Scenario>> bySize = new LinkedHashMap<>();
        for (String id : ids) {
            if (id.isBlank()) continue;
            Scenario s = Scenario.parse(id, kinds);
            LinkedHashSet<Scenario> group = bySize.computeIfAbsent(s.clusterSize(), n -> new LinkedHashSet<>(List.of(Scenario.healthy(n))));
            group.add(s);
        }
        return bySize.values().stream().flatMap(LinkedHashSet::stream).toList();
    }

    @Override
    public Integer call() throws Exception {
        PrintStream o = System.out;
        Scenario.SlownessKinds kinds = new Scenario.SlownessKinds(
                new Slowness.CpuQuota(cpuPercent, Duration.ofMillis(cpuPeriodMs)),
                new Slowness.DiskThrottle(diskBps),
                new Slowness.NetworkDelay(Duration.ofMillis(netDelayMs)),
                new Slowness.Pauses(Duration.ofMillis(pauseMs), Duration.ofMillis(pausePeriodMs)));
        List<Scenario> plan;
        int warm = or(warmup, mode.warmup), warmMax = Math.max(warm, or(maxWarmup, mode.maxWarmup)), settling = or(settle, mode.settle), measured = or(duration, mode.measure), repetitions = or(runs, mode.runs);
        try {
            plan = plan(scenarios, kinds);
            if (warm < 1 || settling < 1 || measured < 1 || repetitions < 1) throw new IllegalArgumentException("warm-up, settle, duration and runs must be >= 1");
        } catch (IllegalArgumentException e) {
            System.err.println("run-failslow.sh: " + e.getMessage());
            return 2;
        }
        Path outDir = out != null ? out : Path.of("jmh", "target", "failslow", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Files.createDirectories(outDir);

        List<String> jvm = new ArrayList<>(List.of("-Xms" + serverHeap, "-Xmx" + serverHeap, "-XX:+UseParallelGC", "-XX:+AlwaysPreTouch",
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"));
        jvm.addAll(serverJvmOptions);
        ServerCluster.ServerJvm serverJvm = new ServerCluster.ServerJvm(Path.of(System.getProperty("java.home"), "bin", "java"),
                System.getProperty("java.class.path"), jvm);
        FailSlowRunner.Settings settings = new FailSlowRunner.Settings(plan, repetitions, new Warmup(warm, warmMax, 10, 0.05, 5), settling, measured, clients, keys, valueSize, serverJvm, jfr,
                workDir.toAbsolutePath(), (imageDir != null ? imageDir : workDir).toAbsolutePath(), outDir.toAbsolutePath(), basePort, diskSizeMb * 1024 * 1024, cgroupRoot, seed,
                protocol, slowTarget == SlowTarget.leader, portSpacing);

        double loadBefore = io.tandem.bench.os.ProcStat.loadAverage1m();
        String started = LocalDateTime.now().withNano(0).toString();
        o.printf(Locale.ROOT, "fail-slow benchmark (%s, protocol %s, slow %s): %d scenario(s) x %d run(s), %d..%d s warm-up, windows of %d s settle + %d s measured, %d clients, %d-byte values; out %s; load average %.2f%n",
                mode, protocol, slowTarget, plan.size(), repetitions, warm, warmMax, settling, measured, clients, valueSize, outDir, loadBefore);
        List<WindowResult> results;
        try (FailSlowReport report = new FailSlowReport(outDir)) {
            results = new FailSlowRunner(settings, o).run(report);
            String conditions = conditions(settings, kinds, started, loadBefore, io.tandem.bench.os.ProcStat.loadAverage1m());
            String md = report.finish(results, settling, measured, conditions);
            o.println();
            o.println(md);
            o.println("results in " + outDir.toAbsolutePath());
        } catch (IllegalStateException e) {
            System.err.println("run-failslow.sh: " + e.getMessage());
            return 1;
        }
        return results.stream().anyMatch(WindowResult::failed) ? 1 : 0;
    }

    private String conditions(FailSlowRunner.Settings s, Scenario.SlownessKinds kinds, String started, double loadBefore, double loadAfter) {
        StringBuilder c = new StringBuilder();
        c.append("Command: `jmh/run-failslow.sh").append(args.length == 0 ? "" : " " + String.join(" ", args)).append("`\n\n");
        c.append(String.format(Locale.ROOT, "- started %s; %d cores (%s); Linux %s; Java %s; 1-min load average %.2f before, %.2f after%n",
                started, Runtime.getRuntime().availableProcessors(), System.getProperty("os.arch"), System.getProperty("os.version"),
                System.getProperty("java.version"), loadBefore, loadAfter));
        c.append(String.format(Locale.ROOT, "- %s mode: %d run(s); per run and cluster size a fresh cluster, warm-up of %d..%d s (until the JIT compilers went quiet and throughput stopped rising), "
                        + "then windows healthy, fault, healthy, fault, ..., healthy; per window %d s settle after applying the fault, %d s measured, fault removed, "
                        + "catch-up awaited; each fault window compared with the mean of the healthy windows before and after it, medians over runs%n",
                mode, s.runs(), s.warmup().minSeconds(), s.warmup().maxSeconds(), s.settle(), s.measure()));
        c.append("- protocol ").append(s.protocol()).append("; faults on ").append(s.slowLeader() ? "the leader (copilot: the pilot of log 0)" : "followers (never the leader)").append('\n');
        c.append(String.format(Locale.ROOT, "- %d closed-loop clients through TandemKvClient, puts of %d-byte values to %d keys (uniform)%n",
                s.clients(), s.valueSize(), s.keys()));
        c.append("- servers: `tandem server` JVMs on 127.0.0.1, fsync on, each data dir on its own ext4 loop device (images in ")
                .append(s.imageDir()).append(FileStores.describe(s.imageDir())).append("); JVM options ")
                .append(String.join(" ", s.serverJvm().options())).append('\n');
        c.append("- faults: ").append(kinds.cpu().describe()).append("; ").append(kinds.disk().describe()).append("; ")
                .append(kinds.net().describe()).append("; ").append(kinds.pause().describe()).append('\n');
        return c.toString();
    }

    private static int or(Integer value, int fallback) {
        return value != null ? value : fallback;
    }
}
