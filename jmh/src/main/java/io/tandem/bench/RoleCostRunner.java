package io.tandem.bench;

import io.tandem.engine.Protocol;
import io.tandem.kv.client.KvClientConfig;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.protocols.Protocols;
import io.tandem.roles.Deployment;
import io.tandem.transport.Endpoint;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * Per-role cost of a running local cluster (issue 21: "real multi-process runs show the leader's per-command CPU and
 * message count falling as the model says, measured per role"). Drives the cluster that {@code ./tandem cluster --dir
 * DIR} started (one process per member, roles as its deployment file places them) with a closed-loop put load, and
 * over a measured window reads for every member process:
 *
 * <ul>
 *   <li>its CPU time from {@code /proc/PID/task/TID/stat}, per thread group: the protocol loop
 *       ({@code tandem-loop-*}, where the member's roles run), the execution thread ({@code tandem-exec-*}), JIT
 *       compiler threads, GC and VM threads, everything else (Netty I/O, storage, metrics);</li>
 *   <li>the messages it sent to other members: the transport's {@code tandem_transport_frames_sent_total} (one frame
 *       per protocol message) from its Prometheus endpoint, before and after.</li>
 * </ul>
 *
 * Both divided by the puts the clients completed in the window. No timer on any hot path: the counters exist already
 * and the CPU times are the kernel's. Usage (the cluster running):
 *
 * <pre>java -cp jmh/target/benchmarks.jar io.tandem.bench.RoleCostRunner --dir DIR --label NAME [--clients 64]
 *     [--warmup 15] [--measure 10] [--value-bytes 64] [--keys 10000] [--csv FILE] [--leader ID]</pre>
 */
public final class RoleCostRunner {
    private static final long CLOCK_TICKS = 100; // USER_HZ on Linux x86-64 (getconf CLK_TCK)

    private RoleCostRunner() {}

    record Node(String id, Endpoint client, int metricsPort, long pid, String roles) {}

    /** One member's counters at one instant: CPU ticks per thread group, frames sent. */
    record Sample(Map<String, Long> ticks, long framesSent) {}

