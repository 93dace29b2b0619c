package io.tandem.cli;

import io.tandem.kv.net.NodeStatus;
import io.tandem.kv.DurationText;
import io.tandem.transport.Endpoint;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tandem cluster}: runs a local cluster of server processes on loopback in the foreground,
 * reports nodes going down and coming back, and stops every node on Ctrl-C.
 */
@Command(name = "cluster", sortOptions = false, mixinStandardHelpOptions = true, description = {
        "Start a local cluster on this machine (one server process per node, on loopback) in the foreground.",
        "Ctrl-C (or ./tandem cluster --stop from another terminal) stops it. Node i listens for peers on BASE_PORT+i-1, for clients 1000 above and serves metrics 2000 above (--port-step changes the 1000).",
        "Data, configs, logs and pid files go to --dir; a cluster started again in the same directory keeps its data.",
        "Exit status: 1 if a cluster already runs from --dir, a port is taken or a node fails to start; 2 for bad options."})
final class ClusterCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR", description = "Directory for data, configs, logs and pid files (default ${DEFAULT-VALUE}).")
    Path dir = LocalCluster.DEFAULT_DIR;

    @Option(names = "--nodes", paramLabel = "N", description = "Number of nodes, 1 to 9 (default ${DEFAULT-VALUE}).")
    int nodes = 3;

    @Option(names = "--base-port", paramLabel = "PORT", description = "Peer port of n1 (default ${DEFAULT-VALUE}).")
    int basePort = LocalCluster.DEFAULT_BASE_PORT;

    @Option(names = "--port-step", paramLabel = "STEP", description = "Client ports STEP above the peer ports, metrics ports 2 x STEP above (default ${DEFAULT-VALUE}).")
    int portStep = 1000;

    @Option(names = "--state-machine", paramLabel = "KIND", description = "The KV state machine: btree (ordered) or hashmap (the Compartmentalization paper's; sequential, slow scans) (default ${DEFAULT-VALUE}).")
    String stateMachine = "btree";

    @Option(names = "--protocol", description = "Replication protocol (default ${DEFAULT-VALUE}).", completionCandidates = SimCommand.ProtocolNames.class)
    String protocol = "raft";

    @Option(names = "--fsync", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "fsync every write batch (default); --no-fsync is faster and survives a process crash but not power loss.")
    boolean fsync = true;

    @Option(names = "--tls", description = "Mutual TLS between the members and TLS for clients, with a development CA made in DIR/certs (commands find it; see kvstore/README.md, Security).")
    boolean tls;

    @Option(names = "--execution", paramLabel = "MODE", description = "How the KV state machine executes commands: sequential, psmr or opt-psmr (default ${DEFAULT-VALUE}).")
    String execution = "sequential";

    @Option(names = "--threads", paramLabel = "N", description = "Worker threads of a parallel execution (default: 2 with psmr/opt-psmr, else 1).")
    Integer threads;

    @Option(names = "--deployment", paramLabel = "FILE", description = "Where the protocol's roles run ('role = n1, n2' lines; multipaxos); copied into --dir, which keeps it.")
    Path deployment;

    @Option(names = "--shards", paramLabel = "N", description = "virtual-synchrony: split the keys into N shards, each a durable subgroup of the nodes (keys placed by hash; no scans).")
    Integer shards;

    @Option(names = "--shard-replicas", paramLabel = "R", description = "With --shards: the fewest nodes a shard may have (default: nodes / shards); N x R must not exceed --nodes.")
    Integer shardReplicas;

    @Option(names = "--fresh", description = "Delete the data of a previous cluster in --dir first.")
    boolean fresh;

    @Option(names = "--stop", description = "Stop the cluster running from --dir (e.g. one left behind by a killed 'tandem cluster') and exit.")
    boolean stop;

    @Override
    public Integer call() throws InterruptedException {
        Logging.configureForClient();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            return run(out, err);
        } finally {
            out.flush();
            err.flush();
        }
    }

    private int run(PrintWriter out, PrintWriter err) throws InterruptedException {
        if (stop) return stopRunning(out, err);
        try {
            io.tandem.protocols.Protocols.byName(protocol);
        } catch (IllegalArgumentException e) {
            err.println("tandem cluster: " + e.getMessage());
            return 2;
        }
        LocalCluster cluster;
        try {
            io.tandem.execution.ExecutionMode mode = io.tandem.execution.ExecutionMode.parse(execution);
            int workers = threads != null ? threads : mode == io.tandem.execution.ExecutionMode.SEQUENTIAL ? 1 : 2;
            if (mode == io.tandem.execution.ExecutionMode.SEQUENTIAL && workers != 1) throw new IllegalArgumentException("--threads needs --execution psmr or opt-psmr");
            if (workers < 1 || workers > io.tandem.execution.ParallelStateMachine.MAX_THREADS) throw new IllegalArgumentException("--threads must be in [1, 64]");
            LocalCluster laid = LocalCluster.layout(dir, nodes, basePort, portStep, protocol, fsync, mode.text(), workers).withTls(tls);
            if (shardReplicas != null && shards == null) throw new IllegalArgumentException("--shard-replicas needs --shards");
            if (shards != null && shards < 1) throw new IllegalArgumentException("--shards must be at least 1, was " + shards);
            cluster = (shards == null ? laid : laid.withShards(shards, shardReplicas != null ? shardReplicas : Math.max(1, nodes / shards))).withStateMachine(stateMachine);
        } catch (IllegalArgumentException e) {
            err.println("tandem cluster: " + e.getMessage());
            return 2;
        }
        Optional<LocalCluster> existing = LocalCluster.read(dir);
        Map<LocalCluster.Node, ProcessHandle> running = existing.orElse(cluster).running();
        if (!running.isEmpty()) {
            err.println("tandem cluster: a cluster is already running from " + cluster.dir() + " (" + describe(running) + ").");
            err.println("Use it (./tandem status, ./tandem demo), or stop it with Ctrl-C where it runs or with ./tandem cluster --stop.");
            return 1;
        }
        if (existing.isPresent() && !existing.get().sameShape(cluster) && !fresh) {
            LocalCluster old = existing.get();
            err.println("tandem cluster: " + cluster.dir() + " holds the data of another cluster (" + old.nodes().size() + " nodes, " + old.protocol() + ", n1 on port "
                    + old.nodes().getFirst().peer().port() + "); pass --fresh to delete it, or use another --dir.");
            return 1;
        }
        if (fresh && !deleteOldCluster(cluster.dir(), err)) return 1;
        if (deployment != null) {
            // Checked against the protocol and the members before anything starts; the cluster keeps a copy,
            // so a restart in the same directory runs the same roles where they were.
            String text;
            try {
                var roles = io.tandem.protocols.Protocols.byName(protocol).roles()
                        .orElseThrow(() -> new io.tandem.roles.DeploymentException(protocol + " runs one engine per member and takes no deployment file"));
                var members = cluster.nodes().stream().map(n -> io.tandem.engine.NodeId.of(n.id())).toList();
                var placed = io.tandem.roles.Deployment.read(deployment, roles);
                placed.resolve(members);
                // The protocol's own rules too (a MultiPaxos grid, a frontend without a replica, ...): a node
                // built from this placement is made, not started, so a bad file fails here and not in n1's log.
                io.tandem.protocols.Protocols.byName(protocol).withDeployment(placed).createEngine(members.getFirst(), members);
                text = Files.readString(deployment);
            } catch (IllegalArgumentException | IOException e) {
                err.println("tandem cluster: --deployment: " + e.getMessage());
                return 2;
            }
            Path copy = cluster.deploymentFile();
            try {
                if (Files.isRegularFile(copy) && !Files.readString(copy).equals(text)) {
                    err.println("tandem cluster: " + cluster.dir() + " holds a cluster started with another deployment (" + copy + "); pass --fresh to delete it, or use another --dir.");
                    return 1;
                }
                Files.createDirectories(cluster.dir());
                Files.writeString(copy, text);
            } catch (IOException e) {
                err.println("tandem cluster: cannot write the cluster's files in " + cluster.dir() + ": " + io.tandem.storage.StorageException.describe(e));
                return 1;
            }
        }
        try {
            cluster.writeFiles();
            Files.deleteIfExists(cluster.dir().resolve(STOP_MARKER));
        } catch (IOException | java.io.UncheckedIOException e) {
            err.println("tandem cluster: cannot write the cluster's files in " + cluster.dir().toAbsolutePath().normalize() + ": "
                    + io.tandem.storage.StorageException.describe(e instanceof java.io.UncheckedIOException u ? u.getCause() : (IOException) e));
            return 1;
        }
        for (LocalCluster.Node n : cluster.nodes()) {
            for (Endpoint e : List.of(n.peer(), n.client(), new Endpoint(n.client().host(), n.metricsPort()))) {
                if (ClusterOptions.accepts(e)) {
                    err.println("tandem cluster: port " + e.port() + " (" + n.id() + ") is already in use by another program; pick other ports with --base-port.");
                    return 1;
                }
            }
        }
        out.printf("Starting a %d-node %s cluster in %s (%s%s%s%s)%n", nodes, protocol, cluster.dir(), fsync ? "fsync on" : "no fsync",
                cluster.shards() == 0 ? "" : ", keys in " + cluster.shards() + " shards",
                tls ? ", TLS on, certificates in " + cluster.certsDir() : "",
                cluster.execution().equals("sequential") ? "" : ", " + cluster.execution() + " execution");
        long start = System.nanoTime();
        Optional<NodeStatus> leader;
        try {
            leader = cluster.startAll(out, Duration.ofSeconds(60));
        } catch (LocalCluster.StartFailedException e) {
            err.println("tandem cluster: " + e.getMessage());
            return 1;
        }
        out.printf("Ready after %s%s. Logs: %s%n", DurationText.format(Duration.ofNanos(System.nanoTime() - start)),
                leader.map(l -> ": " + l.node() + " leads (epoch " + l.epoch() + ")").orElse(""), cluster.dir().resolve("n*").resolve("server.log"));
        // The hints repeat the --dir the user gave: the other commands find the cluster (and its ports) there.
        String d = cluster.dir().equals(LocalCluster.DEFAULT_DIR) ? "" : " --dir " + cluster.dir();
        out.println("Try, in another terminal:  ./tandem put greeting hello" + d + "   ./tandem get greeting" + d + "   ./tandem status" + d + "   ./tandem demo" + d);
        out.println("Press Ctrl-C to stop the cluster (or ./tandem cluster" + d + " --stop).");
        out.flush();

        java.util.concurrent.atomic.AtomicBoolean stopping = new java.util.concurrent.atomic.AtomicBoolean();
        Thread hook = Thread.ofPlatform().name("tandem-cluster-stop").unstarted(() -> {
            stopping.set(true);
            out.println();
            out.println("Stopping the cluster...");
            out.flush();
            stopAll(cluster);
            out.println("Stopped.");
            out.flush();
        });
        Runtime.getRuntime().addShutdownHook(hook);
        watch(cluster, out, stopping);
        // Stopped from another terminal with --stop: nothing left to stop or watch.
        Runtime.getRuntime().removeShutdownHook(hook);
        out.println("The cluster was stopped with ./tandem cluster --stop.");
        return 0;
    }

    /**
     * Reports nodes going down and coming back, until the JVM is asked to stop or {@code --stop} from
     * another terminal leaves its marker in the cluster's directory.
     */
    private static void watch(LocalCluster cluster, PrintWriter out, java.util.concurrent.atomic.AtomicBoolean stopping) throws InterruptedException {
        Map<String, Long> last = new LinkedHashMap<>();
        for (var e : cluster.running().entrySet()) last.put(e.getKey().id(), e.getValue().pid());
        Path marker = cluster.dir().resolve(STOP_MARKER);
        while (true) {
            TimeUnit.MILLISECONDS.sleep(500); // polling pid files: a restarted node may be another process's child
            if (stopping.get()) continue;
            if (Files.exists(marker)) {
                try {
                    Files.deleteIfExists(marker);
                } catch (IOException ignored) {
                    // the next start removes it too
                }
                return;
            }
            Map<String, Long> now = new LinkedHashMap<>();
            for (var e : cluster.running().entrySet()) now.put(e.getKey().id(), e.getValue().pid());
            for (LocalCluster.Node n : cluster.nodes()) {
                Long before = last.get(n.id()), after = now.get(n.id());
                if (before != null && after == null) out.printf("%s  %s is down (process %d is gone)%n", clock(), n.id(), before);
                else if (after != null && !after.equals(before)) out.printf("%s  %s is up (pid %d)%n", clock(), n.id(), after);
            }
            out.flush();
            last = now;
        }
    }

    private static String clock() {
        return java.time.LocalTime.now().format(java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss"));
    }

    private static void stopAll(LocalCluster cluster) {
        List<ProcessHandle> procs = List.copyOf(cluster.running().values());
        for (ProcessHandle p : procs) p.destroy();
        for (ProcessHandle p : procs) LocalCluster.stop(p, Duration.ofSeconds(10));
    }

    private int stopRunning(PrintWriter out, PrintWriter err) {
        Optional<LocalCluster> existing = LocalCluster.read(dir);
        if (existing.isEmpty()) {
            err.println("tandem cluster: no cluster in " + dir.toAbsolutePath().normalize());
            return 1;
        }
        Map<LocalCluster.Node, ProcessHandle> running = existing.get().running();
        if (running.isEmpty()) {
            out.println("No node of the cluster in " + existing.get().dir() + " is running.");
            return 0;
        }
        out.println("Stopping " + describe(running) + "...");
        try {
            // Tells a 'tandem cluster' watching in the foreground that these exits are wanted.
            Files.writeString(existing.get().dir().resolve(STOP_MARKER), "stopped by ./tandem cluster --stop\n");
        } catch (IOException e) {
            err.println("tandem cluster: could not leave the stop note in " + existing.get().dir() + " (" + e.getMessage() + "); the foreground 'tandem cluster' will report the nodes as down");
        }
        stopAll(existing.get());
        out.println("Stopped.");
        return 0;
    }

    /** Left in the cluster's directory by --stop, so that the foreground command ends quietly. */
    static final String STOP_MARKER = "stopping";

    private static String describe(Map<LocalCluster.Node, ProcessHandle> running) {
        StringBuilder s = new StringBuilder();
        running.forEach((n, p) -> s.append(s.isEmpty() ? "" : ", ").append(n.id()).append(" pid ").append(p.pid()));
        return s.toString();
    }

    /** Deletes a previous cluster's directory, but only one that looks like it (a cluster.conf, node directories). */
    private static boolean deleteOldCluster(Path dir, PrintWriter err) {
        if (!Files.exists(dir)) return true;
        if (!Files.isRegularFile(dir.resolve("cluster.conf"))) {
            err.println("tandem cluster: --fresh: " + dir + " has no cluster.conf, so it is not a local cluster directory; not deleting it.");
            return false;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
            return true;
        } catch (IOException e) {
            err.println("tandem cluster: --fresh: cannot delete " + dir + ": " + e.getMessage());
            return false;
        }
    }
}
