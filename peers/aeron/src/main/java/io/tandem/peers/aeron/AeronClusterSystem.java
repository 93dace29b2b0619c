package io.tandem.peers.aeron;

import io.tandem.peers.driver.ClientConfig;
import io.tandem.peers.driver.PeerClient;
import io.tandem.peers.driver.PeerSystem;
import io.tandem.peers.driver.Replica;
import io.tandem.peers.driver.ReplicaConfig;

/**
 * Aeron Cluster ({@code io.aeron:aeron-all}) as a benchmark peer: a map {@link KvClusteredService} on each member,
 * clients connected with {@code AeronCluster}. Options (replica and client): {@code idle} ({@code backoff} or
 * {@code sleep}), {@code idle-max-park-us} (1000); replica: {@code leader-heartbeat-timeout-ms} (10000, Aeron's
 * default); client: {@code timeout-ms} (10000).
 */
public final class AeronClusterSystem implements PeerSystem {

    @Override
    public String name() {
        return "aeron-cluster";
    }

    @Override
    public Replica startReplica(ReplicaConfig config) {
        return new AeronReplica(config);
    }

    @Override
    public PeerClient connect(ClientConfig config) {
        return new AeronClusterClient(config);
    }
}
