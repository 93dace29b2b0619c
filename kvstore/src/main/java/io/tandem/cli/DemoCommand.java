package io.tandem.cli;

import io.tandem.kv.client.KvClientConfig;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.net.NodeStatus;
import io.tandem.kv.DurationText;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tandem demo}: runs a mixed workload against the local cluster (starting one if none runs),
 * kills the leader with SIGKILL halfway, shows the failover, restarts the killed node, reads every
 * key back to show that no acknowledged write was lost, and prints throughput and latencies. On a
 * sharded store ({@code --shards}, virtual synchrony) it kills a member of the smallest shard
 * instead, shows the member that moves in and copies the shard's history, and the killed node
 * rejoining as a new member.
 */
@Command(name = "demo", sortOptions = false, mixinStandardHelpOptions = true, description = {
        "Show the replicated key-value store at work: a workload, a killed leader, and no acknowledged write lost.",
        "Runs a mixed workload against the local cluster (starting one if none runs, and removing it at the end), kills the",
        "leader with SIGKILL during the run, restarts it afterwards, then reads back every key to check that no acknowledged",
        "write was lost. Prints throughput, latency percentiles and the failover time. Exit status 1 if a write was lost or a read was stale, 2 for bad options, 3 if the cluster failed."})
final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR", description = "Use the local cluster running from DIR (default ${DEFAULT-VALUE}); if none runs there, "
            + "the demo starts one in a fresh directory beside it and removes it at the end (in DIR itself when --dir is given).")
    Path dir = LocalCluster.DEFAULT_DIR;

    @Option(names = "--duration", paramLabel = "DURATION", description = "How long the workload runs (default ${DEFAULT-VALUE}).")
    String duration = "20s";

    @Option(names = "--clients", paramLabel = "N", description = "Client threads, each with one request at a time (default ${DEFAULT-VALUE}).")
    int clients = 8;

    @Option(names = "--keys", paramLabel = "N", description = "Keys in use, split among the clients (default ${DEFAULT-VALUE}).")
    int keys = 10_000;

    @Option(names = "--writes", paramLabel = "PERCENT", description = "Share of operations that are puts; the rest are gets (default ${DEFAULT-VALUE}).")
    int writePercent = 80;

    @Option(names = "--value-size", paramLabel = "BYTES", description = "Size of the values written (default ${DEFAULT-VALUE}).")
    int valueSize = 100;

    @Option(names = "--kill-after", paramLabel = "DURATION", description = "When to kill the leader (default: a third into the run).")
    String killAfter;

    @Option(names = "--no-kill", description = "Do not kill the leader.")
    boolean noKill;

    @Option(names = "--base-port", paramLabel = "PORT", description = "Peer port of n1 in a cluster the demo starts (default ${DEFAULT-VALUE}; clients +1000, metrics +2000).")
    int basePort = LocalCluster.DEFAULT_BASE_PORT;

    @Option(names = "--protocol", description = "Protocol of a cluster the demo starts (default ${DEFAULT-VALUE}).", completionCandidates = SimCommand.ProtocolNames.class)
    String protocol = "raft";

    @Option(names = "--fsync", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "fsync in a cluster the demo starts (default on).")
    boolean fsync = true;

    @Option(names = "--tls", description = "Start the cluster with mutual TLS between members and TLS for clients (a development CA in DIR/certs).")
    boolean tls;

    @Option(names = "--shards", paramLabel = "N", description = "Start a sharded store: virtual-synchrony on 2N+1 nodes, keys split into N durable shards of at least 2 "
            + "(the kill then takes a member of a shard, and another node moves in with the shard's state).")
    Integer shards;

    @Option(names = "--keep", description = "Leave a cluster the demo started running at the end, with its data.")
    boolean keep;

    @Option(names = "--seed", description = "Seed of the workload's random choices (default: from the clock).")
    Long seed;

    private PrintWriter out;
    private PrintWriter err;
    private Progress progress;

    @Override
    public Integer call() throws Exception {
        Logging.configureForClient();
        out = spec.commandLine().getOut();
        err = spec.commandLine().getErr();
        try {
            return run();
        } finally {
            out.flush();
            err.flush();
        }
    }

    private int run() throws Exception {
        Duration runFor, killAt;
        try {
            runFor = DurationText.parse(duration);
            killAt = killAfter == null ? runFor.dividedBy(3) : DurationText.parse(killAfter);
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        }
        if (clients < 1 || clients > 256) return usage("--clients must be 1 to 256, was " + clients);
        if (keys < clients) return usage("--keys must be at least --clients (" + clients + "), was " + keys);
        if (writePercent < 0 || writePercent > 100) return usage("--writes must be 0 to 100, was " + writePercent);
        if (valueSize < 8 || valueSize > 64 * 1024) return usage("--value-size must be 8 to 65536, was " + valueSize);
        if (runFor.compareTo(Duration.ofSeconds(1)) < 0) return usage("--duration must be at least 1s");
        if (shards != null && (shards < 1 || shards > 4)) return usage("--shards must be 1 to 4 (2N+1 nodes of at most 9), was " + shards);
        boolean protocolAsked = spec.commandLine().getParseResult().hasMatchedOption("--protocol");
        // Without --protocol, --shards picks the protocol that ships with subgroups; an asked protocol says itself whether it shards.
        if (shards != null && !protocolAsked) protocol = io.tandem.protocols.vsync.VirtualSynchronyProtocol.NAME;
        if (shards != null) {
            Optional<String> refused;
            try {
                refused = io.tandem.protocols.Protocols.byName(protocol).shardingRefused();
            } catch (IllegalArgumentException e) {
                return usage(e.getMessage());
            }
            if (refused.isPresent()) return usage("--shards needs a protocol that splits its group into shards: " + refused.get());
        }
        if (!noKill && killAt.compareTo(runFor) >= 0) return usage("--kill-after (" + DurationText.format(killAt) + ") must be shorter than --duration (" + DurationText.format(runFor) + ")");

        out.println("Tandem demo: a replicated key-value store, a leader crash, and a check that no acknowledged write was lost.");
        out.println();
        Optional<LocalCluster> existing = LocalCluster.read(dir);
        boolean dirGiven = spec.commandLine().getParseResult().hasMatchedOption("--dir");
        // The demo's keys must not end up in a cluster the user starts later from the default
        // directory: unless told where, a cluster the demo starts lives in its own fresh directory.
        Path fresh = null;
        if (!dirGiven && (existing.isEmpty() || existing.get().running().isEmpty())) {
            fresh = freshDirectoryBeside(dir);
            existing = Optional.empty();
        }
        Path home = fresh != null ? fresh : dir;
        LocalCluster cluster;
        try {
            cluster = existing.orElseGet(() -> shards == null ? LocalCluster.layout(home, 3, basePort, protocol, fsync).withTls(tls)
                    : LocalCluster.layout(home, 2 * shards + 1, basePort, protocol, fsync).withTls(tls).withShards(shards, 2));
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        }
        if (tls && !cluster.tls()) {
            if (!cluster.running().isEmpty()) {
                err.println("tandem demo: the cluster running in " + cluster.dir() + " is plaintext; stop it (./tandem cluster --stop) to run the demo with --tls.");
                return 2;
            }
            cluster = cluster.withTls(true);
        }
        if (shards != null && cluster.shards() != shards) {
            err.println("tandem demo: the cluster in " + cluster.dir() + " has " + (cluster.shards() == 0 ? "no shards" : cluster.shards() + " shards")
                    + "; use another --dir, or './tandem cluster --fresh --protocol virtual-synchrony --nodes " + (2 * shards + 1) + " --shards " + shards + "' to replace it.");
            return 2;
        }
        boolean protocolGiven = protocolAsked || shards != null;
        if (protocolGiven && !cluster.protocol().equals(protocol)) {
            err.println("tandem demo: the cluster in " + cluster.dir() + " runs " + cluster.protocol() + ", not " + protocol
                    + "; use another --dir, or './tandem cluster --fresh --protocol " + protocol + "' to replace it.");
            return 2;
        }
        Map<LocalCluster.Node, ProcessHandle> running = cluster.running();
        boolean started = false;
        if (running.isEmpty()) {
            for (LocalCluster.Node n : cluster.nodes()) {
                if (ClusterOptions.accepts(n.client()) || ClusterOptions.accepts(n.peer())) {
                    err.println("tandem demo: port " + (ClusterOptions.accepts(n.client()) ? n.client() : n.peer()) + " is in use by a program that is not a cluster from "
                            + cluster.dir() + "; stop it or use ./tandem cluster --base-port in another --dir.");
                    return 3;
                }
            }
            cluster.writeFiles();
            out.printf("No cluster is running in %s: starting a %d-node %s cluster (%s%s).%n", cluster.dir(), cluster.nodes().size(), cluster.protocol(),
                    cluster.fsync() ? "fsync on" : "no fsync", cluster.tls() ? ", TLS on" : "");
            long t0 = System.nanoTime();
            try {
                cluster.startAll(out, Duration.ofSeconds(60));
            } catch (LocalCluster.StartFailedException e) {
                err.println("tandem demo: " + e.getMessage());
                return 3;
            }
            started = true;
            out.printf("Ready after %s.%n", DurationText.format(Duration.ofNanos(System.nanoTime() - t0)));
        } else {
            out.printf("Using the cluster running in %s (%d of %d nodes up).%n", cluster.dir(), running.size(), cluster.nodes().size());
            for (LocalCluster.Node n : cluster.nodes()) {
                if (running.containsKey(n)) continue;
                out.printf("Starting %s, which is down.%n", n.id());
                cluster.start(n);
            }
        }
        LocalCluster owned = started && !keep ? cluster : null;
        Path remove = owned != null ? fresh : null;
        Thread stopOnExit = Thread.ofPlatform().name("tandem-demo-stop").unstarted(() -> {
            if (progress != null) progress.interrupted();
            if (owned != null) stopCluster(owned);
            if (remove != null) deleteTree(remove);
        });
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        try {
            return demo(cluster, runFor, noKill ? null : killAt);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(stopOnExit);
                if (owned != null) {
                    out.print("Stopping the cluster the demo started... ");
                    out.flush();
                    stopCluster(owned);
                    if (remove != null) deleteTree(remove);
                    out.println(remove != null ? "stopped, and its directory removed." : "stopped.");
                } else if (started) {
                    String where = cluster.dir().equals(LocalCluster.DEFAULT_DIR) ? "" : " --dir " + cluster.dir();
                    out.println("The cluster keeps running (--keep): ./tandem status" + where + ", ./tandem cluster" + where + " --stop.");
                }
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C: the hook stops the cluster
            }
        }
    }

    /**
     * How the workload reaches the cluster: its protocol's routing (Copilot: both pilots, the first
     * reply wins), or leader-following for a name this build does not know.
     */
    private static io.tandem.routing.RoutingPolicy routingOf(String protocol) {
        try {
            return io.tandem.protocols.Protocols.byName(protocol).routing();
        } catch (IllegalArgumentException unknown) {
            return io.tandem.routing.RoutingPolicy.leader();
        }
    }

    private int demo(LocalCluster cluster, Duration runFor, Duration killAt) throws Exception {
        KvClientConfig config = KvClientConfig.of(cluster.clientAddresses()).withSecurity(cluster.clientSecurity()).withRouting(routingOf(cluster.protocol()));
        try (TandemKvClient kv = TandemKvClient.connect(config);
             TandemKvClient admin = TandemKvClient.connect(config.withRequestTimeout(Duration.ofSeconds(1)).withAttemptTimeout(Duration.ofMillis(500))
                     .withConnectTimeout(Duration.ofMillis(300)))) {
            Optional<NodeStatus> leader = awaitLeader(kv, admin, Duration.ofSeconds(30));
            if (leader.isEmpty() && killAt != null && cluster.protocol().startsWith("raft")) {
                err.println("tandem demo: no leader within 30 s; see the logs in " + cluster.dir());
                return 3;
            }
            String runId = Long.toString(System.currentTimeMillis(), 36);
            long workloadSeed = seed != null ? seed : System.nanoTime();
            DemoWorkload workload = new DemoWorkload(kv, new DemoWorkload.Settings(clients, keys, writePercent / 100.0, valueSize, runFor.toNanos(), runId, workloadSeed));
            out.println();
            out.printf(Locale.ROOT, "Workload: %d client threads, %d%% puts / %d%% gets over %,d keys (%d-byte values), for %s; leader: %s.%n",
                    clients, writePercent, 100 - writePercent, workload.keysInUse(), valueSize, DurationText.format(runFor),
                    leader.map(l -> l.node() + " (epoch " + l.epoch() + ")").orElse("not reported by " + cluster.protocol()));
            boolean sharded = cluster.shards() > 0;
            if (sharded) {
                NodeStatus any = LocalCluster.statuses(admin).values().stream().filter(st -> !st.shards().isEmpty()).findFirst().orElse(null);
                out.printf("Keys are split by hash into %d shards (view %s): %s.%n", cluster.shards(), any == null ? "?" : any.shardView(),
                        any == null ? "map not reported yet" : describeShards(any.shards()));
            }
            if (killAt != null) {
                out.printf(sharded ? "A member of the smallest shard will be killed with SIGKILL %s into the run.%n" : "The leader will be killed with SIGKILL %s into the run.%n",
                        DurationText.format(killAt));
            }
            out.println();
            out.flush();

            Failover failover = new Failover(cluster, admin);
            progress = new Progress(out, runFor.toNanos());
            Thread runner = Thread.ofPlatform().name("demo-workload").start(() -> {
                try {
                    workload.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            long start = System.nanoTime();
            String currentLeader = leader.map(NodeStatus::node).orElse(null);
            while (runner.isAlive()) {
                runner.join(failover.killed() && !failover.newLeaderSeen() ? 25 : 200); // look for the new leader often: that is the failover time shown
                long elapsed = System.nanoTime() - start;
                if (killAt != null && !failover.killed() && elapsed >= killAt.toNanos()) {
                    progress.event(elapsed, sharded ? failover.killShardMember() : failover.killLeader());
                }
                if (failover.killed() && !failover.newLeaderSeen()) {
                    (sharded ? failover.pollShardRefilled() : failover.pollNewLeader()).ifPresent(s -> progress.event(System.nanoTime() - start, s));
                }
                if (failover.currentLeader() != null) currentLeader = failover.currentLeader();
                Histogram[] interval = workload.drainIntervals();
                progress.update(elapsed, workload.operations(), interval[0], currentLeader);
            }
            long runNanos = System.nanoTime() - start;
            progress.finish(runNanos, workload.operations());
            out.println();

            if (failover.killed()) {
                restart(cluster, failover, admin, sharded);
            }

            out.printf(Locale.ROOT, "Reading back all %,d keys to check every acknowledged write... ", workload.keysInUse());
            out.flush();
            DemoWorkload.Verification v = workload.verify();
            boolean ok = v.lost() == 0 && workload.readAnomalies.sum() == 0;
            out.println(ok ? "done." : "PROBLEMS FOUND.");
            out.printf(Locale.ROOT, "  %,d keys written: %s; %s during the run.%n", v.keysWritten(),
                    v.lost() == 0 ? "every acknowledged write is there (0 lost)" : v.lost() + " LOST WRITES",
                    workload.readAnomalies.sum() == 0 ? "0 stale reads" : workload.readAnomalies.sum() + " STALE READS");
            long failed = workload.failedWrites.sum();
            if (failed > 0) {
                out.printf(Locale.ROOT, "  %,d puts failed (timed out or refused) and count as in doubt: %d took effect, %d did not.%n", failed, v.inDoubtApplied(), v.inDoubtNotApplied());
            }
            for (String p : v.problems()) out.println("  lost: " + p);
            for (String a : workload.anomalies()) out.println("  stale: " + a);
            out.println();
            report(workload, runNanos, failover, kv);
            return ok ? 0 : 1;
        }
    }

    /** Waits until the cluster serves a linearizable read; returns the leader if the protocol reports one. */
    private Optional<NodeStatus> awaitLeader(TandemKvClient kv, TandemKvClient admin, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            try {
                kv.get(new byte[0]);
                return LocalCluster.leader(LocalCluster.statuses(admin));
            } catch (RuntimeException e) {
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
        return Optional.empty();
    }

    /**
     * Restarts the killed node and waits until it is back: caught up to the leader's commit index, or, in a
     * sharded store, placed in a shard by a view (it copied that shard's history as a new member).
     */
    private void restart(LocalCluster cluster, Failover failover, TandemKvClient admin, boolean sharded) throws InterruptedException {
        LocalCluster.Node node = cluster.node(failover.killedNode());
        out.printf("Restarting %s, which was killed%s... ", node.id(), sharded ? "; it joins the group again as a new member" : "");
        out.flush();
        long t0 = System.nanoTime();
        Process p = cluster.start(node);
        long target = sharded ? 0 : LocalCluster.leader(LocalCluster.statuses(admin)).map(NodeStatus::commitIndex).orElse(0L);
        long deadline = t0 + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            if (!p.isAlive()) {
                out.println("it exited with status " + p.exitValue() + "; the end of its log:");
                out.println(cluster.logTail(node, 15));
                return;
            }
            if (admin.statusAll().get(node.client()) instanceof NodeStatus st) {
                String took = DurationText.format(Duration.ofNanos(System.nanoTime() - t0));
                if (!sharded && st.appliedIndex() >= target) {
                    out.printf(Locale.ROOT, "back (pid %d) and caught up to index %,d after %s.%n", p.pid(), st.appliedIndex(), took);
                    return;
                }
                if (sharded && st.voters().contains(node.id()) && !st.shards().isEmpty()) {
                    int shard = -1;
                    for (int i = 0; i < st.shards().size(); i++) if (st.shards().get(i).contains(node.id())) shard = i;
                    out.printf(Locale.ROOT, "back (pid %d) after %s, in view %d %s: %s.%n", p.pid(), took, st.shardView(),
                            shard < 0 ? "as a spare member" : "in shard " + shard + " (it copied the shard's history)", describeShards(st.shards()));
                    return;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                out.println("it did not " + (sharded ? "rejoin" : "catch up") + " within 60 s (see " + cluster.logFile(node) + ").");
                return;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    static String describeShards(List<List<String>> shards) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < shards.size(); i++) s.append(i == 0 ? "" : ", ").append("shard ").append(i).append(" on ").append(String.join("+", shards.get(i)));
        return s.toString();
    }

    private void report(DemoWorkload w, long runNanos, Failover failover, TandemKvClient kv) {
        double secs = runNanos / 1e9;
        out.println("Results");
        out.printf(Locale.ROOT, "  throughput     %,.0f ops/s  (%,.0f puts/s, %,.0f gets/s; %,d operations in %s)%n", w.operations() / secs, w.writes.sum() / secs,
                w.reads.sum() / secs, w.operations(), DurationText.format(Duration.ofNanos(runNanos)));
        out.printf("  latency (ms)   %8s %8s %8s %8s %9s%n", "p50", "p90", "p99", "p99.9", "max");
        latencyRow("put", w.writeTotal);
        latencyRow("get", w.readTotal);
        if (failover.killed()) {
            long[] gap = w.longestWriteGap();
            out.printf("  failover       %s killed at %s; %s%n", failover.killedNode(), DurationText.format(Duration.ofNanos(failover.killedAt() - progress.start())),
                    failover.newLeader() == null ? "no new " + (failover.shardKill ? "view" : "leader") + " was seen"
                            : failover.newLeader() + (failover.shardKill ? ", " : " was leading ") + DurationText.format(Duration.ofNanos(failover.electedAt() - failover.killedAt()))
                            + " after the kill");
            out.printf("                 writes paused for %s (the longest gap between acknowledged writes)%n", DurationText.format(Duration.ofNanos(gap[0])));
        }
        out.printf(Locale.ROOT, "  errors         %,d failed puts, %,d failed gets; the client retried %,d times (%,d leader redirects)%n",
                w.failedWrites.sum(), w.failedReads.sum(), kv.retries(), kv.redirects());
        out.println();
    }

    private void latencyRow(String name, Histogram h) {
        if (h.getTotalCount() == 0) {
            out.printf("    %-11s  (none)%n", name);
            return;
        }
        out.printf(Locale.ROOT, "    %-11s %8.2f %8.2f %8.2f %8.2f %9.1f%n", name, h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(90) / 1e3,
                h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3);
    }

    /** A new, empty directory next to {@code dir} (e.g. tandem-data-demo-4242), for a cluster the demo owns. */
    private static Path freshDirectoryBeside(Path dir) throws java.io.IOException {
        Path abs = dir.toAbsolutePath().normalize();
        Path parent = abs.getParent() == null ? abs : abs.getParent();
        return java.nio.file.Files.createTempDirectory(parent, abs.getFileName() + "-demo-");
    }

    private static void deleteTree(Path root) {
        try (var paths = java.nio.file.Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) java.nio.file.Files.deleteIfExists(p);
        } catch (java.io.IOException e) {
            System.err.println("tandem demo: could not remove " + root + ": " + e.getMessage());
        }
    }

    private static void stopCluster(LocalCluster cluster) {
        var procs = cluster.running().values();
        for (ProcessHandle p : procs) p.destroy();
        for (ProcessHandle p : procs) LocalCluster.stop(p, Duration.ofSeconds(10));
    }

    private int usage(String message) {
        err.println("tandem demo: " + message);
        return 2;
    }

    /** Kills the leader and watches for its successor. */
    private static final class Failover {
        private final LocalCluster cluster;
        private final TandemKvClient admin;
        private String killedNode;
        private long killedEpoch;
        private long killedAt;
        private String newLeader;
        private long electedAt;
        private boolean attempted;
        private String currentLeader;

        Failover(LocalCluster cluster, TandemKvClient admin) {
            this.cluster = cluster;
            this.admin = admin;
        }

        boolean killed() {
            return attempted;
        }

        String killedNode() {
            return killedNode;
        }

        long killedAt() {
            return killedAt;
        }

        String newLeader() {
            return newLeader;
        }

        long electedAt() {
            return electedAt;
        }

        boolean newLeaderSeen() {
            return newLeader != null || killedNode == null;
        }

        String currentLeader() {
            return currentLeader;
        }

        /** Kills the current leader with SIGKILL; returns the line to print. */
        String killLeader() {
            attempted = true;
            Optional<NodeStatus> leader = LocalCluster.leader(LocalCluster.statuses(admin));
            if (leader.isEmpty()) return "no node reports itself leader (" + cluster.protocol() + " may not report roles): not killing anything";
            NodeStatus l = leader.get();
            Optional<ProcessHandle> proc = ProcessHandle.of(l.pid()).filter(ProcessHandle::isAlive);
            if (proc.isEmpty()) return "the leader " + l.node() + " runs as pid " + l.pid() + ", which is not a process on this machine: not killing it";
            killedAt = System.nanoTime();
            proc.get().destroyForcibly(); // SIGKILL: no shutdown hook, no flush, like a power cut for the process
            killedNode = l.node();
            killedEpoch = l.epoch();
            currentLeader = "none";
            return "killed the leader " + l.node() + " (pid " + l.pid() + ", epoch " + l.epoch() + ") with SIGKILL";
        }

        /** A sharded store: the kill took a member of a shard, and the failover is a view that fills the shard again. */
        boolean shardKill;
        private int killedShard;
        private List<String> killedShardMembers = List.of();
        private long killedView;

        /** Kills the last member of the smallest shard (another node must move in and copy its history); returns the line to print. */
        String killShardMember() {
            attempted = true;
            shardKill = true;
            Map<String, NodeStatus> statuses = LocalCluster.statuses(admin);
            NodeStatus reporter = statuses.values().stream().filter(st -> !st.shards().isEmpty()).max(java.util.Comparator.comparingLong(NodeStatus::shardView)).orElse(null);
            if (reporter == null) return "no node reports a shard map: not killing anything";
            List<List<String>> map = reporter.shards();
            int smallest = 0;
            for (int i = 1; i < map.size(); i++) if (map.get(i).size() < map.get(smallest).size()) smallest = i;
            String victim = map.get(smallest).getLast();
            NodeStatus v = statuses.get(victim);
            if (v == null) return victim + " did not answer its status: not killing anything";
            Optional<ProcessHandle> proc = ProcessHandle.of(v.pid()).filter(ProcessHandle::isAlive);
            if (proc.isEmpty()) return victim + " runs as pid " + v.pid() + ", which is not a process on this machine: not killing it";
            killedAt = System.nanoTime();
            proc.get().destroyForcibly();
            killedNode = victim;
            killedShard = smallest;
            killedShardMembers = map.get(smallest);
            killedView = reporter.shardView();
            currentLeader = "shard " + smallest + " short of " + victim;
            return "killed " + victim + " (pid " + v.pid() + "), a member of shard " + smallest + " (" + String.join("+", killedShardMembers) + ") in view " + killedView + ", with SIGKILL";
        }

        /** Looks for a later view in which the killed member's shard is full again; returns the line to print once found. */
        Optional<String> pollShardRefilled() {
            for (NodeStatus st : LocalCluster.statuses(admin).values()) {
                if (st.shardView() <= killedView || st.shards().size() <= killedShard) continue;
                List<String> now = st.shards().get(killedShard);
                if (now.contains(killedNode) || now.size() < 2) continue;
                List<String> movedIn = now.stream().filter(m -> !killedShardMembers.contains(m)).toList();
                electedAt = System.nanoTime();
                newLeader = "view " + st.shardView() + ": shard " + killedShard + " on " + String.join("+", now);
                currentLeader = "shard " + killedShard + " on " + String.join("+", now);
                return Optional.of(newLeader + (movedIn.isEmpty() ? "" : "; " + String.join(", ", movedIn) + " moved in and copied the shard's history (state transfer)") + ", "
                        + DurationText.format(Duration.ofNanos(electedAt - killedAt)) + " after the kill");
            }
            return Optional.empty();
        }

        /** Looks for a leader of a later term among the others; returns the line to print once found. */
        Optional<String> pollNewLeader() {
            Optional<NodeStatus> leader = LocalCluster.leader(LocalCluster.statuses(admin));
            if (leader.isEmpty() || leader.get().node().equals(killedNode) || leader.get().epoch() <= killedEpoch) return Optional.empty();
            electedAt = System.nanoTime();
            newLeader = leader.get().node();
            currentLeader = newLeader;
            return Optional.of(newLeader + " is the new leader (epoch " + leader.get().epoch() + "), "
                    + DurationText.format(Duration.ofNanos(electedAt - killedAt)) + " after the kill");
        }
    }

    /** The progress bar: redrawn in place on a terminal, a line every few seconds otherwise. */
    private static final class Progress {
        private static final int WIDTH = 30;
        private final PrintWriter out;
        private final long total;
        private final long start = System.nanoTime();
        private final boolean terminal = System.console() != null && System.console().isTerminal();
        private long lastOps;
        private long lastAt = start;
        private long lastLine;
        private long lastDraw;
        private double rate;
        private boolean drawn;

        Progress(PrintWriter out, long totalNanos) {
            this.out = out;
            this.total = totalNanos;
        }

        long start() {
            return start;
        }

        synchronized void update(long elapsed, long ops, Histogram writes, String leader) {
            long now = System.nanoTime();
            if (now - lastAt >= 500_000_000L) {
                rate = (ops - lastOps) * 1e9 / (now - lastAt);
                lastOps = ops;
                lastAt = now;
            }
            String p99 = writes.getTotalCount() == 0 ? "  -  " : String.format(Locale.ROOT, "%.1f ms", writes.getValueAtPercentile(99) / 1e3);
            String line = String.format(Locale.ROOT, "%s %3d%%  %5.1fs  %,9d ops  %,7.0f ops/s  put p99 %8s  leader %s", bar(elapsed),
                    Math.min(100, elapsed * 100 / total), elapsed / 1e9, ops, rate, p99, leader == null ? "?" : leader);
            if (terminal) {
                if (now - lastDraw < 150_000_000L) return;
                lastDraw = now;
                out.print("\r" + line + "\u001b[K");
                drawn = true;
                out.flush();
            } else if (now - lastLine >= 2_000_000_000L) {
                lastLine = now;
                out.println(line);
                out.flush();
            }
        }

        synchronized void event(long elapsed, String text) {
            if (terminal && drawn) out.print("\r\u001b[K");
            out.printf(Locale.ROOT, "  %5.1fs  %s%n", elapsed / 1e9, text);
            out.flush();
        }

        synchronized void finish(long elapsed, long ops) {
            String line = String.format(Locale.ROOT, "%s 100%%  %5.1fs  %,9d ops  done", bar(total), elapsed / 1e9, ops);
            out.println(terminal ? "\r" + line + "\u001b[K" : line);
            out.flush();
        }

        synchronized void interrupted() {
            if (terminal && drawn) out.println();
            out.println("Interrupted.");
            out.flush();
        }

        private String bar(long elapsed) {
            int filled = (int) Math.min(WIDTH, elapsed * WIDTH / total);
            return "[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "]";
        }
    }
}
