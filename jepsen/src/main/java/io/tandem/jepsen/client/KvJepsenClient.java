package io.tandem.jepsen.client;

import io.tandem.jepsen.generator.Completion;
import io.tandem.jepsen.generator.Invocation;
import io.tandem.jepsen.generator.JepsenClient;
import io.tandem.jepsen.workload.Workload;
import io.tandem.kv.client.KvClientConfig;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.protocols.Protocols;
import io.tandem.routing.RoutingPolicy;
import io.tandem.transport.Endpoint;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A Jepsen client over the real {@link TandemKvClient}: one per process, configured with only its own
 * node's client address, as Jepsen binds a process to one node. The KV client routes by the
 * protocol's {@link RoutingPolicy} (core's, the one the simulator's clients follow): it follows the
 * node's redirects (adding the members it learns of), so a process bound to a follower still reaches
 * the leader, and a node that serves a request itself keeps serving that process.
 */
public final class KvJepsenClient implements JepsenClient {
    private final TandemKvClient kv;
    private final Workload workload;

    private KvJepsenClient(TandemKvClient kv, Workload workload) {
        this.kv = kv;
        this.workload = workload;
    }

    @Override
    public CompletableFuture<Completion> invoke(Invocation invocation) {
        return workload.invoke(kv, invocation);
    }

    @Override
    public void close() {
        kv.close();
    }

    /**
     * Opens clients for the nodes at {@code nodes} (node {@code i} at index {@code i - 1}). The KV
     * client's own request timeout stays below the interpreter's operation timeout, so the client
     * reports its typed error (which says whether a write may have been applied) before the process
     * times out.
     */
    public static JepsenClient.Factory factory(List<Endpoint> nodes, Workload workload, Duration opTimeout, RoutingPolicy routing) {
        return factory(nodes, workload, opTimeout, routing, io.tandem.kv.client.KvClientSecurity.NONE);
    }

    /** The same, authenticating as {@code security} says (TLS, client certificate, token). */
    public static JepsenClient.Factory factory(List<Endpoint> nodes, Workload workload, Duration opTimeout, RoutingPolicy routing,
                                               io.tandem.kv.client.KvClientSecurity security) {
        Duration request = opTimeout.minusMillis(Math.min(1000, opTimeout.toMillis() / 5));
        Duration attempt = Duration.ofMillis(Math.max(200, Math.min(1500, request.toMillis() / 3)));
        return (process, node) -> new KvJepsenClient(TandemKvClient.connect(KvClientConfig.of(List.of(nodes.get(node - 1)))
                .withRequestTimeout(request).withAttemptTimeout(attempt).withConnectTimeout(Duration.ofMillis(500))
                .withMaxInFlight(4).withRouting(routing).withSecurity(security)), workload);
    }

    /** The routing policy of the protocol the servers run, or leader-following for a name this build does not know. */
    public static RoutingPolicy routingOf(String protocol) {
        try {
            return Protocols.byName(protocol).routing();
        } catch (IllegalArgumentException e) {
            return RoutingPolicy.leader();
        }
    }
}
