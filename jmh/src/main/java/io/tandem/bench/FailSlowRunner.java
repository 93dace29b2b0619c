package io.tandem.bench;

import io.tandem.bench.os.Cleanup;
import io.tandem.bench.os.LoopDisk;
import io.tandem.bench.os.ProcStat;
import io.tandem.bench.os.Shell;
import io.tandem.bench.os.Signals;
import io.tandem.bench.report.PrometheusText;
import io.tandem.kv.client.KvClientConfig;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.net.NodeStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs the scenarios: for each repetition and scenario a fresh cluster of server JVMs on loop-device
 * data disks, closed-loop load, warm-up, the fault on chosen followers (never the leader), a
 * settling period, the measurement window, then everything is torn down again.
 */
final class FailSlowRunner {
    /** The cgroup (in the cpu and blkio hierarchies) under which the per-node fault groups live. */
    static final String CGROUP_PARENT = "tandem-bench";

    /**
     * Everything one invocation needs.
     *
     * @param warmup  how long a fresh cluster runs under load before its first window
     * @param settle  seconds after a fault is applied that are not measured
     * @param measure seconds measured per window
     * @param imageDir where the nodes' disk images live: a disk directory, or tmpfs (/dev/shm) for disks in memory
     */
    record Settings(List<Scenario> scenarios, int runs, Warmup warmup, int settle, int measure, int clients, int keys, int valueSize,
                    ServerCluster.ServerJvm serverJvm, boolean jfr, Path workDir, Path imageDir, Path outDir, int basePort, long diskBytes,
                    Path cgroupRoot, long seed, String protocol, boolean slowLeader, int portSpacing) {
        Settings {
            if (slowLeader && scenarios.stream().anyMatch(s -> s.slowFollowers() > 1)) {
                throw new IllegalArgumentException("--slow-target leader slows one node: scenarios with -x<count> above 1 do not apply");
            }
            scenarios = List.copyOf(scenarios);
            if (runs < 1) throw new IllegalArgumentException("runs must be >= 1");
            if (settle < 1 || measure < 1) throw new IllegalArgumentException("settle and measure need at least 1 s each");
        }

        int largestCluster() {
            return scenarios.stream().mapToInt(Scenario::clusterSize).max().orElse(0);
        }

        /** The scenarios grouped by cluster size, in order of first appearance. */
        Map<Integer, List<Scenario>> bySize() {
            Map<Integer, List<Scenario>> m = new LinkedHashMap<>();
            for (Scenario s : scenarios) m.computeIfAbsent(s.clusterSize(), k -> new ArrayList<>()).add(s);
            return m;
        }
    }

    /** Receives results as soon as they are known. */
    interface Sink {
        void window(WindowResult result);

        /** The whole timeline of one cluster's run, every tick labelled with its window and phase. */
        void session(int clusterSize, int run, List<WindowResult.Second> timeline);
    }

    /** Seconds of timeline kept before each fault for the plot. */
    static final int PLOT_SECONDS_BEFORE = 5;
    /** How long the slow followers get to catch up after a fault is removed before the next window starts anyway. */
    static final Duration CATCH_UP_LIMIT = Duration.ofSeconds(60);

    private final Settings settings;
    private final PrintStream out;
    private final Cleanup cleanup = new Cleanup();
    private final List<LoopDisk> disks = new ArrayList<>();
    private int windowsDone;
    private int windowsTotal;

