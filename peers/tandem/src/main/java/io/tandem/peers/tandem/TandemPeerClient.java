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

    /** The client's own future (issue 25: no stage that only drops the previous value; the driver reads no value). */
    @Override
    public CompletableFuture<?> put(byte[] key, byte[] value) {
        return client.putAsync(key, value);
    }

    @Override
    public void close() {
        client.close();
    }
}
