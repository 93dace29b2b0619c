package io.tandem.bench.peers;

import io.tandem.bench.FaultInjector;
import io.tandem.bench.Slowness;
import io.tandem.bench.SteadyState;
import io.tandem.bench.os.Cleanup;
import io.tandem.bench.os.ProcStat;
import io.tandem.bench.os.Signals;
import io.tandem.bench.report.Stats;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.transport.Endpoint;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Runs the throughput matrix and the slowdown scenarios and writes the report. Every process,
 * cgroup placement, SIGSTOP cycle and fault plan is registered with one {@link Cleanup} (shutdown
 * hook included); a lock file keeps two runs apart, and what a SIGKILLed run left is removed first.
 */
final class PeerRunner {
    /** The system property naming the work directory on every JVM command line the benchmark starts. */
    static final String MARKER_PROPERTY = "tandem.peerbench.work";
    static final String CGROUP_PARENT = "tandem-peerbench";
    /** The KV server setting (passed as {@code --opt}) that makes a Tandem replica accept fault plans. */
    static final String TANDEM_FAULT_OPTION = "fault-injection=true";
    /** Trials rotate through 8 port blocks of 100, so a port lingering after one system stopped does not hit the next. */
    static final int PORT_BLOCKS = 8;
    /** Seconds the load driver keeps retrying its connection. */
    static final int CONNECT_TIMEOUT = 60;

    private final PeerBenchmark.Settings s;
    private final JvmProcess.Launcher launcher;
    private final List<SystemCatalog.Availability> availability;
    private final String command;
    private final PrintStream out;
    private final Cleanup cleanup = new Cleanup();
    private int portBlock;

    PeerRunner(PeerBenchmark.Settings settings, JvmProcess.Launcher launcher, List<SystemCatalog.Availability> availability, String command, PrintStream out) {
        this.s = settings;
        this.launcher = launcher;
        this.availability = availability;
        this.command = command;
        this.out = out;
    }

    /** Runs everything; 0 if every trial and scenario that ran produced a measurement, 1 otherwise. */
    int run() throws InterruptedException, IOException {
        Files.createDirectories(s.workDir());
        Path lockPath = s.workDir().resolve("benchmark.lock");
        String started = LocalDateTime.now().withNano(0).toString();
        double loadBefore = ProcStat.loadAverage1m();
        List<Results.Trial> trials = new ArrayList<>();
        List<Results.Scenario> scenarios = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        try (FileChannel lockFile = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock lock = lockFile.tryLock()) {
            if (lock == null) throw new IllegalStateException("another peer benchmark is using " + s.workDir() + " (locked " + lockPath + ")");
            try {
                return runLocked(trials, scenarios, skipped, started, loadBefore);
            } finally {
                cleanup.close(); // everything stopped and removed before the lock is released
            }
        }
    }

