package io.tandem.peers.driver;

import java.util.concurrent.CompletableFuture;

/** A client of one system under test. */
public interface PeerClient extends AutoCloseable {

    /**
     * Replicates {@code key -> value}. The future completes normally when the system acknowledges the put
     * as committed (by its own client API: the same acknowledgement its users get), exceptionally when it
     * fails or times out; the adapter finds the leader and follows leader changes itself. The arrays are
     * the caller's to reuse once this method returns, so an adapter that sends later must copy them. The
     * future's value is not read: an adapter may hand out its client's own future as it is (no stage that only
     * drops the value: the load JVM's CPU counts in CPU per put).
     */
    CompletableFuture<?> put(byte[] key, byte[] value);

    @Override
    void close() throws Exception;
}