    public static void main(String[] args) throws Exception {
        Path dir = null, csv = null;
        String label = "run";
        String leaderArg = null;
        int clients = 64, warmup = 15, measure = 10, valueBytes = 64, keys = 10_000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dir" -> dir = Path.of(args[++i]);
                case "--label" -> label = args[++i];
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--measure" -> measure = Integer.parseInt(args[++i]);
                case "--value-bytes" -> valueBytes = Integer.parseInt(args[++i]);
                case "--keys" -> keys = Integer.parseInt(args[++i]);
                case "--csv" -> csv = Path.of(args[++i]);
                case "--leader" -> leaderArg = args[++i];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (dir == null) throw new IllegalArgumentException("--dir DIR (of a running ./tandem cluster) is required");
        PrintStream out = System.out;
        Map<String, String> conf = keyValues(dir.resolve("cluster.conf"));
        Map<String, String> clientAddresses = pairs(conf.get("client-members")), metricsPorts = pairs(conf.get("metrics-ports"));
        Protocol protocol = Protocols.byName(conf.getOrDefault("protocol", "raft"));
        Path deploymentFile = dir.resolve("deployment.conf");
        Map<String, List<String>> roles = new TreeMap<>();
        if (Files.isRegularFile(deploymentFile)) {
            protocol = protocol.withDeployment(Deployment.read(deploymentFile, protocol.roles().orElseThrow()));
            for (String line : Files.readAllLines(deploymentFile)) {
                String l = line.strip();
                int eq = l.indexOf('=');
                if (l.isEmpty() || l.startsWith("#") || eq < 0) continue;
                for (String m : l.substring(eq + 1).split(",")) roles.computeIfAbsent(m.strip(), k -> new ArrayList<>()).add(l.substring(0, eq).strip());
            }
        }
        List<Node> nodes = new ArrayList<>();
        for (var e : clientAddresses.entrySet()) {
            String id = e.getKey();
            long pid = Long.parseLong(Files.readString(dir.resolve(id).resolve("server.pid")).strip());
            nodes.add(new Node(id, Endpoint.parse(e.getValue()), Integer.parseInt(metricsPorts.get(id)), pid,
                    roles.isEmpty() ? "all" : String.join("+", roles.getOrDefault(id, List.of("none")))));
        }
        KvClientConfig base = KvClientConfig.of(nodes.stream().map(Node::client).toList()).withRouting(protocol.routing());
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        try (TandemKvClient admin = TandemKvClient.connect(base.withRequestTimeout(Duration.ofSeconds(5)));
             TandemKvClient client = TandemKvClient.connect(base.withMaxInFlight(Math.max(clients, 64)))) {
            String leader = leaderArg != null ? leaderArg : "";
            for (Node n : nodes) {
                if (!leader.isEmpty()) break;
                try {
                    String l = admin.status(n.client()).leader();
                    if (l != null) leader = l;
                } catch (RuntimeException e) {
                    out.println("  (no status from " + n.id() + ": " + e.getMessage() + ")");
                }
            }
            out.printf(Locale.ROOT, "%s: %d members, leader %s, %d closed-loop clients, %d s warm-up, %d s measured, load %s%n", label, nodes.size(), leader,
                    clients, warmup, measure, loadavg());
            ClosedLoopLoad load = new ClosedLoopLoad(client, clients, keys, valueBytes, 42);
            try (load) {
                load.start();
                Thread.sleep(warmup * 1000L);
                load.takeInterval();
                long errorsBefore = load.errors();
                Map<String, Sample> before = new LinkedHashMap<>();
                for (Node n : nodes) before.put(n.id(), sample(n, http));
                long t0 = System.nanoTime();
                Thread.sleep(measure * 1000L);
                Histogram h = load.takeInterval();
                double seconds = (System.nanoTime() - t0) / 1e9;
                Map<String, Sample> after = new LinkedHashMap<>();
                for (Node n : nodes) after.put(n.id(), sample(n, http));
                long errors = load.errors() - errorsBefore;
                load.stop(3_000);
                long ops = h.getTotalCount();
                String loadAfter = loadavg();
                out.printf(Locale.ROOT, "  %d puts in %.1f s = %.0f ops/s, p50 %.2f ms, p99 %.2f ms, %d errors; load after %s%n", ops, seconds, ops / seconds,
                        h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0, errors, loadAfter);
                out.printf(Locale.ROOT, "  %-4s %-28s %9s %9s %8s %8s %8s %8s %8s %9s%n", "node", "roles", "cpu us/op", "loop", "exec", "other", "jit", "gc+vm", "cores", "msgs/op");
                List<String> rows = new ArrayList<>();
                for (Node n : nodes) {
                    Sample a = before.get(n.id()), b = after.get(n.id());
                    Map<String, Double> usPerOp = new TreeMap<>();
                    double total = 0;
                    for (String g : List.of("loop", "exec", "other", "jit", "gc")) {
                        double us = (b.ticks().getOrDefault(g, 0L) - a.ticks().getOrDefault(g, 0L)) * 1e6 / CLOCK_TICKS / Math.max(1, ops);
                        usPerOp.put(g, us);
                        total += us;
                    }
                    double cores = total * ops / 1e6 / seconds;
                    double msgs = (b.framesSent() - a.framesSent()) / (double) Math.max(1, ops);
                    String who = n.id() + (n.id().equals(leader) ? "*" : "");
                    out.printf(Locale.ROOT, "  %-4s %-28s %9.1f %9.1f %8.1f %8.1f %8.1f %8.1f %8.2f %9.3f%n", who, n.roles(), total, usPerOp.get("loop"), usPerOp.get("exec"),
                            usPerOp.get("other"), usPerOp.get("jit"), usPerOp.get("gc"), cores, msgs);
                    rows.add(String.format(Locale.ROOT, "%s,%s,%s,%b,%d,%.0f,%.3f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.3f,%.3f,%d,%s", label, n.id(), n.roles(), n.id().equals(leader), ops,
                            ops / seconds, h.getValueAtPercentile(50) / 1000.0, total, usPerOp.get("loop"), usPerOp.get("exec"), usPerOp.get("other"), usPerOp.get("jit"),
                            usPerOp.get("gc"), cores, msgs, errors, loadAfter.split(" ")[0]));
                }
                if (csv != null) {
                    if (!Files.exists(csv)) {
                        Files.writeString(csv, "label,node,roles,leader,ops,ops_per_s,p50_ms,cpu_us_per_op,loop_us_per_op,exec_us_per_op,other_us_per_op,jit_us_per_op,gc_us_per_op,cores,msgs_sent_per_op,errors,load1\n");
                    }
                    Files.write(csv, rows, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
                }
            }
        }
    }

    /** CPU ticks of every thread of the member's process, by group, and its frames sent to other members. */
    private static Sample sample(Node n, HttpClient http) throws IOException, InterruptedException {
        Map<String, Long> ticks = new TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc", Long.toString(n.pid()), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String stat, comm;
                try {
                    stat = Files.readString(task.resolve("stat"));
                    comm = Files.readString(task.resolve("comm")).strip();
                } catch (IOException e) {
                    continue; // the thread ended between the listing and the read
                }
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                long t = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15 of stat)
                ticks.merge(group(comm), t, Long::sum);
            }
        }
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + n.metricsPort() + "/metrics")).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        long frames = 0;
        for (String line : r.body().split("\n")) {
            if (line.startsWith("tandem_transport_frames_sent_total")) frames += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
        return new Sample(ticks, frames);
    }

    static String group(String comm) {
        if (comm.startsWith("tandem-loop")) return "loop";
        if (comm.startsWith("tandem-exec")) return "exec";
        if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) return "jit";
        if (comm.startsWith("GC ") || comm.startsWith("G1 ") || comm.equals("VM Thread") || comm.startsWith("VM Periodic")) return "gc";
        return "other";
    }

    private static Map<String, String> keyValues(Path file) throws IOException {
        Map<String, String> kv = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file)) {
            String l = line.strip();
            int eq = l.indexOf('=');
            if (l.isEmpty() || l.startsWith("#") || eq < 0) continue;
            kv.put(l.substring(0, eq).strip(), l.substring(eq + 1).strip());
        }
        return kv;
    }

    private static Map<String, String> pairs(String text) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String p : text.split(",")) {
            int eq = p.indexOf('=');
            m.put(p.substring(0, eq).strip(), p.substring(eq + 1).strip());
        }
        return m;
    }

    private static String loadavg() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
