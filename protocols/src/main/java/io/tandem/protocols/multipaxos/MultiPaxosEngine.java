package io.tandem.protocols.multipaxos;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToAcceptor;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToFrontend;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToLeader;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToProxy;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToUnbatcher;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToReplica;
import io.tandem.roles.Role;
import io.tandem.roles.Role.Duty;
import io.tandem.roles.RoleHost;
import io.tandem.sim.Inspectable;
import io.tandem.storage.StorageEvent;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One node of a MultiPaxos group: the roles the deployment puts on this node ({@link Topology}), on
 * the platform's {@link RoleHost}. It owns no protocol logic and no routing of its own: the host
 * routes each message to every co-located role whose inbox it belongs to ({@link ToLeader},
 * {@link ToAcceptor}, {@link ToReplica}, {@link ToFrontend}, {@link ToProxy}; a heartbeat belongs to four), queues a
 * role's message to its own node behind the current event (so co-location changes where messages
 * travel, never the protocol), keeps each role's timers apart, stores the acceptor's and the
 * proposer's meta records in their own namespaces, and gives the journal to the acceptor, execution
 * and snapshots to the replica and client requests to the frontend. This class adds what only
 * MultiPaxos knows: the node's neutral status and the invariants' read-only views.
 */
public final class MultiPaxosEngine implements Engine, Inspectable {
    private final NodeId self;
    private final MultiPaxosConfig config;
    private final Topology topology;
    private final RoleHost host;
    private final RoleEngines.AcceptorRole acceptor;
    private final RoleEngines.ReplicaRole replica;
    private final RoleEngines.LeaderRole leader;
    private final RoleEngines.ProxyRole proxy;
    private final RoleEngines.FrontendRole frontend;
    private final RoleEngines.UnbatcherRole unbatcher;

    /**
     * @param recordHistory keep the rings of recent votes and executions the simulator's invariants read
     * @param roles         makes the leader and acceptor roles
     */
    MultiPaxosEngine(NodeId self, List<NodeId> members, MultiPaxosConfig config, boolean recordHistory, Roles roles) {
        this.self = self;
        this.config = config;
        this.topology = Topology.of(config.deployment().resolve(members), config.acceptorQuorums());
        RoleHost.Builder b = RoleHost.builder();
        // Start order is recovery order: votes first, then execution, then the proposer (which learns from both by message).
        acceptor = topology.acceptors().contains(self) ? new RoleEngines.AcceptorRole(topology, config, rc -> roles.acceptor(rc, recordHistory)) : null;
        replica = topology.replicas().contains(self) ? new RoleEngines.ReplicaRole(topology, config, rc -> roles.replica(rc, recordHistory)) : null;
        leader = topology.leaders().contains(self) ? new RoleEngines.LeaderRole(topology, config, roles::leader) : null;
        proxy = topology.proxies().contains(self) ? new RoleEngines.ProxyRole(topology, config, roles::proxy) : null;
        unbatcher = topology.unbatchers().contains(self) ? new RoleEngines.UnbatcherRole(topology, config, roles::unbatcher) : null;
        boolean batcher = topology.batchers().contains(self);
        frontend = batcher || topology.frontends().contains(self) ? new RoleEngines.FrontendRole(topology, config, rc -> roles.frontend(rc, batcher)) : null;
        if (acceptor != null) b.role(Role.of("acceptor", acceptor, ToAcceptor.class).owning(Duty.LOG).withMetaNamespace(Acceptor.META_NAMESPACE));
        if (replica != null) b.role(Role.of("replica", replica, ToReplica.class).owning(Duty.EXECUTION).withMetaNamespace("multipaxos.replica."));
        if (leader != null) b.role(Role.of("leader", leader, ToLeader.class).withMetaNamespace(Leader.META_NAMESPACE));
        if (proxy != null) b.role(Role.of("proxy", proxy, ToProxy.class).withMetaNamespace("multipaxos.proxy."));
        if (unbatcher != null) b.role(Role.of("unbatcher", unbatcher, ToUnbatcher.class).withMetaNamespace("multipaxos.unbatcher."));
        if (frontend != null) {
            String name = batcher ? "batcher" : "frontend";
            b.role(Role.of(name, frontend, ToFrontend.class).owning(Duty.CLIENTS).withMetaNamespace("multipaxos." + name + "."));
        }
        this.host = b.clientsAt(topology.clientMembers()).build();
    }