    FailSlowRunner(Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    /**
     * Runs every repetition: per cluster size a fresh cluster, warmed up, then the windows
     * healthy, fault 1, healthy, fault 2, ..., healthy, so each fault has healthy windows of the
     * same warm JVMs on both sides.
     */
    List<WindowResult> run(Sink sink) throws InterruptedException {
        checkPrerequisites();
        List<WindowResult> results = new ArrayList<>();
        try (FileChannel lockFile = FileChannel.open(lockPath(), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock lock = lockFile.tryLock()) {
            if (lock == null) throw new IllegalStateException("another fail-slow benchmark is using " + settings.workDir() + " (locked " + lockPath() + ")");
            cleanup.installShutdownHook();
            sweepLeftovers();
            cleanup.register("remove the benchmark's cgroups", () -> FaultInjector.sweep(settings.cgroupRoot(), CGROUP_PARENT));
            prepareDisks();
            windowsTotal = settings.runs() * settings.bySize().values().stream().mapToInt(l -> windows(l).size()).sum();
            for (int run = 1; run <= settings.runs() && !cleanup.closing(); run++) {
                for (Map.Entry<Integer, List<Scenario>> e : settings.bySize().entrySet()) {
                    if (cleanup.closing()) break;
                    results.addAll(runCluster(e.getKey(), windows(e.getValue()), run, sink));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            cleanup.close();
        }
        return results;
    }

    /** The window sequence of one cluster: healthy before every fault and once more at the end. */
    static List<Scenario> windows(List<Scenario> scenarios) {
        List<Scenario> faults = scenarios.stream().filter(s -> !s.isHealthy()).toList();
        if (faults.isEmpty()) return List.of(Scenario.healthy(scenarios.getFirst().clusterSize()));
        List<Scenario> seq = new ArrayList<>();
        for (Scenario f : faults) {
            seq.add(Scenario.healthy(f.clusterSize()));
            seq.add(f);
        }
        seq.add(Scenario.healthy(faults.getFirst().clusterSize()));
        return seq;
    }

    private Path lockPath() throws IOException {
        Files.createDirectories(settings.workDir());
        return settings.workDir().resolve("benchmark.lock");
    }

    private void checkPrerequisites() {
        boolean needsCgroups = settings.scenarios().stream().anyMatch(s -> s.slowness() instanceof Slowness.CpuQuota || s.slowness() instanceof Slowness.DiskThrottle);
        if (needsCgroups) FaultInjector.checkCgroups(settings.cgroupRoot());
        Shell.Result id = Shell.run(List.of("id", "-u"), Duration.ofSeconds(10));
        if (!id.ok() || !id.stdout().strip().equals("0")) {
            throw new IllegalStateException("the fail-slow benchmark needs root (loop devices, mounts, cgroups, signals to the servers)");
        }
    }

    /** Removes what a killed earlier run left: its servers (found by the work directory in their command line), cgroups, mounts. */
    private void sweepLeftovers() {
        String marker = settings.workDir().toAbsolutePath().normalize().toString();
        ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().map(c -> c.contains("io.tandem.cli.TandemCli") && c.contains(marker)).orElse(false))
                .forEach(p -> {
                    out.println("  killing a server left by an earlier run: pid " + p.pid());
                    Signals.resumeQuietly(p.pid());
                    p.destroyForcibly();
                    p.onExit().orTimeout(20, TimeUnit.SECONDS).exceptionally(e -> p).join();
                });
        FaultInjector.sweep(settings.cgroupRoot(), CGROUP_PARENT);
        LoopDisk.sweep(settings.workDir(), settings.imageDir());
    }

    private void prepareDisks() {
        Path work = settings.workDir().toAbsolutePath().normalize();
        for (int i = 1; i <= settings.largestCluster(); i++) {
            Path image = settings.imageDir().toAbsolutePath().normalize().resolve("tandem-failslow-n" + i + ".img");
            Path mount = work.resolve("mnt").resolve("n" + i);
            LoopDisk disk = LoopDisk.create(image, settings.diskBytes(), mount);
            cleanup.register("unmount and detach " + disk.device() + " (" + mount + ")", disk::close);
            disks.add(disk);
        }
        out.println("  data disks: " + disks.stream().map(d -> d.mountPoint().getFileName() + "=" + d.device() + " (" + d.deviceNumber() + ")").toList());
    }

    private List<Path> freshDataDirs(int n) {
        List<Path> dirs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Path dir = disks.get(i).mountPoint().resolve("data");
            deleteRecursively(dir);
            dirs.add(dir);
        }
        return dirs;
    }

    /** One fresh cluster of {@code size} nodes under load through all of its windows. */
    private List<WindowResult> runCluster(int size, List<Scenario> windows, int run, Sink sink) throws InterruptedException {
        List<WindowResult> results = new ArrayList<>();
        String tag = "n" + size + "-r" + run;
        List<ServerCluster.Member> members = ServerCluster.layout(size, settings.basePort(), settings.portSpacing(), freshDataDirs(size));
        ServerCluster cluster = null;
        TickSampler sampler = null;
        try {
            out.printf(Locale.ROOT, "run %d, %d nodes: starting the servers (load average %.2f)%n", run, size, ProcStat.loadAverage1m());
            cluster = ServerCluster.start(members, settings.serverJvm(), settings.outDir().resolve("logs"), tag, settings.jfr(), cleanup, settings.protocol());
            KvClientConfig base = KvClientConfig.of(cluster.clientAddresses());
            try (TandemKvClient admin = TandemKvClient.connect(base.withRequestTimeout(Duration.ofSeconds(5)));
                 TandemKvClient client = TandemKvClient.connect(base.withMaxInFlight(Math.max(settings.clients(), 64)))) {
                ServerCluster.Leadership first = cluster.awaitLeader(admin, Duration.ofSeconds(90));
                ClosedLoopLoad load = new ClosedLoopLoad(client, settings.clients(), settings.keys(), settings.valueSize(), settings.seed() + run);
                sampler = new TickSampler(load, cluster.server(first.leader()).member.metricsPort());
                try (load) {
                    load.start();
                    sampler.start();
                    warmUp(cluster, sampler);
                    for (int w = 0; w < windows.size() && !cleanup.closing(); w++) {
                        Scenario s = windows.get(w);
                        windowsDone++;
                        out.printf(Locale.ROOT, "[%d/%d] %s, window %d: %s%n", windowsDone, windowsTotal, s.id(), w, s.describe());
                        WindowResult r;
                        try {
                            r = measureWindow(cluster, admin, sampler, s, run, w);
                        } catch (RuntimeException e) {
                            r = WindowResult.failed(s, run, w, e.getClass().getSimpleName() + ": " + e.getMessage(), ProcStat.loadAverage1m());
                        }
                        out.println("    " + oneLine(r));
                        results.add(r);
                        sink.window(r);
                    }
                    load.stop(3_000);
                }
            }
        } catch (RuntimeException e) {
            String why = e.getClass().getSimpleName() + ": " + e.getMessage();
            out.println("    run " + run + " of the " + size + "-node cluster FAILED: " + why);
            for (int w = results.size(); w < windows.size(); w++) {
                WindowResult r = WindowResult.failed(windows.get(w), run, w, why, ProcStat.loadAverage1m());
                results.add(r);
                sink.window(r);
            }
        } finally {
            if (sampler != null) sampler.close();
            if (cluster != null) cluster.close();
        }
        if (sampler != null) sink.session(size, run, sessionTimeline(sampler.ticks(), results));
        return results;
    }

    /** Keeps the load running until {@link Warmup#done} says the servers are warm (their JIT compilers went quiet). */
    private void warmUp(ServerCluster cluster, TickSampler sampler) throws InterruptedException {
        List<Long> pids = cluster.ids().stream().map(id -> cluster.server(id).pid()).toList();
        List<Double> jit = new ArrayList<>();
        while (true) {
            sampler.awaitTicks(jit.size() + 1);
            while (jit.size() < sampler.ticks().size()) jit.add(pids.stream().mapToDouble(ProcStat::jitCpuSeconds).sum());
            List<Long> ops = sampler.ticks().subList(0, jit.size()).stream().map(t -> t.latencies().getTotalCount()).toList();
            if (settings.warmup().done(ops, jit) || cleanup.closing()) {
                int n = jit.size();
                int span = Math.min(10, n - 1);
                out.printf(Locale.ROOT, "    warmed up after %d s: %d ops/s over the last %d s, JIT threads %.0f%% of a core%n", n,
                        ops.subList(n - span, n).stream().mapToLong(Long::longValue).sum() / Math.max(1, span), span,
                        100 * (jit.get(n - 1) - jit.get(n - 1 - span)) / Math.max(1, span));
                return;
            }
        }
    }

    /** Applies the window's fault (if any) to followers of the current leader, measures, removes it and waits for the followers to catch up. */
    private WindowResult measureWindow(ServerCluster cluster, TandemKvClient admin, TickSampler sampler, Scenario scenario, int run, int window)
            throws InterruptedException {
        ServerCluster.Leadership leadership = cluster.awaitLeader(admin, Duration.ofSeconds(30));
        ServerCluster.Server leader = cluster.server(leadership.leader());
        sampler.retarget(leader.member.metricsPort());
        List<String> slow = settings.slowLeader()
                ? (scenario.isHealthy() ? List.of() : List.of(leadership.leader()))
                : chooseFollowers(cluster.ids(), leadership.leader(), scenario.slowFollowers());
        List<FaultInjector.Target> targets = new ArrayList<>();
        for (String id : slow) {
            ServerCluster.Server s = cluster.server(id);
            targets.add(new FaultInjector.Target(id, s.pid(), s.member.client(), disks.get(cluster.ids().indexOf(id)).deviceNumber()));
        }
        // Start on a tick boundary, so the fault, the settling and the window line up with whole ticks.
        int start = sampler.ticks().size() + 1;
        sampler.awaitTicks(start);
        WindowResult.Span span = new WindowResult.Span(start, settings.settle(), settings.measure(), Math.min(PLOT_SECONDS_BEFORE, start));
        double liveStart = liveHeapMiB(leader, sampler);
        FaultInjector injector = new FaultInjector(settings.cgroupRoot(), CGROUP_PARENT, admin, cleanup);
        Map<String, List<Long>> roles = new LinkedHashMap<>();
        roles.put("leader", List.of(leader.pid()));
        roles.put("followers", cluster.ids().stream().filter(id -> !id.equals(leader.member.id()) && !slow.contains(id)).map(id -> cluster.server(id).pid()).toList());
        roles.put("slow", slow.stream().map(id -> cluster.server(id).pid()).toList());
        roles.put("client", List.of(ProcessHandle.current().pid()));
        Map<String, Double> cpuStart, cpuEnd;
        double liveEnd;
        boolean leaderChanged;
        try (FaultInjector.Applied applied = injector.apply(scenario.slowness(), targets)) {
            sampler.awaitTicks(span.windowStart());
            cpuStart = cpuSeconds(roles);
            sampler.awaitTicks(span.end());
            cpuEnd = cpuSeconds(roles);
            leaderChanged = !stillLeads(admin, leader, leadership.epoch());
            liveEnd = liveHeapMiB(leader, sampler);
        }
        double loadAverage = ProcStat.loadAverage1m();
        double catchUp = slow.isEmpty() ? 0 : awaitCatchUp(cluster, admin, leader);
        WindowResult.Measured m = WindowResult.measure(sampler.ticks(), span);
        return new WindowResult(scenario, run, window, start, leadership.leader(), slow, settings.measure(), m.ops(), m.errors(), m.throughput(),
                m.meanMs(), m.p50Ms(), m.p99Ms(), m.p999Ms(), m.maxMs(), m.heapMeanMiB(), m.heapMaxMiB(), m.heapSlopeMiBPerMin(),
                liveStart, liveEnd, m.resends(), m.warningsByKind(), m.backgroundMessages(), m.commitOverdue(), m.commitWaitMs(),
                cpuPercent(cpuStart, cpuEnd, settings.measure()), leaderChanged, catchUp, loadAverage, null, m.timeline());
    }

    /** CPU seconds used so far by each role's processes together. */
    private static Map<String, Double> cpuSeconds(Map<String, List<Long>> roles) {
        Map<String, Double> seconds = new LinkedHashMap<>();
        roles.forEach((role, pids) -> {
            if (!pids.isEmpty()) seconds.put(role, pids.stream().mapToDouble(ProcStat::cpuSeconds).sum());
        });
        return seconds;
    }

    /** Each role's CPU use between two readings, in % of one core. */
    static Map<String, Double> cpuPercent(Map<String, Double> start, Map<String, Double> end, double seconds) {
        Map<String, Double> pct = new LinkedHashMap<>();
        start.forEach((role, s) -> {
            Double e = end.get(role);
            if (e != null) pct.put(role, 100 * (e - s) / seconds);
        });
        return pct;
    }

    /**
     * Waits until every member has applied what the leader had committed when the fault was
     * removed, so the next window does not pay for the catch-up; returns the seconds it took
     * (NaN if it did not finish within {@link #CATCH_UP_LIMIT}).
     */
    private static double awaitCatchUp(ServerCluster cluster, TandemKvClient admin, ServerCluster.Server leader) throws InterruptedException {
        long t0 = System.nanoTime();
        long target;
        try {
            target = admin.statusAsync(leader.member.client()).get(5, TimeUnit.SECONDS).commitIndex();
        } catch (ExecutionException | TimeoutException e) {
            return Double.NaN;
        }
        long deadline = t0 + CATCH_UP_LIMIT.toNanos();
        while (System.nanoTime() < deadline) {
            boolean all = true;
            for (String id : cluster.ids()) {
                try {
                    NodeStatus st = admin.statusAsync(cluster.server(id).member.client()).get(2, TimeUnit.SECONDS);
                    if (st.appliedIndex() < target) all = false;
                } catch (ExecutionException | TimeoutException e) {
                    all = false;
                }
                if (!all) break;
            }
            if (all) return (System.nanoTime() - t0) / 1e9;
            Thread.sleep(100);
        }
        return Double.NaN;
    }

    /** Every tick of a cluster's run, labelled warmup, {@code <scenario>:settle}, {@code <scenario>:measure} or between. */
    static List<WindowResult.Second> sessionTimeline(List<TickSampler.Tick> ticks, List<WindowResult> windows) {
        String[] labels = new String[ticks.size()];
        Arrays.fill(labels, "between");
        int firstWindow = ticks.size();
        for (WindowResult w : windows) {
            for (WindowResult.Second s : w.timeline()) {
                // Timeline seconds count from the fault, which was applied at the start of tick startTick.
                if (s.phase().equals("before")) continue;
                int tick = s.second() + w.startTick();
                if (tick >= 0 && tick < labels.length) labels[tick] = w.scenario().id() + ":" + s.phase();
            }
            if (!w.timeline().isEmpty()) firstWindow = Math.min(firstWindow, w.startTick());
        }
        for (int i = 0; i < Math.min(firstWindow, labels.length); i++) if (labels[i].equals("between")) labels[i] = "warmup";
        List<WindowResult.Second> timeline = new ArrayList<>();
        for (int i = 0; i < ticks.size(); i++) {
            long errorsBefore = i == 0 ? 0 : ticks.get(i - 1).errorsSoFar();
            timeline.add(WindowResult.second(ticks.get(i), i, labels[i], ticks.get(i).errorsSoFar() - errorsBefore));
        }
        return timeline;
    }

    /** The last {@code count} non-leaders in member order (n3, then n2, ...): never the leader. */
    static List<String> chooseFollowers(List<String> members, String leader, int count) {
        List<String> followers = new ArrayList<>(members);
        followers.remove(leader);
        if (count > followers.size()) throw new IllegalArgumentException("only " + followers.size() + " followers, " + count + " requested");
        List<String> chosen = new ArrayList<>(followers.subList(followers.size() - count, followers.size()));
        chosen.sort(Comparator.reverseOrder());
        return chosen;
    }

    private static boolean stillLeads(TandemKvClient admin, ServerCluster.Server leader, long term) {
        try {
            NodeStatus st = admin.statusAsync(leader.member.client()).get(5, TimeUnit.SECONDS);
            return st.isLeader() && st.epoch() == term;
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * The leader's live heap: a full GC ({@code jcmd PID GC.run}), then the old generation's size
     * after it as the GC reported it ({@code jvm_gc_live_data_size_bytes}, set when the JVM
     * announces the major GC; the heap in use read a moment later would already hold tens of MiB of
     * new garbage at this allocation rate). NaN if that failed.
     */
    private static double liveHeapMiB(ServerCluster.Server leader, TickSampler sampler) throws InterruptedException {
        int port = leader.member.metricsPort();
        PrometheusText before = sampler.scrapeText(port);
        if (before == null) return Double.NaN;
        double majorGcs = majorGcs(before);
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Shell.Result r = Shell.run(List.of(jcmd.toString(), Long.toString(leader.pid()), "GC.run"), Duration.ofSeconds(60));
        if (!r.ok()) return Double.NaN;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            PrometheusText after = sampler.scrapeText(port);
            if (after != null && majorGcs(after) > majorGcs) return after.sum("jvm_gc_live_data_size_bytes") / WindowResult.MIB;
            Thread.sleep(20);
        }
        return Double.NaN;
    }

    private static double majorGcs(PrometheusText m) {
        return m.sum("jvm_gc_pause_seconds_count", l -> "end of major GC".equals(l.get("action")));
    }

    static String oneLine(WindowResult r) {
        if (r.failed()) return "FAILED: " + r.failure();
        return String.format(Locale.ROOT,
                "leader %s, slow %s: %.0f ops/s, mean %.2f ms (commit wait %.2f ms), p99 %.2f ms, %d errors; leader heap %.0f MiB, live %.1f -> %.1f MiB; "
                        + "cpu %s; resends %.0f, warnings %s%s; caught up in %.1f s; load %.1f",
                r.leader(), r.slowNodes(), r.throughput(), r.meanMs(), r.commitWaitMs(), r.p99Ms(), r.errors(), r.heapMeanMiB(), r.liveStartMiB(),
                r.liveEndMiB(), cpuText(r.cpuPercent()), r.resends(), r.warningsByKind(), r.leaderChanged() ? ", LEADER CHANGED" : "", r.catchUpSeconds(), r.loadAverage());
    }

    static String cpuText(Map<String, Double> cpu) {
        StringBuilder s = new StringBuilder();
        cpu.forEach((role, pct) -> s.append(s.isEmpty() ? "" : " ").append(role).append(' ').append(String.format(Locale.ROOT, "%.0f%%", pct)));
        return s.toString();
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) return;
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir + ": " + e.getMessage(), e);
        }
    }
}