    private int runLocked(List<Results.Trial> trials, List<Results.Scenario> scenarios, List<String> skipped, String started, double loadBefore)
            throws InterruptedException, IOException {
        try (PeerReport report = new PeerReport(s.out())) {
            cleanup.installShutdownHook();
            sweepLeftovers();
            Path data = s.workDir().resolve("data");
            cleanup.register("remove the data directories " + data, () -> Files2.deleteRecursively(data));
            cleanup.register("remove the benchmark's cgroups", () -> FaultInjector.sweep(s.cgroupRoot(), CGROUP_PARENT));
            Map<String, Path> jars = new HashMap<>();
            for (SystemCatalog.Availability a : availability) {
                switch (a) {
                    case SystemCatalog.Availability.Available av -> jars.put(av.spec().name(), av.jar());
                    case SystemCatalog.Availability.Skipped sk -> {
                        skipped.add(sk.spec().name() + ": " + sk.reason());
                        out.println("skipping " + sk.spec().name() + ": " + sk.reason());
                    }
                }
            }
            List<String> runnable = s.systems().stream().filter(jars::containsKey).toList();
            List<Plan.Trial> plan = Plan.trials(s.runs(), s.configs(), runnable);
            for (int i = 0; i < plan.size() && !cleanup.closing(); i++) {
                Plan.Trial t = plan.get(i);
                out.printf(Locale.ROOT, "[%d/%d] %s (load average %.2f)%n", i + 1, plan.size(), t.tag(), ProcStat.loadAverage1m());
                Results.Trial r;
                try {
                    r = runTrial(t, jars.get(t.system()));
                } catch (RuntimeException e) {
                    // One trial's unreadable output (a bad timeline row, say) must not end the whole benchmark.
                    r = Results.Trial.failure(t, "the harness failed on this trial: " + e, ProcStat.loadAverage1m());
                }
                trials.add(r);
                report.trial(r);
                out.println("    " + oneLine(r));
            }
            String cgroupProblem = s.kinds().contains(Slowdown.Kind.cpu) ? cgroupProblem() : null;
            for (String system : runnable) {
                for (Slowdown.Kind kind : s.kinds()) {
                    if (cleanup.closing()) break;
                    SystemCatalog.SystemSpec spec = SystemCatalog.spec(system);
                    String fault = Slowdown.describe(s.slowness(kind));
                    String na = Slowdown.notApplicable(kind, spec);
                    if (na == null && kind == Slowdown.Kind.cpu) na = cgroupProblem;
                    if (na == null && !Slowdown.slowsAnything(Slowdown.phases(s.slowWarmup(), s.slowHealthy(), s.slowWindow(), spec.replicas(), s.slowTargets()))) {
                        na = "a single replica has no follower to slow (--slow-targets " + s.slowTargets() + ")";
                    }
                    Results.Scenario sc;
                    if (na != null) {
                        sc = Results.Scenario.skipped(system, kind, fault, s.slowConfig(), na);
                    } else {
                        out.printf(Locale.ROOT, "slowdown %s %s (%s; load average %.2f)%n", system, kind, fault, ProcStat.loadAverage1m());
                        sc = runScenario(spec, jars.get(system), kind);
                    }
                    scenarios.add(sc);
                    report.scenario(sc);
                    out.println("    " + oneLine(sc));
                }
            }
            String conditions = conditions(started, loadBefore, ProcStat.loadAverage1m());
            List<String> failures = new ArrayList<>();
            trials.stream().filter(Results.Trial::failed).forEach(t -> failures.add(t.trial().tag() + ": " + t.note()));
            scenarios.stream().filter(Results.Scenario::failed).forEach(sc -> failures.add("slowdown " + sc.system() + " " + sc.kind() + ": " + sc.note()));
            String md = report.finish(trials, scenarios, skipped, failures, conditions);
            out.println();
            out.println(md);
            out.println("results in " + s.out());
            return failures.isEmpty() ? 0 : 1;
        }
    }

    private int nextBasePort() {
        int port = s.basePort() + (portBlock % PORT_BLOCKS) * 100;
        portBlock++;
        return port;
    }

