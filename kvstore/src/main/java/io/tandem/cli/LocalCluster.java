package io.tandem.cli;

import io.tandem.kv.DurationText;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.net.NodeStatus;
import io.tandem.transport.Endpoint;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A cluster of server processes on this machine, as {@code tandem cluster} and {@code tandem demo}
 * run it. Everything lives under one directory:
 *
 * <pre>
 * tandem-data/cluster.conf      the layout (nodes, addresses, protocol); other commands read it to find the cluster
 * tandem-data/n1/server.conf    the node's server config (./tandem server --config tandem-data/n1/server.conf)
 * tandem-data/n1/server.log     its output
 * tandem-data/n1/server.pid     its process id while it runs (written by the server once ready)
 * tandem-data/n1/data/          its log, metadata and snapshots
 * </pre>
 *
 * Node i (from 1) has peer port {@code basePort + i - 1}, client port + 1000 and metrics port + 2000 (or + step and
 * + 2 x step with {@code --port-step}).
 */
final class LocalCluster {
    static final Path DEFAULT_DIR = Path.of("tandem-data");
    static final int DEFAULT_BASE_PORT = 7001;
    static final String CLUSTER_NAME = "local";

    /** One node's addresses. */
    record Node(String id, Endpoint peer, Endpoint client, int metricsPort) {}

    private final Path dir;
    private final List<Node> nodes;
    private final String protocol;
    private final boolean fsync;
    /** Mutual TLS between the members and TLS for clients, with certificates in {@link #certsDir()}. */
    private final boolean tls;
    /** The execution mode's name (sequential, psmr, opt-psmr) and its worker threads. */
    private final String execution;
    private final int threads;
    /** Virtual synchrony's sharded KV store (issue 23): shards and the fewest members per shard; 0 and 0 for one unsharded store. */
    private final int shards;
    private final int shardReplicas;
    /** The KV state machine of every node: btree (the default) or hashmap. */
    private final String stateMachine;

    private LocalCluster(Path dir, List<Node> nodes, String protocol, boolean fsync, boolean tls, String execution, int threads) {
        this(dir, nodes, protocol, fsync, tls, execution, threads, 0, 0, "btree");
    }

    private LocalCluster(Path dir, List<Node> nodes, String protocol, boolean fsync, boolean tls, String execution, int threads, int shards, int shardReplicas,
            String stateMachine) {
        this.dir = dir.toAbsolutePath().normalize();
        this.nodes = List.copyOf(nodes);
        this.protocol = protocol;
        this.fsync = fsync;
        this.tls = tls;
        this.execution = execution;
        this.threads = threads;
        this.shards = shards;
        this.shardReplicas = shardReplicas;
        this.stateMachine = stateMachine;
    }

    /** The same layout with every node's KV state machine {@code kind} (btree or hashmap; hashmap runs sequentially and unsharded). */
    LocalCluster withStateMachine(String kind) {
        if (!kind.equals("btree") && !kind.equals("hashmap")) throw new IllegalArgumentException("--state-machine must be btree or hashmap, was '" + kind + "'");
        if (kind.equals("hashmap") && (!execution.equals("sequential") || shards != 0)) throw new IllegalArgumentException("--state-machine hashmap runs sequentially and unsharded");
        return new LocalCluster(dir, nodes, protocol, fsync, tls, execution, threads, shards, shardReplicas, kind);
    }

    /** The same layout with TLS on or off. */
    LocalCluster withTls(boolean on) {
        return new LocalCluster(dir, nodes, protocol, fsync, on, execution, threads, shards, shardReplicas, stateMachine);
    }

    /**
     * The same layout with the keys split into {@code count} shards of at least {@code replicas} members
     * (a protocol that can split its group, such as virtual-synchrony; checked here so that a bad combination is one line before anything starts).
     */
    LocalCluster withShards(int count, int replicas) {
        // The protocol says whether it can split its group into shards, and why not (Protocol.withShards).
        java.util.Optional<String> refused = io.tandem.protocols.Protocols.byName(protocol).shardingRefused();
        if (refused.isPresent()) throw new IllegalArgumentException("--shards needs a protocol that splits its group into shards: " + refused.get());
        if (!execution.equals("sequential")) throw new IllegalArgumentException("--shards runs each shard's commands in its own order; it cannot be combined with --execution " + execution);
        io.tandem.kv.shard.ShardedKvProtocol.check(count, replicas, nodes.size());
        return new LocalCluster(dir, nodes, protocol, fsync, tls, execution, threads, count, replicas, stateMachine);
    }

    int shards() {
        return shards;
    }

    boolean tls() {
        return tls;
    }

    /** Where a TLS cluster keeps its development CA and certificates. */
    Path certsDir() {
        return dir.resolve("certs");
    }

