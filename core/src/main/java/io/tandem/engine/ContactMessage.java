package io.tandem.engine;

/**
 * A message that may travel between configured nodes that are not connected to each other: a join
 * request from a process that a group removed (or never had) to the group's members, Derecho's
 * bootstrap socket (derecho.md §5.4). Every other message is refused between nodes that a view
 * disconnected. The simulator, the in-JVM transport ({@code LocalTransport}) and the TCP transport
 * (contact connections, open to known member identities only) honour it.
 */
public interface ContactMessage extends ProtocolMessage {}
