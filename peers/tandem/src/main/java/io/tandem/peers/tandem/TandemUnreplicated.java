package io.tandem.peers.tandem;

import io.tandem.peers.driver.ClusterLayout;

/**
 * {@code tandem-unreplicated}: the KV server with the {@code unreplicated} engine, one member and a durable log,
 * no replication: the benchmark's upper bound on the same server, storage and transport. Runs with
 * {@code --replicas 1} only.
 */
public final class TandemUnreplicated extends TandemSystem {
    public TandemUnreplicated() {
        super("tandem-unreplicated", "unreplicated");
    }

    @Override
    void checkLayout(ClusterLayout layout) {
        if (layout.replicas() != 1) {
            throw new IllegalArgumentException(name() + " runs exactly one replica (the unreplicated engine replicates nothing);"
                    + " start it with --replicas 1, not " + layout.replicas());
        }
    }
}
