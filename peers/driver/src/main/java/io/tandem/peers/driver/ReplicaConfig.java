package io.tandem.peers.driver;

import java.nio.file.Path;
import java.util.Map;

/**
 * How to run one replica.
 *
 * @param id       this replica's index in the layout, 0-based
 * @param layout   every replica's ports
 * @param dataDir  a directory of this replica's own for logs, snapshots and metadata (exists, may be empty)
 * @param fsync    {@code true}: a put is acknowledged only after a quorum has forced it to disk; {@code false}:
 *                 the system's no-fsync mode (writes to the page cache, or an in-memory log where the system
 *                 has no such mode; the adapter's README says which)
 * @param options  system-specific settings from {@code --opt key=value}, documented by each adapter
 */
public record ReplicaConfig(int id, ClusterLayout layout, Path dataDir, boolean fsync, Map<String, String> options) {
    public ReplicaConfig {
        if (id < 0 || id >= layout.replicas()) throw new IllegalArgumentException("replica id " + id + " not in [0, " + layout.replicas() + ")");
        options = Map.copyOf(options);
    }

    /** An option's value, or {@code fallback} when it was not given. */
    public String option(String key, String fallback) {
        return options.getOrDefault(key, fallback);
    }
}