    private Results.Trial runTrial(Plan.Trial t, Path jar) throws InterruptedException, IOException {
        SystemCatalog.SystemSpec spec = SystemCatalog.spec(t.system());
        Path logs = s.out().resolve("logs");
        PeerCluster cluster;
        try {
            cluster = startReady(spec, jar, t.config().fsync(), s.optionsFor(t.system()), t.tag());
        } catch (PeerCluster.StartFailure e) {
            return Results.Trial.failure(t, e.getMessage(), ProcStat.loadAverage1m());
        }
        int basePort = cluster.basePort();
        try (cluster) {
            SteadyState rule = s.warmupRule();
            Set<Long> replicaPids = new LinkedHashSet<>();
            cluster.members().forEach(m -> replicaPids.add(m.process().pid()));
            WarmupTracker warm = new WarmupTracker(rule, s.measure(), replicaPids);
            if (s.profileWindow() != null) warm.profile = new WindowProfile(s.profileWindow());
            Leadership leadership = new Leadership();
            double load = ProcStat.loadAverage1m();
            Path timeline = s.out().resolve("timelines").resolve(t.tag() + ".csv");
            Files.createDirectories(timeline.getParent());
            // The driver runs for the longest warm-up plus the measured window; the harness stops it once it has the
            // window (an adaptive warm-up usually ends sooner).
            LoadRun.Outcome outcome = LoadRun.run(launcher, t.system(), jar, spec.replicas(), basePort, s.clients(), s.keys(), t.config().valueSize(),
                    rule.maxSeconds() + s.measure() + 1, CONNECT_TIMEOUT, s.loadOptionsFor(t.system()), timeline, logs.resolve(t.tag() + "-load.log"), cleanup, new LoadRun.Listener() {
                        @Override
                        public void started(long pid) {
                            warm.loadPid = pid;
                        }

                        @Override
                        public void row(Timeline.Second row) {
                            warm.ops.add(row.ops());
                        }

                        @Override
                        public void second(int second) {
                            // The CPU readings bracket the measured window: taken as the driver writes its rows.
                            warm.second(second);
                        }

                        @Override
                        public void tick(int lastSecond) {
                            leadership.observe(lastSecond + 1, Leadership.singleLeader(cluster.roles()));
                        }

                        @Override
                        public boolean enough() {
                            return warm.end != null;
                        }
                    });
            int from = warm.warmEnd, last = from + s.measure();
            Timeline.Window w = outcome.rows().isEmpty() || from < 0 ? null : Timeline.window(outcome.rows(), from, last);
            if (!outcome.ok() || w == null || !w.complete()) {
                String why = !outcome.ok() ? "load driver exited with " + outcome.exitCode()
                        : from < 0 ? "the warm-up did not end (" + outcome.rows().size() + " seconds)"
                        : "the timeline has " + w.seconds() + " of " + s.measure() + " measured seconds";
                return Results.Trial.failure(t, why + "; load log tail:\n" + outcome.logTail() + "\n" + cluster.tails(), load);
            }
            if (warm.profile != null) {
                warm.profile.write(t.tag(), List.copyOf(replicaPids), cluster.roles(), warm.loadPid, w.ops());
            }
            CpuAccount.Usage usage = warm.start == null || warm.end == null ? new CpuAccount.Usage(Double.NaN, Double.NaN)
                    : CpuAccount.between(warm.start, warm.end, replicaPids, warm.loadPid);
            double jit = warm.jitStart >= 0 && warm.jitEnd >= 0 ? warm.jitEnd - warm.jitStart : Double.NaN;
            String note = leadership.changesIn(from, last) > 0 ? "leader changed during the measured window" : "";
            if (rule.adaptive() && from >= rule.maxSeconds()) note = (note.isEmpty() ? "" : note + "; ") + "warm-up hit its maximum (" + from + " s)";
            return new Results.Trial(t, false, note, w, usage, leadership.changesIn(from, last), load, from, jit);
        }
    }

    /**
     * Decides, second by second as the driver writes its rows, when a trial is warm ({@link SteadyState}) and takes the
     * CPU readings (all CPU and the JIT compiler threads' CPU of every JVM of the trial) at the start and the end of the
     * measured window that follows.
     */
    private static final class WarmupTracker {
        private final SteadyState rule;
        private final int measure;
        private final Set<Long> replicaPids;
        final List<Long> ops = new ArrayList<>();
        private final List<Double> jitSoFar = new ArrayList<>();
        private final List<Double> cpuSoFar = new ArrayList<>();
        long loadPid = -1;
        int warmEnd = -1;
        /** {@code --profile-window}: told when the window starts and ends; null without the option. */
        WindowProfile profile;
        Map<Long, Double> start, end;
        double jitStart = -1, jitEnd = -1;

        WarmupTracker(SteadyState rule, int measure, Set<Long> replicaPids) {
            this.rule = rule;
            this.measure = measure;
            this.replicaPids = replicaPids;
        }

        void second(int second) {
            if (warmEnd >= 0) {
                if (second == warmEnd + measure) {
                    jitEnd = jitSeconds();
                    end = readCpu(replicaPids, loadPid);
                    if (profile != null) profile.windowEnds(pids());
                }
                return;
            }
            // Only the warm-up needs a reading every second (the JIT's share over the last seconds).
            double jit = jitSeconds();
            Map<Long, Double> cpu = readCpu(replicaPids, loadPid);
            if (second > 0) {
                jitSoFar.add(jit);
                cpuSoFar.add(cpu.values().stream().mapToDouble(Double::doubleValue).sum());
            }
            if (ops.size() != jitSoFar.size()) return; // a row without its reading (cannot happen: rows come before seconds)
            if (rule.done(ops, jitSoFar, cpuSoFar)) {
                warmEnd = second;
                jitStart = jit;
                start = cpu;
                if (profile != null) profile.windowStarts(pids());
            }
        }

