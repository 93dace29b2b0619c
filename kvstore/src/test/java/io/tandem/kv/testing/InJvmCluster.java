package io.tandem.kv.testing;

import io.tandem.kv.client.KvClientConfig;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.net.NodeStatus;
import io.tandem.kv.server.KvServer;
import io.tandem.kv.server.ServerConfig;
import io.tandem.testing.Await;
import io.tandem.transport.Endpoint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Servers of one cluster running in this JVM over real loopback TCP, with short election timeouts
 * and no fsync, for tests of the server, the client and the CLI that need no separate processes.
 */
public final class InJvmCluster implements AutoCloseable {
    private final Path dir;
    private final int size;
    private final Map<String, String> extra;
    private final List<Integer> peerPorts;
    private final List<Integer> clientPorts;
    private final List<Integer> metricsPorts;
    private final KvServer[] servers;

    public InJvmCluster(Path dir, int size, Map<String, String> extraSettings) {
        this.dir = dir;
        this.size = size;
        this.extra = Map.copyOf(extraSettings);
        List<Integer> ports = FreePorts.take(3 * size);
        this.peerPorts = ports.subList(0, size);
        this.clientPorts = ports.subList(size, 2 * size);
        this.metricsPorts = ports.subList(2 * size, 3 * size);
        this.servers = new KvServer[size];
    }

    public static InJvmCluster start(Path dir, int size, Map<String, String> extraSettings) {
        return start(dir, size, extraSettings, KvServer.DEFAULT_SECURITY_FILE_CHECK);
    }

    /** As {@link #start(Path, int, Map)}, with every server looking for changed TLS and token files at {@code securityFileCheck}. */
    public static InJvmCluster start(Path dir, int size, Map<String, String> extraSettings, java.time.Duration securityFileCheck) {
        InJvmCluster c = new InJvmCluster(dir, size, extraSettings);
        c.securityFileCheck = securityFileCheck;
        try {
            for (int i = 0; i < size; i++) c.start(i);
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    private java.time.Duration securityFileCheck = KvServer.DEFAULT_SECURITY_FILE_CHECK;

    public ServerConfig config(int i) {
        List<String> members = new ArrayList<>(), clients = new ArrayList<>();
        for (int j = 0; j < size; j++) {
            members.add(id(j) + "=127.0.0.1:" + peerPorts.get(j));
            clients.add(id(j) + "=127.0.0.1:" + clientPorts.get(j));
        }
        Map<String, String> flags = new LinkedHashMap<>();
        flags.put("id", id(i));
        flags.put("members", String.join(",", members));
        flags.put("client-members", String.join(",", clients));
        flags.put("data-dir", dir.resolve(id(i)).toString());
        flags.put("cluster", "test");
        flags.put("fsync", "false");
        flags.put("metrics-port", Integer.toString(metricsPorts.get(i)));
        String protocol = extra.getOrDefault("protocol", "raft");
        if (io.tandem.protocols.Protocols.byName(protocol).hostSettings().contains(io.tandem.engine.HostSettings.Kind.ELECTION_TIMEOUT)) {
            flags.put("election-timeout-min", "300ms"); // quicker failovers than the 1-2 s default
            flags.put("election-timeout-max", "600ms");
        }
        flags.put("request-timeout", "5s");
        flags.putAll(extra);
        return ServerConfig.load(null, flags);
    }

    public KvServer start(int i) {
        if (servers[i] != null) throw new IllegalStateException(id(i) + " runs already");
        servers[i] = KvServer.start(config(i), securityFileCheck);
        return servers[i];
    }

    public void stop(int i) {
        KvServer s = servers[i];
        servers[i] = null;
        if (s != null) s.close();
    }

    public KvServer server(int i) {
        return Objects.requireNonNull(servers[i], () -> id(i) + " is not running");
    }

    /** Whether server {@code i} runs now. */
    public boolean running(int i) {
        return servers[i] != null;
    }

    public static String id(int i) {
        return "n" + (i + 1);
    }

    public int size() {
        return size;
    }

    public Endpoint clientAddress(int i) {
        return new Endpoint("127.0.0.1", clientPorts.get(i));
    }

    public int metricsPort(int i) {
        return metricsPorts.get(i);
    }

    public List<Endpoint> clientAddresses() {
        List<Endpoint> out = new ArrayList<>();
        for (int i = 0; i < size; i++) out.add(clientAddress(i));
        return out;
    }

    public KvClientConfig clientConfig() {
        return KvClientConfig.of(clientAddresses()).withRequestTimeout(Duration.ofSeconds(10)).withAttemptTimeout(Duration.ofSeconds(1));
    }

    public TandemKvClient client() {
        return TandemKvClient.connect(clientConfig());
    }

    /** The index of the running server that reports itself leader, if exactly one does. */
    public Optional<Integer> leader() {
        Integer found = null;
        for (int i = 0; i < size; i++) {
            if (servers[i] != null && servers[i].status().isLeader()) {
                if (found != null) return Optional.empty();
                found = i;
            }
        }
        return Optional.ofNullable(found);
    }

    /** Waits for a single leader that every running server agrees on, and returns its index. */
    public int awaitLeader(Duration timeout) {
        int[] found = new int[1];
        Await.until(timeout, () -> {
            Optional<Integer> l = leader();
            if (l.isEmpty()) return false;
            String name = id(l.get());
            for (KvServer s : servers) {
                if (s == null) continue;
                NodeStatus st = s.status();
                if (!name.equals(st.leader())) return false;
            }
            found[0] = l.get();
            return true;
        }, () -> "one leader all agree on; status: " + statuses());
        return found[0];
    }

    public List<String> statuses() {
        List<String> out = new ArrayList<>();
        for (KvServer s : servers) out.add(s == null ? "down" : s.status().role() + "/" + s.status().leader() + "/e" + s.status().epoch());
        return out;
    }

    @Override
    public void close() {
        for (int i = 0; i < size; i++) stop(i);
    }
}
