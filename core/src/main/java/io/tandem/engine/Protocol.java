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

    /**
     * How clients should reach this protocol's members: follow the leader (the default), several
     * members at once with the first reply winning, any entry member, or all of them. The KV
     * client, the simulator's clients and the Jepsen client all route by it.
     */
    default io.tandem.routing.RoutingPolicy routing() {
        return io.tandem.routing.RoutingPolicy.leader();
    }

    /** Registers every {@link ProtocolMessage} type of this protocol; unregistered types never cross the wire. */
    void registerMessages(MessageRegistry registry);
}
