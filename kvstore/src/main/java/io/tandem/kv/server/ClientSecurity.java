package io.tandem.kv.server;

import io.netty.handler.ssl.SslContext;
import java.time.Duration;
import java.util.Set;

/**
 * What the client endpoint enforces, resolved from {@link SecurityConfig} when the server starts
 * (files loaded and checked).
 *
 * @param tls            server context (a client certificate is requested, not required), or null for plaintext
 * @param tokens         accepted tokens (may be empty)
 * @param anonymousRoles roles of a connection that has not authenticated
 * @param maxConnectionsPerSource open connections from one source address
 * @param idleTimeout    a connection that sends nothing for this long is closed
 */
record ClientSecurity(SslContext tls, TokenStore tokens, Set<Role> anonymousRoles, int maxConnectionsPerSource, Duration idleTimeout) {
    static ClientSecurity open() {
        SecurityConfig c = SecurityConfig.open();
        return new ClientSecurity(null, TokenStore.empty(), c.anonymousRoles(), c.maxClientConnectionsPerSource(), c.clientIdleTimeout());
    }
}
