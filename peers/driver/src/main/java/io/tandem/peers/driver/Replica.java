package io.tandem.peers.driver;

/** A running replica of some {@link PeerSystem}. */
public interface Replica extends AutoCloseable {

    /** The replica's role now; cheap, called every 100 ms by the replica host. */
    Role role();

    /** Stops the replica and releases its ports and files; called once, from the shutdown hook. */
    @Override
    void close() throws Exception;
}
