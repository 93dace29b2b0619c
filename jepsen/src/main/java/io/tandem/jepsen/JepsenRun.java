package io.tandem.jepsen;

import io.tandem.history.EdnWriter;
import io.tandem.history.History;
import io.tandem.history.Keyword;
import io.tandem.jepsen.client.KvJepsenClient;
import io.tandem.jepsen.cluster.ClusterSpec;
import io.tandem.jepsen.cluster.NetnsCluster;
import io.tandem.jepsen.generator.Interpreter;
import io.tandem.jepsen.generator.Recorder;
import io.tandem.jepsen.generator.Stagger;
import io.tandem.jepsen.host.Cleanup;
import io.tandem.jepsen.host.HostCapabilities;
import io.tandem.jepsen.host.HostLock;
import io.tandem.jepsen.host.Shell;
import io.tandem.jepsen.nemesis.FaultKind;
import io.tandem.jepsen.nemesis.Nemesis;
import io.tandem.jepsen.store.HtmlReport;
import io.tandem.jepsen.store.OpCounts;
import io.tandem.jepsen.store.Store;
import io.tandem.jepsen.workload.CheckOutcome;
import io.tandem.jepsen.workload.Workload;
import io.tandem.jepsen.workload.WorkloadSpec;
import io.tandem.kv.net.NodeStatus;
import io.tandem.transport.Endpoint;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One run of the local runner, end to end: take the host lock, remove a crashed run's leftovers, build
 * the namespaces and start the servers, run the workload under the nemesis for the time limit, heal
 * everything, wait for recovery, do the final reads, tear the cluster down and clean the host, then
 * check the history and write Jepsen's store layout. The host is cleaned on every path out: normal end,
 * failure, and JVM shutdown (Ctrl-C, SIGTERM) through a shutdown hook.
 */
public final class JepsenRun {
    private static final Duration FINAL_READS_WITHIN = Duration.ofSeconds(60);

    private final RunConfig config;
    private final Consumer<String> progress;

    public JepsenRun(RunConfig config, Consumer<String> progress) {
        this.config = config;
        this.progress = progress;
    }

    /** The run was stopped by a signal (Ctrl-C, SIGTERM): the JVM is shutting down, do not start another. */
    public static final class StoppedBySignalException extends IllegalStateException {
        public StoppedBySignalException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The host cannot run a cluster (not root, no namespaces, no iptables); the message says why. */
    public static final class HostUnsuitableException extends RuntimeException {
        public HostUnsuitableException(String message) {
            super(message);
        }
    }

    /**
     * Runs and checks.
     *
     * @throws HostUnsuitableException if this host cannot run the cluster at all
     * @throws IllegalStateException if the cluster could not be started or the run broke down (the
     *     store keeps what was recorded)
     */
    public RunResult run() throws InterruptedException {
        Shell shell = new Shell(line -> { });
        HostCapabilities host = HostCapabilities.probe(config.layout(), shell);
        if (!host.canRunCluster()) throw new HostUnsuitableException(host.whyNot());
        WorkloadSpec spec = config.workload();
        Store store = Store.create(config.storeRoot(), spec.name());
        PrintWriter hostLog = openLog(store, "host-commands.log");
        shell.logTo(line -> {
            synchronized (hostLog) {
                hostLog.println(line);
                hostLog.flush();
            }
        });
        Consumer<String> say = line -> {
            progress.accept(line);
            synchronized (hostLog) {
                hostLog.println("# " + line);
                hostLog.flush();
            }
        };
        try (HostLock lock = HostLock.acquire(config.layout(), config.lockWait(), say)) {
            return runLocked(shell, host, store, say);
        } finally {
            hostLog.close();
        }
    }

