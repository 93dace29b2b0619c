package io.tandem.bench.sim;

import io.tandem.kv.server.KvServer;
import io.tandem.kv.server.ServerConfig;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The CPU a KV cluster uses with no load at all (heartbeats, timers, watchdogs, idle loops, GC and JIT
 * of an idle JVM): a cost per second, not per put, which the cost model does not charge. {@code n} real
 * KV servers of {@code protocol} in this JVM (fsync on, in {@code tandem.bench.dir}), a leader elected,
 * then the process CPU and every thread's CPU over {@code seconds} without a client.
 *
 * <pre>java -cp benchmarks.jar io.tandem.bench.sim.IdleCpuProbe raft 3 10</pre>
 */
public final class IdleCpuProbe {
    private IdleCpuProbe() {}

    public static void main(String[] args) throws Exception {
        String protocol = args.length > 0 ? args[0] : "raft";
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("tandem.bench.dir", System.getProperty("java.io.tmpdir"))), "tandem-idle-");
        int[] peer = new int[n];
        int[] client = new int[n];
        for (int i = 0; i < n; i++) {
            peer[i] = freePort();
            client[i] = freePort();
        }
        StringBuilder members = new StringBuilder();
        StringBuilder clients = new StringBuilder();
        for (int i = 0; i < n; i++) {
            members.append(i == 0 ? "" : ",").append("r").append(i).append("=127.0.0.1:").append(peer[i]);
            clients.append(i == 0 ? "" : ",").append("r").append(i).append("=127.0.0.1:").append(client[i]);
        }
        List<KvServer> servers = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                Map<String, String> flags = new LinkedHashMap<>();
                flags.put(ServerConfig.Key.ID.configName(), "r" + i);
                flags.put(ServerConfig.Key.MEMBERS.configName(), members.toString());
                flags.put(ServerConfig.Key.CLIENT_MEMBERS.configName(), clients.toString());
                flags.put(ServerConfig.Key.DATA_DIR.configName(), dir.resolve("r" + i).toString());
                flags.put(ServerConfig.Key.FSYNC.configName(), "true");
                flags.put(ServerConfig.Key.PROTOCOL.configName(), protocol);
                flags.put(ServerConfig.Key.CLUSTER.configName(), "idle");
                servers.add(KvServer.start(ServerConfig.load(null, flags)));
            }
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (servers.stream().noneMatch(s -> "LEADER".equals(s.status().role()))) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("no leader in 60 s");
                Thread.sleep(100);
            }
            Thread.sleep(3_000); // settle: JIT of the start-up, the election's aftermath
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            Map<Long, Long> t0 = cpu(threads);
            long p0 = os.getProcessCpuTime();
            long w0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            long wall = System.nanoTime() - w0;
            long p1 = os.getProcessCpuTime();
            Map<Long, Long> t1 = cpu(threads);
            Map<String, Double> byName = new TreeMap<>();
            double javaThreads = 0;
            for (Map.Entry<Long, Long> e : t1.entrySet()) {
                long d = e.getValue() - t0.getOrDefault(e.getKey(), 0L);
                if (d <= 0) continue;
                ThreadInfo info = threads.getThreadInfo(e.getKey());
                String name = info == null ? "?" : info.getThreadName().replaceAll("[0-9]+", "#");
                byName.merge(name, d * 1000.0 / wall, Double::sum); // ms of CPU per s
                javaThreads += d;
            }
            System.out.printf(Locale.ROOT, "%s, %d nodes, idle %d s, load %s: process CPU %.1f ms/s (%.1f %% of a core), Java threads %.1f ms/s, rest (GC, JIT, VM) %.1f ms/s%n",
                    protocol, n, seconds, Files.readString(Path.of("/proc/loadavg")).trim(), (p1 - p0) * 1000.0 / wall, (p1 - p0) * 100.0 / wall, javaThreads * 1000.0 / wall,
                    ((p1 - p0) - javaThreads) * 1000.0 / wall);
            byName.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(10)
                    .forEach(e -> System.out.printf(Locale.ROOT, "  %-40s %.2f ms/s%n", e.getKey(), e.getValue()));
        } finally {
            for (KvServer s : servers) s.close();
            try (var s = Files.walk(dir)) {
                for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            }
        }
    }

    private static Map<Long, Long> cpu(ThreadMXBean threads) {
        Map<Long, Long> m = new HashMap<>();
        for (long id : threads.getAllThreadIds()) {
            long t = threads.getThreadCpuTime(id);
            if (t >= 0) m.put(id, t);
        }
        return m;
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
