package io.tandem.peers.tandem;

import io.tandem.kv.client.TandemKvClient;
import io.tandem.peers.driver.PeerClient;
import java.util.concurrent.CompletableFuture;

/**
 * Puts through the real KV client: it finds the leader (redirects with the leader's client address), retries a
 * write under its session so it applies once, and fails it with a typed timeout after the request timeout. The
 * key and value are encoded into the command before {@code putAsync} returns, so the caller may reuse them.
 */
final class TandemPeerClient implements PeerClient {
    private final TandemKvClient client;

    TandemPeerClient(TandemKvClient client) {
        this.client = client;
    }

    /**
     * The client's own future, without a stage that only turns its value into null (issue 25: the load JVM's CPU
     * counts in CPU per put). The driver never reads the value of a put's future, only whether and how it failed, and
     * the put is complete (result decoded, errors raised) when the future is; the cast is unchecked for that reason.
     */
    @Override
    @SuppressWarnings("unchecked")
    public CompletableFuture<Void> put(byte[] key, byte[] value) {
        return (CompletableFuture<Void>) (CompletableFuture<?>) client.putAsync(key, value);
    }

    @Override
    public void close() {
        client.close();
    }
}
