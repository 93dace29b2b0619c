package io.tandem.jepsen.cluster;

import io.tandem.jepsen.host.Cgroups;
import io.tandem.jepsen.host.HostLayout;
import io.tandem.jepsen.host.LoopDisk;
import io.tandem.jepsen.host.NetnsNetwork;
import io.tandem.jepsen.host.Shell;
import io.tandem.kv.client.KvClientConfig;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.net.MembershipChange;
import io.tandem.kv.net.NodeStatus;
import io.tandem.transport.Endpoint;
import io.tandem.transport.FaultPlan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A cluster of {@code tandem server} processes on one host, each in its own network namespace with its
 * own cgroups and (optionally) its own loop-device disk. It starts, kills, pauses and restarts nodes
 * and talks to their admin endpoint (status, fault plan, clock offset, membership). It assumes the
 * host is clean and leaves the removal of what it created to {@link io.tandem.jepsen.host.Cleanup}.
 */
public final class NetnsCluster implements AutoCloseable {
    private final ClusterSpec spec;
    private final HostLayout layout;
    private final Shell shell;
    private final NetnsNetwork network;
    private final Cgroups cgroups;
    private final List<ServerNode> nodes = new ArrayList<>();
    private final Map<Integer, LoopDisk> disks = new HashMap<>();
    private final Consumer<String> progress;
    private TandemKvClient admin;

    public NetnsCluster(ClusterSpec spec, HostLayout layout, Shell shell, Consumer<String> progress) {
        this.spec = spec;
        this.layout = layout;
        this.shell = shell;
        this.network = new NetnsNetwork(layout, shell, spec.nodes());
        this.cgroups = new Cgroups(layout);
        this.progress = progress;
    }

    public ClusterSpec spec() {
        return spec;
    }

    public NetnsNetwork network() {
        return network;
    }

    public Cgroups cgroups() {
        return cgroups;
    }

    public List<ServerNode> nodes() {
        return Collections.unmodifiableList(nodes);
    }

    public ServerNode node(int index) {
        return nodes.get(index - 1);
    }

    public ServerNode node(String name) {
        for (ServerNode n : nodes) if (n.name().equals(name)) return n;
        throw new IllegalArgumentException("no node " + name);
    }

    /** The node's disk, if it has one. */
    public Optional<LoopDisk> disk(int index) {
        return Optional.ofNullable(disks.get(index));
    }

    public List<Endpoint> clientAddresses() {
        return nodes.stream().map(ServerNode::clientAddress).toList();
    }