    /** How the CLI's own clients (demo, status checks) authenticate: as the admin client of a TLS cluster. */
    io.tandem.kv.client.KvClientSecurity clientSecurity() {
        return tls ? io.tandem.kv.client.KvClientSecurity.fromDirectory(certsDir(), "admin") : io.tandem.kv.client.KvClientSecurity.NONE;
    }

    /** Makes the development CA and certificates of a TLS cluster, unless they are there already. */
    void ensureCertificates() {
        if (!tls || Files.exists(certsDir().resolve("ca.pem"))) return;
        CertsCommand.write(certsDir(), nodes.stream().map(n -> io.tandem.engine.NodeId.of(n.id())).toList(),
                Map.of("admin", java.util.EnumSet.allOf(io.tandem.kv.server.Role.class)), java.time.Duration.ofDays(365));
    }

    /** The layout of a new cluster of {@code count} nodes on loopback. */
    static LocalCluster layout(Path dir, int count, int basePort, String protocol, boolean fsync) {
        return layout(dir, count, basePort, protocol, fsync, "sequential", 1);
    }

    /** The same, with the KV state machine executed by {@code execution} on {@code threads} workers. */
    static LocalCluster layout(Path dir, int count, int basePort, String protocol, boolean fsync, String execution, int threads) {
        return layout(dir, count, basePort, 1000, protocol, fsync, execution, threads);
    }

