package io.tandem.transport;

/** Builds a node's {@link Transport}; what users pass to the node builder ({@code TcpTransport.defaults()}). */
@FunctionalInterface
public interface TransportFactory {
    Transport create(TransportSetup setup);
}
