package io.tandem.peers.driver;

/**
 * Where the replicas of one cluster listen: all on 127.0.0.1, replica {@code i} owning the port block
 * {@code [basePort + i * PORTS_PER_REPLICA, basePort + (i + 1) * PORTS_PER_REPLICA)}. A system that needs
 * several ports per replica (peer traffic, client traffic, Aeron's channels) takes them from its block
 * with {@link #port(int, int)}, so the harness can give each system a range without knowing its needs.
 */
public record ClusterLayout(String host, int replicas, int basePort) {
    public static final int PORTS_PER_REPLICA = 20;

    public ClusterLayout {
        if (host == null || host.isBlank()) throw new IllegalArgumentException("host must not be blank");
        if (replicas < 1) throw new IllegalArgumentException("replicas must be >= 1, got " + replicas);
        if (basePort < 1024 || basePort + replicas * PORTS_PER_REPLICA > 65535) {
            throw new IllegalArgumentException("base port " + basePort + " leaves no room for " + replicas + " replicas x "
                    + PORTS_PER_REPLICA + " ports below 65536");
        }
    }

    /** Port number {@code offset} (0-based, below {@link #PORTS_PER_REPLICA}) of replica {@code replica} (0-based). */
    public int port(int replica, int offset) {
        if (replica < 0 || replica >= replicas) throw new IllegalArgumentException("replica " + replica + " not in [0, " + replicas + ")");
        if (offset < 0 || offset >= PORTS_PER_REPLICA) throw new IllegalArgumentException("port offset " + offset + " not in [0, " + PORTS_PER_REPLICA + ")");
        return basePort + replica * PORTS_PER_REPLICA + offset;
    }
}