    private RunResult runLocked(Shell shell, HostCapabilities host, Store store, Consumer<String> say) throws InterruptedException {
        Cleanup cleanup = new Cleanup(config.layout(), shell);
        WorkloadSpec spec = config.workload();
        boolean loopDisks = config.loopDisks() && host.loopDisks();
        Path tlsDir = config.tls() ? store.dir().resolve("certs") : null;
        if (tlsDir != null) {
            List<io.tandem.engine.NodeId> members = new ArrayList<>();
            for (int i = 1; i <= config.nodes(); i++) members.add(io.tandem.engine.NodeId.of(io.tandem.jepsen.host.HostLayout.nodeName(i)));
            io.tandem.cli.CertsCommand.write(tlsDir, members, java.util.Map.of("admin", java.util.EnumSet.allOf(io.tandem.kv.server.Role.class)),
                    Duration.ofDays(1));
            say.accept("TLS on: members and clients authenticate with certificates of a development CA in " + tlsDir);
        }
        ClusterSpec clusterSpec = new ClusterSpec(config.nodes(), config.protocol(), config.javaBin(), config.classPath(), config.jvmOptions(),
                config.extraServerArgs(), loopDisks, RunConfig.DISK_BYTES, store.dir(), tlsDir);
        NetnsCluster cluster = new NetnsCluster(clusterSpec, config.layout(), shell, say);
        Workload workload = Workload.of(spec, config.nodes());
        int concurrency = spec.concurrency(config.nodes());
        Recorder recorder = new Recorder();
        List<Endpoint> clientAddresses = new ArrayList<>();
        for (int i = 1; i <= config.nodes(); i++) clientAddresses.add(new Endpoint(config.layout().nodeIp(i), ClusterSpec.CLIENT_PORT));
        Interpreter clients = new Interpreter(concurrency, config.nodes(),
                KvJepsenClient.factory(clientAddresses, workload, spec.opTimeout(), KvJepsenClient.routingOf(config.protocol()), clusterSpec.clientSecurity()), recorder, spec.opTimeout(), config.seed());
        AtomicBoolean torndown = new AtomicBoolean();
        List<Nemesis> nemesisRef = new ArrayList<>(1);
        Runnable teardown = () -> {
            if (!torndown.compareAndSet(false, true)) return;
            clients.abort();
            nemesisRef.forEach(Nemesis::stop);
            clients.close();
            cluster.close();
            List<String> problems = cleanup.run();
            if (!problems.isEmpty()) say.accept("cleanup left: " + problems);
        };
        Thread hook = Thread.ofPlatform().name("jepsen-cleanup").unstarted(teardown);
        try {
            Runtime.getRuntime().addShutdownHook(hook);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down (a signal arrived between runs): touch nothing, hooks are running.
            throw new StoppedBySignalException("stopped by a signal before the run started", e);
        }
        // After the hook is in place, so that a signal from here on still leaves a clean host.
        List<String> leftovers = cleanup.run();
        if (!leftovers.isEmpty()) {
            Runtime.getRuntime().removeShutdownHook(hook);
            throw new IllegalStateException("cannot clean the host before the run: " + leftovers);
        }

        Map<Object, Object> runInfo = runInfo(spec, concurrency, loopDisks);
        Nemesis nemesis = null;
        String failure = null;
        Instant started = Instant.now();
        Map<String, Object> finalStatuses = Map.of();
        try {
            cluster.start();
            cluster.awaitWritable(config.readyTimeout());
            say.accept("cluster is up: " + cluster.primaries() + " leads; running " + spec.name() + " for " + spec.timeLimit().toSeconds()
                    + " s, concurrency " + concurrency + ", rate " + spec.rate() + "/s, seed " + config.seed());
            nemesis = new Nemesis(spec.nemesis(), cluster, host, recorder, config.seed() ^ 0x6E656D65L, say);
            nemesisRef.add(nemesis);
            nemesis.skipped().forEach((k, why) -> say.accept("fault " + k.cliName() + " skipped: " + why));
            say.accept("faults: " + (nemesis.running().isEmpty() ? "none" : nemesis.running().stream().map(FaultKind::cliName).toList())
                    + ", interval " + spec.nemesis().interval().toMillis() / 1000.0 + " s");
            runInfo.put(Keyword.of("faults"), nemesis.running().stream().map(k -> Keyword.of(k.cliName())).toList());
            runInfo.put(Keyword.of("skipped-faults"), nemesis.skippedEdn());

            recorder.startClock();
            long deadline = System.nanoTime() + spec.timeLimit().toNanos();
            Nemesis n = nemesis;
            Thread nemesisThread = Thread.ofPlatform().name("jepsen-nemesis").start(() -> n.run(deadline));
            try {
                clients.run(workload.generator(concurrency), new Stagger(spec.rate()), deadline);
            } finally {
                n.stop();
                nemesisThread.join();
            }
            say.accept("healing: resuming and restarting nodes, healing the network, lifting throttles, resetting clocks");
            nemesis.healAll();
            say.accept("waiting for recovery");
            cluster.awaitWritable(config.readyTimeout());
            sleep(spec.recovery());
            if (spec.finalReads()) {
                say.accept("final reads");
                clients.run(workload.finalGenerator(recorder.history()), null, System.nanoTime() + FINAL_READS_WITHIN.toNanos());
            }
            finalStatuses = cluster.statuses();
        } catch (InterruptedException e) {
            failure = "interrupted";
            throw e;
        } catch (RuntimeException e) {
            if (torndown.get()) {
                // The shutdown hook (Ctrl-C, SIGTERM) stopped the cluster under our feet: that is the story, not the symptom.
                failure = "stopped by a signal; the cluster was stopped and the host cleaned";
                throw new StoppedBySignalException(failure + " (partial history in " + store.dir() + ")", e);
            }
            failure = e.getMessage() == null ? e.toString() : e.getMessage();
            throw new IllegalStateException("the run broke down: " + failure + " (see " + store.dir() + ")", e);
        } finally {
            say.accept("stopping the cluster and cleaning up the host");
            teardown.run();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs (and finds the work done)
            }
            runInfo.put(Keyword.of("duration-s"), Duration.between(started, Instant.now()).toMillis() / 1000.0);
            runInfo.put(Keyword.of("final-status"), statusEdn(finalStatuses));
            if (failure != null) {
                runInfo.put(Keyword.of("failure"), failure);
                History partial = recorder.history();
                store.writeHistory(partial);
                store.writeEdn("test.edn", runInfo);
            }
        }
        return check(store, recorder.history(), workload, nemesis, runInfo, concurrency, host);
    }

