package io.tandem.peers.sofajraft;

import io.tandem.peers.driver.ClientConfig;
import io.tandem.peers.driver.PeerClient;
import io.tandem.peers.driver.PeerSystem;
import io.tandem.peers.driver.Replica;
import io.tandem.peers.driver.ReplicaConfig;

/**
 * SOFAJRaft ({@code com.alipay.sofa:jraft-core}) as a benchmark peer: a map state machine on a jraft node per
 * replica, clients talking to the leader over jraft's Bolt RPC. Options: {@code election-timeout-ms} (1000),
 * {@code snapshot-interval-secs} (3600) for replicas; {@code timeout-ms} (10000) for the client.
 */
public final class SofaJraftSystem implements PeerSystem {

    @Override
    public String name() {
        return "sofajraft";
    }

    @Override
    public Replica startReplica(ReplicaConfig config) throws Exception {
        return new SofaJraftReplica(config);
    }

    @Override
    public PeerClient connect(ClientConfig config) throws Exception {
        return new SofaJraftClient(config);
    }
}