    @Override
    public void start(EngineContext ctx) {
        host.start(ctx);
    }

    @Override
    public void onMessage(NodeId from, ProtocolMessage message) {
        host.onMessage(from, message);
    }

    @Override
    public void onTimer(TimerKey key) {
        host.onTimer(key);
    }

    @Override
    public void onClientRequest(ClientRequest request) {
        host.onClientRequest(request);
    }

    @Override
    public void onStorageEvent(StorageEvent event) {
        host.onStorageEvent(event);
    }

    @Override
    public void onApplied(long appliedIndex) {
        host.onApplied(appliedIndex);
    }

    @Override
    public void onExecuted(io.tandem.engine.Committed entry, byte[] result) {
        host.onExecuted(entry, result);
    }

    @Override
    public void stop() {
        host.stop();
    }

    // ------------------------------------------------------------------------------------------
    // Read-only views (tests and simulator invariants)
    // ------------------------------------------------------------------------------------------

    NodeId self() {
        return self;
    }

    Topology topology() {
        return topology;
    }

    Leader leader() {
        return leader == null ? null : leader.role;
    }

    Acceptor acceptor() {
        return acceptor == null ? null : acceptor.role;
    }

    Replica replica() {
        return replica == null ? null : replica.role;
    }

    Frontend frontend() {
        return frontend == null ? null : frontend.role;
    }

    ProxyLeader proxy() {
        return proxy == null ? null : proxy.role;
    }

    MultiPaxosConfig config() {
        return config;
    }

    /**
     * The neutral status: the proposer's state gives the role (LEADING is the leader, PREPARING a
     * candidate, FOLLOWER a follower; a node without a proposer in its deployment is a replica), the
     * highest ballot round it knows is the epoch, acceptors are the voters and replicas that are not
     * acceptors the learners, and the leader reports each replica's distance from the chosen prefix.
     */
    @Override
    public EngineStatus status() {
        Leader leader = leader();
        Acceptor acceptor = acceptor();
        Replica replica = replica();
        EngineStatus.Role role = EngineStatus.Role.REPLICA;
        NodeId leaderHint = replica == null ? null : replica.leaderHint();
        Ballot epoch = acceptor == null ? Ballot.ZERO : acceptor.promised();
        // A node with neither a replica nor a proposer (an acceptor apart from them) knows the leader
        // as the owner of the ballot it last promised.
        if (leaderHint == null && leader == null) leaderHint = topology.leaderOf(epoch);
        long commit = replica == null ? 0 : replica.knownChosenThrough();
        Map<NodeId, Long> lag = new TreeMap<>();
        if (leader != null) {
            role = switch (leader.status()) {
                case LEADING -> EngineStatus.Role.LEADER;
                case PREPARING -> EngineStatus.Role.CANDIDATE;
                case FOLLOWER -> EngineStatus.Role.FOLLOWER;
            };
            leaderHint = leader.status() == Leader.Status.LEADING ? self : leader.activeLeader() != null ? leader.activeLeader() : leaderHint;
            epoch = Ballot.max(epoch, Ballot.max(leader.ballot(), leader.highestSeen()));
            commit = Math.max(commit, leader.chosenWatermark());
            if (leader.status() == Leader.Status.LEADING) {
                long chosen = commit;
                leader.replicaExecuted().forEach((r, executed) -> {
                    if (!r.equals(self)) lag.put(r, Math.max(0, chosen - executed));
                });
            }
        }
        List<NodeId> learners = topology.replicas().stream().filter(r -> !topology.acceptors().contains(r)).toList();
        long applied = replica == null ? 0 : replica.executed();
        return new EngineStatus(role, leaderHint, epoch.round(), topology.acceptors(), learners, commit, applied, lag);
    }

    @Override
    public String inspect() {
        StringBuilder s = new StringBuilder(self.value());
        if (leader() != null) s.append(" | ").append(leader().describe());
        if (acceptor() != null) s.append(" | ").append(acceptor().describe());
        if (replica() != null) s.append(" | ").append(replica().describe());
        if (proxy() != null) s.append(" | ").append(proxy().describe());
        if (frontend != null && frontend.role != null) s.append(" | ").append(frontend.role.describe());
        return s.toString();
    }

    @Override
    public String toString() {
        return inspect();
    }
}
