package io.tandem.peers.driver;

/**
 * One replicated system under test (Tandem with an engine, Apache Ratis, jgroups-raft, SOFAJRaft, Aeron
 * Cluster, ...). Each adapter module registers its implementation in
 * {@code META-INF/services/io.tandem.peers.driver.PeerSystem} and ships in a jar of its own, so
 * {@link PeerMain} finds it by {@link #name()} and every system runs with its own classpath.
 *
 * <p>The benchmark workload is the same for every system: a replicated map of byte-array keys to
 * byte-array values, written by puts that complete when the system acknowledges them as committed
 * (and, where the system separates the two, applied).
 */
public interface PeerSystem {

    /** The name the harness uses for this system, e.g. {@code ratis}; lower case, no spaces. */
    String name();

    /**
     * Starts one replica in this JVM. Returns once the replica runs (it need not have found a leader
     * yet); the harness waits for a leader by reading {@link Replica#role()} through the role file.
     */
    Replica startReplica(ReplicaConfig config) throws Exception;

    /**
     * Connects a client to the cluster. One client object serves all closed-loop clients of the load
     * driver; {@link PeerClient#put} must be safe to call from any thread.
     */
    PeerClient connect(ClientConfig config) throws Exception;
}