        private List<Long> pids() {
            List<Long> all = new ArrayList<>(replicaPids);
            all.add(loadPid);
            return all;
        }

        private double jitSeconds() {
            double sum = 0;
            for (long pid : replicaPids) sum += ProcStat.jitCpuSeconds(pid);
            return loadPid > 0 ? sum + ProcStat.jitCpuSeconds(loadPid) : Double.NaN;
        }
    }

    /**
     * Starts a fresh cluster and waits until it is ready. A replica that could not bind a port
     * (another process took it since the check) gets one more try on the next port block.
     */
    private PeerCluster startReady(SystemCatalog.SystemSpec spec, Path jar, boolean fsync, List<String> options, String tag)
            throws PeerCluster.StartFailure, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            PeerCluster cluster = PeerCluster.start(launcher, spec.name(), jar, spec.replicas(), fsync, options, nextBasePort(),
                    s.workDir().resolve("data").resolve(spec.name()), s.out().resolve("logs"), attempt == 1 ? tag : tag + "-retry", cleanup);
            try {
                cluster.awaitReady(Duration.ofSeconds(s.startTimeout()));
                return cluster;
            } catch (PeerCluster.StartFailure e) {
                cluster.close();
                boolean portTaken = cluster.logsMention("Address already in use") || cluster.logsMention("BindException");
                if (!portTaken || attempt == 2) throw e;
                out.println("    a port was taken meanwhile; retrying on the next port block");
            } catch (InterruptedException | RuntimeException e) {
                cluster.close();
                throw e;
            }
        }
    }

    private static Map<Long, Double> readCpu(Set<Long> replicaPids, long loadPid) {
        Map<Long, Double> m = new HashMap<>();
        for (long pid : replicaPids) m.put(pid, ProcStat.cpuSeconds(pid));
        if (loadPid > 0) m.put(loadPid, ProcStat.cpuSeconds(loadPid));
        return m;
    }

    private Results.Scenario runScenario(SystemCatalog.SystemSpec spec, Path jar, Slowdown.Kind kind) throws InterruptedException, IOException {
        Slowness slowness = s.slowness(kind);
        String fault = Slowdown.describe(slowness);
        Config config = s.slowConfig();
        String tag = "slow-" + kind + "-" + spec.name();
        Path logs = s.out().resolve("logs");
        List<Slowdown.Phase> phases = Slowdown.phases(s.slowWarmup(), s.slowHealthy(), s.slowWindow(), spec.replicas(), s.slowTargets());
        PeerCluster cluster;
        try {
            // Only the transport-delay scenario turns on the Tandem servers' fault injection (its admin requests and the
            // fault-injecting transport); every other cluster runs exactly as in the throughput matrix.
            List<String> options = new ArrayList<>(s.optionsFor(spec.name()));
            if (kind == Slowdown.Kind.net) options.add(TANDEM_FAULT_OPTION);
            cluster = startReady(spec, jar, config.fsync(), options, tag);
        } catch (PeerCluster.StartFailure e) {
            return Results.Scenario.failure(spec.name(), kind, fault, config, e.getMessage(), ProcStat.loadAverage1m());
        }
        int basePort = cluster.basePort();
        TandemKvClient admin = null;
        try (cluster) {
            if (kind == Slowdown.Kind.net) {
                List<String> members = new ArrayList<>();
                for (int i = 0; i < spec.replicas(); i++) members.add("127.0.0.1:" + adminPort(basePort, i));
                admin = TandemKvClient.connect(members.toArray(String[]::new));
            }
            FaultInjector injector = new FaultInjector(s.cgroupRoot(), CGROUP_PARENT, admin, cleanup);
            TandemKvClient adminClient = admin;
            Leadership leadership = new Leadership();
            int[] targets = new int[phases.size()];
            java.util.Arrays.fill(targets, -1);
            String[] notes = new String[phases.size()];
            FaultInjector.Applied[] applied = new FaultInjector.Applied[1];
            double load = ProcStat.loadAverage1m();
            int total = phases.getLast().to();
            Path timeline = s.out().resolve("timelines").resolve(tag + ".csv");
            Files.createDirectories(timeline.getParent());
            LoadRun.Outcome outcome;
            try {
                outcome = LoadRun.run(launcher, spec.name(), jar, spec.replicas(), basePort, s.clients(), s.keys(), config.valueSize(), total + 1,
                        CONNECT_TIMEOUT, s.loadOptionsFor(spec.name()), timeline, logs.resolve(tag + "-load.log"), cleanup, new LoadRun.Listener() {
                            @Override
                            public void second(int second) {
                                for (int i = 0; i < phases.size(); i++) {
                                    Slowdown.Phase p = phases.get(i);
                                    if (p.target() == Slowdown.Target.none) continue;
                                    if (second == p.to() && applied[0] != null) {
                                        applied[0].close();
                                        applied[0] = null;
                                    }
                                    if (second == p.from()) {
                                        List<String> roles = cluster.roles();
                                        int leader = Leadership.singleLeader(roles);
                                        int target = p.target() == Slowdown.Target.leader ? leader : Leadership.follower(roles, leader);
                                        if (leader < 0 || target < 0) {
                                            notes[i] = "not applied: no single leader when the window began (roles " + roles + ")";
                                            continue;
                                        }
                                        try {
                                            applied[0] = injector.apply(slowness, List.of(target(cluster, target, kind, adminClient)));
                                            targets[i] = target;
                                        } catch (RuntimeException e) {
                                            notes[i] = "not applied: " + e.getMessage();
                                        }
                                    }
                                }
                            }

                            @Override
                            public void tick(int lastSecond) {
                                leadership.observe(lastSecond + 1, Leadership.singleLeader(cluster.roles()));
                            }
                        });
            } finally {
                if (applied[0] != null) applied[0].close();
            }
            if (!outcome.ok() || outcome.rows().size() < total) {
                String why = !outcome.ok() ? "load driver exited with " + outcome.exitCode() : "the timeline has " + outcome.rows().size() + " of " + total + " seconds";
                return Results.Scenario.failure(spec.name(), kind, fault, config, why + "; load log tail:\n" + outcome.logTail() + "\n" + cluster.tails(), load);
            }
            List<Results.Phase> measured = measurePhases(phases, outcome.rows(), targets, notes, leadership);
            String note = String.join("; ", java.util.Arrays.stream(notes).filter(n -> n != null).toList());
            List<Timeline.Second> rows = outcome.rows().stream().filter(r -> r.second() <= total).toList();
            return new Results.Scenario(spec.name(), kind, fault, config, false, false, note, measured, Timeline.p99PerSecond(rows),
                    Timeline.meanPerSecond(rows), leadership.changes(), load);
        } finally {
            if (admin != null) admin.close();
        }
    }

    /** Each phase's window; a slow phase compared with the mean of the healthy phases next to it. */
    static List<Results.Phase> measurePhases(List<Slowdown.Phase> phases, List<Timeline.Second> rows, int[] targets, String[] notes, Leadership leadership) {
        List<Results.Phase> out = new ArrayList<>();
        List<Timeline.Window> windows = phases.stream().map(p -> Timeline.window(rows, p.from(), p.to())).toList();
        for (int i = 0; i < phases.size(); i++) {
            Slowdown.Phase p = phases.get(i);
            double tp = Double.NaN, p99 = Double.NaN;
            if (p.target() != Slowdown.Target.none && targets[i] >= 0) {
                List<Slowdown.Phase> around = Slowdown.neighbours(phases, i);
                double healthyTp = Stats.mean(around.stream().mapToDouble(h -> windows.get(phases.indexOf(h)).throughput()).toArray());
                double healthyP99 = Stats.mean(around.stream().mapToDouble(h -> windows.get(phases.indexOf(h)).p99Micros()).toArray());
                tp = Stats.percentOf(windows.get(i).throughput(), healthyTp);
                p99 = Stats.percentOf(windows.get(i).p99Micros(), healthyP99);
            }
            out.add(new Results.Phase(p, targets[i], windows.get(i), tp, p99, leadership.changesIn(p.from(), p.to()), notes[i] == null ? "" : notes[i]));
        }
        return out;
    }

    private int adminPort(int basePort, int replica) {
        return basePort + replica * PeerCluster.PORTS_PER_REPLICA + s.tandemAdminPortOffset();
    }

    /**
     * The fault target for replica {@code index}. The transport delay is set on the replica's own
     * transport and names it by the node id its server reports, so that id is asked for first.
     */
    private FaultInjector.Target target(PeerCluster cluster, int index, Slowdown.Kind kind, TandemKvClient admin) {
        PeerCluster.Member m = cluster.member(index);
        if (kind != Slowdown.Kind.net) return new FaultInjector.Target("r" + index, m.process().pid(), null, null);
        Endpoint endpoint = new Endpoint("127.0.0.1", adminPort(cluster.basePort(), index));
        String nodeId;
        try {
            nodeId = admin.statusAsync(endpoint).get(5, TimeUnit.SECONDS).node();
        } catch (Exception e) {
            throw new IllegalStateException("cannot ask replica " + index + " at " + endpoint + " for its node id (is --tandem-admin-port-offset right?): " + e, e);
        }
        return new FaultInjector.Target(nodeId, m.process().pid(), endpoint, null);
    }

    /** Why CPU quotas cannot be applied here (no root or no cgroup v1 cpu controller); null if they can. */
    private String cgroupProblem() {
        Path quota = s.cgroupRoot().resolve("cpu").resolve("cpu.cfs_quota_us");
        if (!Files.exists(quota)) return "the cgroup v1 cpu controller is not mounted at " + quota.getParent() + " (cpu.cfs_quota_us missing)";
        if (!Files.isWritable(s.cgroupRoot().resolve("cpu"))) return "cannot create cgroups under " + quota.getParent() + " (needs root)";
        return null;
    }

    /** Stops what a killed earlier run left: JVMs whose command line names this work directory, and the benchmark's cgroups. */
    private void sweepLeftovers() {
        String marker = "-D" + MARKER_PROPERTY + "=" + s.workDir();
        ProcessHandle.allProcesses().filter(p -> p.pid() != ProcessHandle.current().pid())
                .filter(p -> p.info().commandLine().map(c -> isLeftover(c, marker)).orElse(false))
                .forEach(p -> {
                    out.println("  stopping a JVM left by an earlier run: pid " + p.pid());
                    Signals.resumeQuietly(p.pid());
                    p.destroyForcibly();
                    p.onExit().orTimeout(20, TimeUnit.SECONDS).exceptionally(e -> p).join();
                });
        try {
            FaultInjector.sweep(s.cgroupRoot(), CGROUP_PARENT);
        } catch (UncheckedIOException | IllegalArgumentException e) {
            out.println("  could not remove the cgroups of an earlier run: " + e.getMessage());
        }
    }

    /** Whether a command line is one of this benchmark's JVMs for this work directory (the marker is followed by a space or the end). */
    static boolean isLeftover(String commandLine, String marker) {
        int i = commandLine.indexOf(marker);
        if (i < 0) return false;
        int end = i + marker.length();
        return end == commandLine.length() || commandLine.charAt(end) == ' ';
    }

    private String conditions(String started, double loadBefore, double loadAfter) {
        StringBuilder c = new StringBuilder();
        c.append("Command: `").append(command).append("`\n\n");
        c.append(String.format(Locale.ROOT, "- started %s; %d cores (%s); Linux %s; Java %s; 1-min load average %.2f before, %.2f after (the machine is shared)%n",
                started, Runtime.getRuntime().availableProcessors(), System.getProperty("os.arch"), System.getProperty("os.version"),
                System.getProperty("java.version"), loadBefore, loadAfter));
        c.append(String.format(Locale.ROOT, "- %s mode: %d interleaved run(s); per trial a fresh cluster (3 replicas, 1 for tandem-unreplicated) on 127.0.0.1, "
                + "warm-up discarded: %s; %d s measured; medians over runs%n", s.mode(), s.runs(), describe(s.warmupRule()), s.measure()));
        c.append(String.format(Locale.ROOT, "- %d closed-loop clients in one load JVM, each with one put outstanding, keys uniform over %d%n", s.clients(), s.keys()));
        c.append("- every JVM: `java ").append(String.join(" ", launcher.options().stream().filter(o -> !o.startsWith("-D")).toList()))
                .append(" -jar peers/<module>/target/peer-<module>.jar`; CPU per op = CPU seconds of all replica JVMs and the load JVM over the measured window / puts\n");
        if (!s.kinds().isEmpty()) {
            String windows = String.join(", ", Slowdown.phases(s.slowWarmup(), s.slowHealthy(), s.slowWindow(), 3, s.slowTargets()).stream()
                    .map(p -> p.name() + " " + p.seconds() + " s").toList());
            c.append(String.format(Locale.ROOT, "- slowdown (%s): per system and fault a fresh cluster under the same load: %s; "
                    + "slow windows compared with the mean of the healthy windows next to them%n", s.slowConfig().id(), windows));
            c.append("- faults: ");
            c.append(String.join("; ", s.kinds().stream().map(k -> k + " = " + Slowdown.describe(s.slowness(k))).toList())).append('\n');
        }
        return c.toString();
    }

    /** The warm-up rule in words, for the report's conditions. */
    static String describe(SteadyState rule) {
        if (!rule.adaptive()) return rule.minSeconds() + " s (fixed)";
        return String.format(Locale.ROOT, "%d..%d s, ended once the JIT compiler threads of the trial's JVMs used at most %.0f %% of their CPU over the last %d s "
                + "and the puts of those seconds were at most %.0f %% above the %d s before (per trial: warmup_s and jit_pct_of_cpu, "
                + "the JIT's share of the measured window's CPU, in results.csv)", rule.minSeconds(), rule.maxSeconds(), rule.maxJitPercent(), rule.span(),
                100 * rule.tolerance(), rule.span());
    }

    static String oneLine(Results.Trial r) {
        if (r.failed()) return "FAILED: " + r.note().lines().findFirst().orElse("");
        Timeline.Window w = r.window();
        return String.format(Locale.ROOT, "%,.0f puts/s, p50 %s ms, p99 %s ms, p99.9 %s ms, CPU %s us/op (JIT %s %%), warm-up %d s, %d errors%s", w.throughput(),
                PeerSummary.ms(w.p50Micros()), PeerSummary.ms(w.p99Micros()), PeerSummary.ms(w.p999Micros()), PeerSummary.num(r.cpuMicrosPerOp(), 1),
                PeerSummary.num(r.jitPercent(), 1), r.warmupSeconds(), w.errors(),
                r.leaderChanges() > 0 ? ", " + r.leaderChanges() + " leader change(s)" : "");
    }

    static String oneLine(Results.Scenario sc) {
        if (sc.skipped()) return "skipped: " + sc.note();
        if (sc.failed()) return "FAILED: " + sc.note().lines().findFirst().orElse("");
        StringBuilder b = new StringBuilder();
        for (Results.Phase p : sc.phases()) {
            if (p.phase().warmup()) continue;
            if (!b.isEmpty()) b.append(" | ");
            b.append(p.phase().name()).append(p.targetReplica() >= 0 ? "(r" + p.targetReplica() + ")" : "").append(' ')
                    .append(String.format(Locale.ROOT, "%,.0f/s p99 %s", p.window().throughput(),
                            Double.isNaN(p.window().p99Micros()) ? "n/a" : PeerSummary.ms(p.window().p99Micros()) + " ms"));
        }
        int changes = sc.phases().stream().filter(p -> !p.phase().warmup()).mapToInt(Results.Phase::leaderChanges).sum();
        if (changes > 0) b.append(" | ").append(changes).append(" leader change(s) after the warm-up");
        return b.toString();
    }
}
