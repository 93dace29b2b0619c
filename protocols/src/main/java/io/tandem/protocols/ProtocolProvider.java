package io.tandem.protocols;

import io.tandem.engine.Protocol;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Protocols that come from elsewhere than this module, found by {@link Protocols#byName} through
 * {@link java.util.ServiceLoader} (a {@code META-INF/services/io.tandem.protocols.ProtocolProvider}
 * file on the classpath). Tests use it to offer deliberately broken engines by name to a test JVM, or
 * to a server JVM a test starts with the test classes on its classpath, while a production
 * classpath knows only the protocols Tandem ships.
 */
public interface ProtocolProvider {
    /** Protocol factories by name; a name Tandem already ships is refused. */
    Map<String, Supplier<Protocol>> protocols();
}