    /** Builds the network, disks and cgroups and starts every server. */
    public void start() {
        progress.accept("creating " + spec.nodes() + " network namespaces on bridge " + layout.bridge() + " (" + layout.subnet() + ".0/24)");
        network.up();
        List<String> members = new ArrayList<>();
        for (int i = 1; i <= spec.nodes(); i++) {
            members.add(HostLayout.nodeName(i) + "=" + layout.nodeIp(i) + ":" + ClusterSpec.PEER_PORT);
        }
        try {
            Files.createDirectories(layout.pidDir());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (int i = 1; i <= spec.nodes(); i++) {
            cgroups.create(i);
            Path dataRoot;
            if (spec.loopDisks()) {
                LoopDisk disk = LoopDisk.create(layout, i, spec.diskBytes(), shell);
                disks.put(i, disk);
                dataRoot = disk.mountPoint();
            } else {
                dataRoot = layout.mountPoint(i);
            }
            String name = HostLayout.nodeName(i);
            List<String> cmd = new ArrayList<>(List.of("sh", "-c", cgroups.joinCommandPrefix(i), "sh"));
            cmd.addAll(network.inNamespace(i));
            cmd.add(spec.javaBin().toString());
            cmd.addAll(spec.jvmOptions());
            cmd.addAll(List.of("-cp", spec.classPath(), "io.tandem.cli.TandemCli", "server",
                    "--id", name,
                    "--members", String.join(",", members),
                    "--protocol", spec.protocol(),
                    "--data-dir", dataRoot.resolve("data").toString(),
                    "--pid-file", layout.pidFile(i).toString(),
                    "--fault-injection"));
            cmd.addAll(spec.extraServerArgs());
            if (spec.tlsDir() != null) cmd.addAll(List.of("--tls-dir", spec.tlsDir().toString()));
            Endpoint peer = new Endpoint(layout.nodeIp(i), ClusterSpec.PEER_PORT);
            Endpoint client = new Endpoint(layout.nodeIp(i), ClusterSpec.CLIENT_PORT);
            nodes.add(new ServerNode(i, name, peer, client, cmd, spec.logDir().resolve(name).resolve("server.log"), shell));
        }
        progress.accept("starting " + spec.nodes() + " servers (protocol " + spec.protocol() + ")");
        for (ServerNode n : nodes) n.start();
        admin = TandemKvClient.connect(KvClientConfig.of(clientAddresses()).withSecurity(spec.clientSecurity())
                .withRequestTimeout(Duration.ofSeconds(5)).withAttemptTimeout(Duration.ofSeconds(2)).withConnectTimeout(Duration.ofSeconds(1)));
    }

    /**
     * Waits until a write through the cluster succeeds, that is until the cluster has elected a leader
     * and can commit.
     *
     * @throws IllegalStateException naming each node's last status if that takes longer than {@code timeout}
     */
    public void awaitWritable(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no attempt";
        while (System.nanoTime() < deadline) {
            for (ServerNode n : nodes) {
                if (n.state() == ServerNode.State.STOPPED) throw new IllegalStateException(n.name() + " exited; see " + n.logFile());
            }
            try {
                admin.put("jepsen-ready".getBytes(StandardCharsets.UTF_8), "1".getBytes(StandardCharsets.UTF_8));
                return;
            } catch (RuntimeException e) {
                last = e.getMessage();
                // Most failures take the client's whole request timeout; a quick refusal must not spin.
                java.util.concurrent.locks.LockSupport.parkNanos(200_000_000L);
            }
        }
        throw new IllegalStateException("the cluster did not accept a write within " + timeout + " (last error: " + last + "); statuses: " + statuses());
    }

    /** Every node's status, or the error it answered with, keyed by node name. */
    public Map<String, Object> statuses() {
        Map<String, CompletableFuture<NodeStatus>> futures = new LinkedHashMap<>();
        for (ServerNode n : nodes) futures.put(n.name(), admin.statusAsync(n.clientAddress()));
        Map<String, Object> out = new LinkedHashMap<>();
        futures.forEach((name, f) -> {
            try {
                out.put(name, f.get(5, TimeUnit.SECONDS));
            } catch (Exception e) {
                out.put(name, e.getCause() != null ? e.getCause().getMessage() : e.toString());
            }
        });
        return out;
    }

    /**
     * The nodes that currently lead: those whose status says LEADER, or, for engines that do not report
     * a role, the node most others name as leader. Empty while there is none.
     */
    public List<String> primaries() {
        Map<String, Object> s = statuses();
        List<String> leaders = new ArrayList<>();
        Map<String, Integer> named = new HashMap<>();
        s.forEach((name, v) -> {
            if (v instanceof NodeStatus st) {
                if (st.isLeader()) leaders.add(name);
                if (st.leader() != null) named.merge(st.leader(), 1, Integer::sum);
            }
        });
        if (!leaders.isEmpty()) return leaders;
        return named.entrySet().stream().max(Map.Entry.comparingByValue()).map(e -> List.of(e.getKey())).orElse(List.of());
    }

    /**
     * A sharded store's shards (issue 23): for each shard the names of its members, from the status
     * of the node that reports the newest shard map; empty if no node reports one.
     */
    public List<List<String>> shards() {
        NodeStatus newest = null;
        for (Object v : statuses().values()) {
            if (v instanceof NodeStatus st && !st.shards().isEmpty() && (newest == null || st.shardView() > newest.shardView())) newest = st;
        }
        return newest == null ? List.of() : newest.shards();
    }

    /** Replaces the outbound network fault plan of a node (the slow-network fault). */
    public void setFaultPlan(ServerNode node, FaultPlan plan) {
        admin.setFaultPlan(node.clientAddress(), plan);
    }

    /** Shifts the engine clock of a node. */
    public void setClockOffset(ServerNode node, Duration offset) {
        admin.setClockOffset(node.clientAddress(), offset);
    }

    /** Asks the leader for a membership change and waits until it is committed. */
    public void changeMembership(MembershipChange change, String node) {
        admin.changeMembership(change, node);
    }

    /** The root of a node's data (the mount point of its disk). */
    public Path dataRoot(int index) {
        LoopDisk d = disks.get(index);
        return d != null ? d.mountPoint() : layout.mountPoint(index);
    }

    /** Stops every server (SIGCONT then SIGKILL) and closes the admin client. */
    @Override
    public void close() {
        if (admin != null) admin.close();
        for (ServerNode n : nodes) {
            try {
                n.stop();
            } catch (RuntimeException e) {
                progress.accept("cannot stop " + n.name() + ": " + e.getMessage());
            }
        }
    }
}
