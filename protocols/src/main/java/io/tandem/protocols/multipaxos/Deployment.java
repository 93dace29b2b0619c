package io.tandem.protocols.multipaxos;

import io.tandem.engine.NodeId;
import java.util.List;

/**
 * Where the roles run (spec §6.4 deployment profiles). Only the classic profile exists today; the
 * compartmentalized one will be a second record listing the nodes of each role (leaders, proxy
 * leaders, an acceptor grid, replicas, batchers, unbatchers), resolved by {@link #topology} in the
 * same way, with no change to the roles that already exist.
 */
public sealed interface Deployment {
    /** Every member runs one proposer, one acceptor, one replica and one frontend on its loop. */
    record Classic() implements Deployment {
        @Override
        public Topology topology(List<NodeId> members, QuorumLayout quorums) {
            return Topology.classic(members, quorums);
        }
    }

    Deployment CLASSIC = new Classic();

    Topology topology(List<NodeId> members, QuorumLayout quorums);
}
