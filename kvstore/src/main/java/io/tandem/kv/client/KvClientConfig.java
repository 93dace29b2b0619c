package io.tandem.kv.client;

import io.tandem.engine.ReadPolicy;
import io.tandem.kv.KvLimits;
import io.tandem.transport.Endpoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import io.tandem.routing.RoutingPolicy;

/**
 * Settings of a {@link TandemKvClient}, with validated defaults; change them with the withers.
 *
 * @param members        the client addresses of the cluster's members (any subset that includes a
 *                       reachable member; the client follows leader redirects to the others)
 * @param requestTimeout how long one operation may take, retries included; then {@link KvTimeoutException}
 * @param attemptTimeout how long one try at one member may take before the client tries again (the
 *                       same write is retried under the same session, so it still applies once)
 *                       (both timeouts are checked by one sweep every tenth of the shorter one,
 *                       1-50 ms: they fire up to that much late, never early)
 * @param connectTimeout one TCP connection attempt
 * @param maxInFlight    operations outstanding at once; callers wait for a free slot (back-pressure)
 * @param readPolicy     the read policy of gets and scans unless one is given per call
 * @param limits         the KV size limits requests are checked against before they are sent
 * @param backoffMin     first pause before retrying where no leader is known; doubles up to {@code backoffMax}
 * @param routing        which members each attempt goes to (core's client routing policy, shared with the simulator)
 * @param security       TLS, client certificate and token ({@link KvClientSecurity#NONE}: plaintext, anonymous)
 */
public record KvClientConfig(List<Endpoint> members, Duration requestTimeout, Duration attemptTimeout, Duration connectTimeout,
                             int maxInFlight, ReadPolicy readPolicy, KvLimits limits, Duration backoffMin, Duration backoffMax,
                             RoutingPolicy routing, KvClientSecurity security) {
    public KvClientConfig {
        members = List.copyOf(members);
        if (members.isEmpty()) throw new IllegalArgumentException("a client needs at least one member address");
        positive("requestTimeout", requestTimeout);
        positive("attemptTimeout", attemptTimeout);
        positive("connectTimeout", connectTimeout);
        positive("backoffMin", backoffMin);
        positive("backoffMax", backoffMax);
        if (backoffMax.compareTo(backoffMin) < 0) throw new IllegalArgumentException("backoffMax must be at least backoffMin");
        if (maxInFlight < 1) throw new IllegalArgumentException("maxInFlight must be >= 1, was " + maxInFlight);
        Objects.requireNonNull(readPolicy, "readPolicy");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(routing, "routing");
        Objects.requireNonNull(security, "security");
    }

    /** Defaults for the given member addresses ({@code host:port}): 10 s per request, 3 s per attempt, 1024 in flight, linearizable reads. */
    public static KvClientConfig of(String... members) {
        List<Endpoint> list = new ArrayList<>();
        for (String m : members) list.add(Endpoint.parse(m.strip()));
        return of(list);
    }

    public static KvClientConfig of(List<Endpoint> members) {
        return new KvClientConfig(members, Duration.ofSeconds(10), Duration.ofSeconds(3), Duration.ofSeconds(1), 1024,
                ReadPolicy.LINEARIZABLE, KvLimits.DEFAULTS, Duration.ofMillis(10), Duration.ofMillis(250), RoutingPolicy.leader(), KvClientSecurity.NONE);
    }

    public KvClientConfig withRequestTimeout(Duration d) {
        return new KvClientConfig(members, d, attemptTimeout.compareTo(d) > 0 ? d : attemptTimeout, connectTimeout, maxInFlight, readPolicy, limits, backoffMin, backoffMax, routing, security);
    }

    public KvClientConfig withAttemptTimeout(Duration d) {
        return new KvClientConfig(members, requestTimeout, d, connectTimeout, maxInFlight, readPolicy, limits, backoffMin, backoffMax, routing, security);
    }

    public KvClientConfig withConnectTimeout(Duration d) {
        return new KvClientConfig(members, requestTimeout, attemptTimeout, d, maxInFlight, readPolicy, limits, backoffMin, backoffMax, routing, security);
    }

    public KvClientConfig withMaxInFlight(int n) {
        return new KvClientConfig(members, requestTimeout, attemptTimeout, connectTimeout, n, readPolicy, limits, backoffMin, backoffMax, routing, security);
    }

    public KvClientConfig withReadPolicy(ReadPolicy p) {
        return new KvClientConfig(members, requestTimeout, attemptTimeout, connectTimeout, maxInFlight, p, limits, backoffMin, backoffMax, routing, security);
    }

    public KvClientConfig withLimits(KvLimits l) {
        return new KvClientConfig(members, requestTimeout, attemptTimeout, connectTimeout, maxInFlight, readPolicy, l, backoffMin, backoffMax, routing, security);
    }

    public KvClientConfig withBackoff(Duration min, Duration max) {
        return new KvClientConfig(members, requestTimeout, attemptTimeout, connectTimeout, maxInFlight, readPolicy, limits, min, max, routing, security);
    }

    /**
     * How the client picks members (default: follow the leader); use the cluster's
     * {@code Protocol.routing()}, e.g. {@code RoutingPolicy.firstReply(2)} for Copilot's two pilots.
     */
    public KvClientConfig withRouting(RoutingPolicy r) {
        return new KvClientConfig(members, requestTimeout, attemptTimeout, connectTimeout, maxInFlight, readPolicy, limits, backoffMin, backoffMax, r, security);
    }

    private static void positive(String name, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be positive, was " + d);
    }

    /** TLS, client certificate and token; see {@link KvClientSecurity}. */
    public KvClientConfig withSecurity(KvClientSecurity s) {
        return new KvClientConfig(members, requestTimeout, attemptTimeout, connectTimeout, maxInFlight, readPolicy, limits, backoffMin, backoffMax, routing, s);
    }
}