    private RunResult check(Store store, History history, Workload workload, Nemesis nemesis, Map<Object, Object> runInfo, int concurrency,
                            HostCapabilities host) {
        store.writeHistory(history);
        store.writeEdn("test.edn", runInfo);
        progress.accept("checking " + history.size() + " history entries");
        CheckOutcome check = workload.check(history);
        OpCounts counts = OpCounts.of(history);
        Map<Object, Object> results = new LinkedHashMap<>();
        results.put(Keyword.of("valid?"), check.verdict().edn());
        results.put(Keyword.of("workload"), check.results());
        results.put(Keyword.of("stats"), counts.toEdn());
        Map<Object, Object> nem = new LinkedHashMap<>();
        nem.put(Keyword.of("faults"), nemesis.running().stream().map(k -> Keyword.of(k.cliName())).toList());
        nem.put(Keyword.of("skipped"), nemesis.skippedEdn());
        nem.put(Keyword.of("ops"), counts.nemesisOps());
        results.put(Keyword.of("nemesis"), nem);
        Map<Object, Object> caps = new LinkedHashMap<>();
        caps.put(Keyword.of("root"), host.root());
        caps.put(Keyword.of("netns"), host.netns());
        caps.put(Keyword.of("iptables"), host.iptables());
        caps.put(Keyword.of("cgroup-cpu"), host.cgroupCpu());
        caps.put(Keyword.of("cgroup-blkio"), host.cgroupBlkio());
        caps.put(Keyword.of("loop-disks"), host.loopDisks());
        caps.put(Keyword.of("netem"), false);
        results.put(Keyword.of("host"), caps);
        store.writeEdn("results.edn", results);
        String title = workload.spec().name() + " / " + config.protocol();
        store.write("latency.html", HtmlReport.latency(title, history));
        store.write("timeline.html", HtmlReport.timeline(title, history, concurrency));
        return new RunResult(check.verdict(), check, counts, nemesis.running(), nemesis.skipped(), store.dir());
    }

    private Map<Object, Object> runInfo(WorkloadSpec spec, int concurrency, boolean loopDisks) {
        Map<Object, Object> m = new LinkedHashMap<>();
        m.put(Keyword.of("name"), spec.name());
        m.put(Keyword.of("workload"), spec.kind());
        m.put(Keyword.of("protocol"), config.protocol());
        m.put(Keyword.of("nodes"), config.nodes());
        m.put(Keyword.of("tls"), config.tls());
        m.put(Keyword.of("seed"), config.seed());
        m.put(Keyword.of("concurrency"), concurrency);
        m.put(Keyword.of("rate"), spec.rate());
        m.put(Keyword.of("time-limit-s"), spec.timeLimit().toMillis() / 1000.0);
        m.put(Keyword.of("op-timeout-ms"), spec.opTimeout().toMillis());
        m.put(Keyword.of("nemesis-interval-s"), spec.nemesis().interval().toMillis() / 1000.0);
        m.put(Keyword.of("server-args"), config.extraServerArgs());
        m.put(Keyword.of("loop-disks"), loopDisks);
        m.put(Keyword.of("subnet"), config.layout().subnet() + ".0/24");
        return m;
    }

    private static Map<Object, Object> statusEdn(Map<String, Object> statuses) {
        Map<Object, Object> m = new LinkedHashMap<>();
        statuses.forEach((node, s) -> {
            if (s instanceof NodeStatus st) {
                Map<Object, Object> e = new LinkedHashMap<>();
                e.put(Keyword.of("role"), st.role());
                e.put(Keyword.of("leader"), st.leader());
                e.put(Keyword.of("epoch"), st.epoch());
                e.put(Keyword.of("commit-index"), st.commitIndex());
                e.put(Keyword.of("applied-index"), st.appliedIndex());
                m.put(node, e);
            } else {
                m.put(node, List.of(Keyword.of("error"), EdnWriter.toEdn(s)));
            }
        });
        return m;
    }

    private static PrintWriter openLog(Store store, String name) {
        try {
            return new PrintWriter(Files.newBufferedWriter(store.file(name), StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sleep(Duration d) throws InterruptedException {
        // Jepsen's recovery sleep: time for lagging replicas to catch up before the final reads.
        if (!d.isZero() && !d.isNegative()) Thread.sleep(d);
    }
}