    /** The same, with the client and metrics ports {@code step} and 2 x {@code step} above the peer ports. */
    static LocalCluster layout(Path dir, int count, int basePort, int step, String protocol, boolean fsync, String execution, int threads) {
        if (count < 1 || count > 9) throw new IllegalArgumentException("a local cluster has 1 to 9 nodes, not " + count);
        if (step < count) throw new IllegalArgumentException("port step " + step + " is smaller than the " + count + " nodes: the peer, client and metrics ports would overlap");
        if (basePort < 1024 || basePort + count - 1 + 2 * step > 65535) throw new IllegalArgumentException("base port " + basePort + " leaves no room for the client and metrics ports (+" + step + ", +" + 2 * step + ")");
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int port = basePort + i;
            nodes.add(new Node("n" + (i + 1), new Endpoint("127.0.0.1", port), new Endpoint("127.0.0.1", port + step), port + 2 * step));
        }
        return new LocalCluster(dir, nodes, protocol, fsync, false, execution, threads);
    }

    /** The cluster described by {@code dir/cluster.conf}, if there is one. */
    static Optional<LocalCluster> read(Path dir) {
        Path file = dir.resolve("cluster.conf");
        if (!Files.isRegularFile(file)) return Optional.empty();
        Map<String, String> kv = readKeyValues(file);
        try {
            List<Node> nodes = new ArrayList<>();
            Map<String, String> peers = pairs(kv.get("members")), clients = pairs(kv.get("client-members")), metrics = pairs(kv.get("metrics-ports"));
            for (var e : peers.entrySet()) {
                String id = e.getKey();
                nodes.add(new Node(id, Endpoint.parse(e.getValue()), Endpoint.parse(clients.get(id)), Integer.parseInt(metrics.getOrDefault(id, "0"))));
            }
            return Optional.of(new LocalCluster(dir, nodes, kv.getOrDefault("protocol", "raft"), Boolean.parseBoolean(kv.getOrDefault("fsync", "true")),
                    Boolean.parseBoolean(kv.getOrDefault("tls", "false")),
                    kv.getOrDefault("execution", "sequential"), Integer.parseInt(kv.getOrDefault("threads", "1")),
                    Integer.parseInt(kv.getOrDefault("shards", "0")), Integer.parseInt(kv.getOrDefault("shard-replicas", "0")),
                    kv.getOrDefault("state-machine", "btree")));
        } catch (RuntimeException e) {
            throw new IllegalStateException(file + " is damaged (" + e.getMessage() + "); delete " + dir + " or use another --dir", e);
        }
    }

    /** The client addresses of the cluster in {@code dir}, or the default local ones if it has none. */
    static List<Endpoint> clientAddressesOf(Path dir) {
        return read(dir).orElseGet(() -> layout(dir, 3, DEFAULT_BASE_PORT, "raft", true)).clientAddresses();
    }

    Path dir() {
        return dir;
    }

    List<Node> nodes() {
        return nodes;
    }

    String protocol() {
        return protocol;
    }

    boolean fsync() {
        return fsync;
    }

    String execution() {
        return execution;
    }

    List<Endpoint> clientAddresses() {
        return nodes.stream().map(Node::client).toList();
    }

    Node node(String id) {
        return nodes.stream().filter(n -> n.id().equals(id)).findFirst().orElseThrow(() -> new IllegalArgumentException("no node " + id));
    }

    Path logFile(Node n) {
        return dir.resolve(n.id()).resolve("server.log");
    }

    /** The cluster's copy of the deployment file it was started with, if any (every node reads it). */
    Path deploymentFile() {
        return dir.resolve("deployment.conf");
    }

    Path pidFile(Node n) {
        return dir.resolve(n.id()).resolve("server.pid");
    }

    Path configFile(Node n) {
        return dir.resolve(n.id()).resolve("server.conf");
    }

    /** True if this layout matches {@code other} in everything that must not change under existing data. */
    boolean sameShape(LocalCluster other) {
        // A parallel executor's snapshots (per-worker sessions) are not a sequential one's: the execution is part of the shape.
        // So are the shards: each one's history is in the logs of its members. And the state machine: a hash map
        // cannot restore a B+-tree's snapshot.
        return nodes.equals(other.nodes) && protocol.equals(other.protocol) && execution.equals(other.execution) && threads == other.threads
                && shards == other.shards && shardReplicas == other.shardReplicas && stateMachine.equals(other.stateMachine);
    }

    /** Writes cluster.conf and every node's server.conf. */
    void writeFiles() {
        try {
            Files.createDirectories(dir);
            ensureCertificates();
            String members = join(nodes.stream().map(n -> n.id() + "=" + n.peer()).toList());
            String clients = join(nodes.stream().map(n -> n.id() + "=" + n.client()).toList());
            String metrics = join(nodes.stream().map(n -> n.id() + "=" + n.metricsPort()).toList());
            write(dir.resolve("cluster.conf"), """
                    # A local cluster written by './tandem cluster'; the other tandem commands read it to find the cluster.
                    protocol = %s
                    fsync = %s
                    tls = %s
                    members = %s
                    client-members = %s
                    metrics-ports = %s
                    execution = %s
                    threads = %d
                    %s""".formatted(protocol, fsync, tls, members, clients, metrics, execution, threads, shardLines()));
            for (Node n : nodes) {
                Files.createDirectories(dir.resolve(n.id()));
                write(configFile(n), """
                        # Node %s of the local cluster, written by './tandem cluster'. Run it with:
                        #   ./tandem server --config %s
                        id = %s
                        members = %s
                        client-members = %s
                        cluster = %s
                        protocol = %s
                        data-dir = %s
                        fsync = %s
                        metrics-port = %d
                        pid-file = %s
                        execution = %s
                        threads = %d
                        %s%s%s""".formatted(n.id(), configFile(n), n.id(), members, clients, CLUSTER_NAME, protocol,
                        dir.resolve(n.id()).resolve("data"), fsync, n.metricsPort(), pidFile(n), execution, threads, shardLines(),
                        tls ? "tls-dir = " + certsDir() + "\n" : "",
                        Files.isRegularFile(deploymentFile()) ? "deployment = " + deploymentFile() + "\n" : ""));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the cluster files in " + dir + ": " + e.getMessage(), e);
        }
    }

    private String shardLines() {
        return (shards == 0 ? "" : "shards = " + shards + "\nshard-replicas = " + shardReplicas + "\n")
                + (stateMachine.equals("btree") ? "" : "state-machine = " + stateMachine + "\n");
    }

    /** The process of each node whose pid file names a live process. */
    Map<Node, ProcessHandle> running() {
        Map<Node, ProcessHandle> out = new LinkedHashMap<>();
        for (Node n : nodes) runningProcess(n).ifPresent(p -> out.put(n, p));
        return out;
    }

    Optional<ProcessHandle> runningProcess(Node n) {
        Path file = pidFile(n);
        try {
            if (!Files.isRegularFile(file)) return Optional.empty();
            long pid = Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).strip());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(LocalCluster::isJava);
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static boolean isJava(ProcessHandle p) {
        return p.info().command().map(c -> c.endsWith("java")).orElse(true);
    }

    /**
     * Starts node {@code n} as a child JVM running this same build ({@code tandem server --config}),
     * its output appended to its log file. The process keeps running if this JVM exits.
     */
    Process start(Node n) {
        try {
            Files.createDirectories(dir.resolve(n.id()));
            Files.deleteIfExists(pidFile(n)); // a stale one from a killed server would look like a running node
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(List.of("-Xms64m", "-Xmx512m", "-XX:+ExitOnOutOfMemoryError", "--enable-native-access=ALL-UNNAMED",
                    "--sun-misc-unsafe-memory-access=allow", // Kryo still uses sun.misc.Unsafe; do not warn about it in every log
                    "-cp", System.getProperty("java.class.path"), TandemCli.class.getName(), "server", "--config", configFile(n).toString()));
            Files.writeString(logFile(n), "---- starting " + n.id() + " at " + java.time.LocalDateTime.now() + "\n", StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            return new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile(n).toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + n.id() + ": " + e.getMessage(), e);
        }
    }

    /** A node did not come up; the message includes the end of its log. */
    static final class StartFailedException extends RuntimeException {
        StartFailedException(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Starts every node and waits until each answers a status request and the cluster serves a
     * linearizable read (so a leader exists), printing a line per node. On failure every node it
     * started is stopped again.
     *
     * @return the leader's status if the protocol reports roles, else empty
     */
    Optional<NodeStatus> startAll(PrintWriter out, Duration timeout) {
        Map<Node, Process> started = new LinkedHashMap<>();
        try {
            for (Node n : nodes) started.put(n, start(n));
            for (Node n : nodes) {
                out.printf("  %-3s pid %-7d peer %-16s client %-16s metrics %s://%s:%d/metrics%n", n.id(), started.get(n).pid(), n.peer(), n.client(),
                        tls ? "https" : "http", n.client().host(), n.metricsPort());
            }
            out.flush();
            return awaitReady(started, timeout);
        } catch (RuntimeException e) {
            for (Process p : started.values()) stop(p.toHandle(), Duration.ofSeconds(5));
            throw e;
        }
    }

    /** Waits until every node of {@code processes} answers and a read goes through; fails if one exits first. */
    Optional<NodeStatus> awaitReady(Map<Node, Process> processes, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (TandemKvClient client = TandemKvClient.connect(io.tandem.kv.client.KvClientConfig.of(clientAddresses()).withSecurity(clientSecurity())
                .withRequestTimeout(Duration.ofSeconds(2)).withAttemptTimeout(Duration.ofSeconds(1)).withConnectTimeout(Duration.ofMillis(500)))) {
            while (true) {
                for (var e : processes.entrySet()) {
                    if (!e.getValue().isAlive()) {
                        throw new StartFailedException(e.getKey().id() + " exited with status " + e.getValue().exitValue() + " while starting; the end of "
                                + logFile(e.getKey()) + ":\n" + logTail(e.getKey(), 15));
                    }
                }
                Map<String, NodeStatus> statuses = statuses(client);
                if (statuses.keySet().containsAll(processes.keySet().stream().map(Node::id).toList())) {
                    try {
                        client.get(new byte[0]); // a linearizable read: only a working leader with a quorum answers it
                        return leader(statuses(client));
                    } catch (RuntimeException notYet) {
                        // no leader yet: keep waiting
                    }
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new StartFailedException("the cluster did not become ready within " + io.tandem.kv.DurationText.format(timeout)
                            + "; nodes answering: " + statuses.keySet() + "; see the logs in " + dir);
                }
                java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L);
            }
        }
    }

    /** Stops a node gracefully (SIGTERM), killing it if it has not exited within {@code grace}. */
    static void stop(ProcessHandle p, Duration grace) {
        p.destroy();
        try {
            p.onExit().get(grace.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            p.destroyForcibly();
            p.onExit().join();
        }
    }

    /** The last {@code lines} lines of a node's log, for error messages. */
    String logTail(Node n, int lines) {
        try (Stream<String> all = Files.lines(logFile(n), StandardCharsets.UTF_8)) {
            List<String> list = all.toList();
            return String.join("\n", list.subList(Math.max(0, list.size() - lines), list.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Status of every node that answers, by node id. */
    static Map<String, NodeStatus> statuses(TandemKvClient client) {
        Map<String, NodeStatus> out = new LinkedHashMap<>();
        client.statusAll().forEach((e, s) -> {
            if (s instanceof NodeStatus ns) out.put(ns.node(), ns);
        });
        return out;
    }

    /** The node that reports itself leader, if one does. */
    static Optional<NodeStatus> leader(Map<String, NodeStatus> statuses) {
        return statuses.values().stream().filter(NodeStatus::isLeader).max(java.util.Comparator.comparingLong(NodeStatus::epoch));
    }

    private static String join(List<String> items) {
        return String.join(",", items);
    }

    private static void write(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    private static Map<String, String> readKeyValues(Path file) {
        Map<String, String> kv = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String l = line.strip();
                if (l.isEmpty() || l.startsWith("#") || l.indexOf('=') < 0) continue;
                kv.put(l.substring(0, l.indexOf('=')).strip(), l.substring(l.indexOf('=') + 1).strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return kv;
    }

    private static Map<String, String> pairs(String text) {
        if (text == null) throw new IllegalArgumentException("a key is missing");
        Map<String, String> out = new LinkedHashMap<>();
        for (String item : text.split(",")) {
            int eq = item.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("'" + item + "' is not id=value");
            out.put(item.substring(0, eq).strip(), item.substring(eq + 1).strip());
        }
        return out;
    }
}
