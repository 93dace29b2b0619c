package io.tandem.peers.driver;

import java.util.Map;

/**
 * How the load driver connects.
 *
 * @param layout      the replicas' ports
 * @param concurrency the number of closed-loop clients that will share the connection (each has at most one put
 *                    outstanding); an adapter may size its connection pool or sessions by it
 * @param options     system-specific settings from {@code --opt key=value}
 */
public record ClientConfig(ClusterLayout layout, int concurrency, Map<String, String> options) {
    public ClientConfig {
        if (concurrency < 1) throw new IllegalArgumentException("concurrency must be >= 1, got " + concurrency);
        options = Map.copyOf(options);
    }

    public String option(String key, String fallback) {
        return options.getOrDefault(key, fallback);
    }
}
