package io.tandem.engine;

import io.tandem.codec.MessageRegistry;
import java.util.List;

/**
 * A replication protocol: how to build its engine for one node and which message types it puts on
 * the wire. Implementations live in the protocols module, one package each; users pick one with
 * {@code Protocols.raft()} and friends.
 */
public interface Protocol {
    /** Short stable name used in flags, metric tags and data directories ("raft", "multipaxos"). */
    String name();

    Engine createEngine(NodeId self, List<NodeId> members);

    /** Registers every {@link ProtocolMessage} type of this protocol; unregistered types never cross the wire. */
    void registerMessages(MessageRegistry registry);
}
