package io.tandem.kv.server;

import io.tandem.transport.tcp.tls.TlsConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The server's security settings (the {@code tls-*}, {@code client-tokens}, {@code anonymous-roles}
 * and client connection-limit keys of {@link ServerConfig}).
 *
 * @param tls                         mutual TLS on the member port and TLS on the client port (a client
 *                                    certificate is asked for, not required); null for plaintext
 * @param clientTokens                file of accepted client tokens; null for none
 * @param anonymousRoles              roles of a client that presents neither a certificate nor a token
 * @param maxClientConnectionsPerSource open client connections from one source address; more are closed
 * @param clientIdleTimeout           a client connection that sends nothing for this long is closed
 *                                    (the TLS handshake must also finish within it)
 */
public record SecurityConfig(TlsConfig tls, Path clientTokens, Set<Role> anonymousRoles, int maxClientConnectionsPerSource, Duration clientIdleTimeout) {
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);
    public static final int DEFAULT_MAX_CONNECTIONS_PER_SOURCE = 256;

    public SecurityConfig {
        anonymousRoles = anonymousRoles.isEmpty() ? EnumSet.noneOf(Role.class) : EnumSet.copyOf(anonymousRoles);
        Objects.requireNonNull(clientIdleTimeout, "clientIdleTimeout");
        if (maxClientConnectionsPerSource < 1) throw new IllegalArgumentException("maxClientConnectionsPerSource must be >= 1");
    }

    /** Plaintext, no tokens, every client may do everything: the local demo's setting. */
    public static SecurityConfig open() {
        return new SecurityConfig(null, null, EnumSet.allOf(Role.class), DEFAULT_MAX_CONNECTIONS_PER_SOURCE, DEFAULT_IDLE_TIMEOUT);
    }

    /** Whether clients must authenticate for anything (some role is withheld from anonymous clients). */
    public boolean authenticationRequired() {
        return !anonymousRoles.containsAll(EnumSet.allOf(Role.class));
    }
}
