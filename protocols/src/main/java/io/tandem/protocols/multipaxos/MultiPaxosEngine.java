package io.tandem.protocols.multipaxos;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Rejection;
import io.tandem.engine.RequestIds;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToAcceptor;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToFrontend;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToLeader;
import io.tandem.protocols.multipaxos.MultiPaxosMessage.ToReplica;
import io.tandem.sim.Inspectable;
import io.tandem.storage.StorageEvent;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One node of a MultiPaxos group: the roles the deployment puts on this node ({@link Topology}),
 * behind one {@link Engine}. It owns no protocol logic; it routes.
 *
 * <ul>
 *   <li>A message goes to every co-located role whose inbox it belongs to ({@link ToLeader},
 *       {@link ToAcceptor}, {@link ToReplica}, {@link ToFrontend}; a heartbeat belongs to three).</li>
 *   <li>A role sending to this node does not call the other role: the message joins a local queue
 *       that is drained, in order, after the current event, exactly as if it had come from the
 *       network (minus the wire). So co-location changes where messages travel, never the protocol.</li>
 *   <li>Timers go to the role that owns the key type; storage events by kind: the journal and the
 *       acceptor's meta records to the acceptor, the proposer's round to the leader, snapshots and
 *       {@code onApplied} to the replica, client requests to the frontend, a storage failure to all.</li>
 * </ul>
 */
public final class MultiPaxosEngine implements Engine, Inspectable {
    private record Local(NodeId from, MultiPaxosMessage message) {}

    private final NodeId self;
    private final List<NodeId> members;
    private final MultiPaxosConfig config;
    private final boolean recordHistory;
    private final Roles roles;
    private final ArrayDeque<Local> local = new ArrayDeque<>();
    private final long[] tokens = new long[1];

    private EngineContext ctx;
    private Topology topology;
    private Leader leader;
    private Acceptor acceptor;
    private Replica replica;
    private Frontend frontend;
    private boolean draining;
    private Meters.Counter clientMessages;
    private Meters.Counter backgroundMessages;
    private Meters.Counter localMessages;

    /**
     * @param recordHistory keep the rings of recent votes and executions the simulator's invariants read
     * @param roles         makes the leader and acceptor roles
     */
    MultiPaxosEngine(NodeId self, List<NodeId> members, MultiPaxosConfig config, boolean recordHistory, Roles roles) {
        this.self = self;
        this.members = List.copyOf(members);
        this.config = config;
        this.recordHistory = recordHistory;
        this.roles = roles;
    }

    @Override
    public void start(EngineContext ctx) {
        this.ctx = ctx;
        this.topology = config.deployment().topology(members, config.acceptorQuorums());
        Meters meters = ctx.meters();
        clientMessages = meters.counter("tandem.multipaxos.messages.sent", "cause", "client");
        backgroundMessages = meters.counter("tandem.multipaxos.messages.sent", "cause", "background");
        localMessages = meters.counter("tandem.multipaxos.messages.local");
        RoleContext rc = new RoleContext(ctx, topology, config, this::send, tokens);
        if (topology.acceptors().contains(self)) acceptor = roles.acceptor(rc, recordHistory);
        if (topology.replicas().contains(self)) replica = new Replica(rc, recordHistory);
        if (topology.leaders().contains(self)) leader = roles.leader(rc);
        if (topology.frontends().contains(self)) frontend = new Frontend(rc);
        // Recovery order: votes first, then execution, then the proposer (which learns from both by message).
        if (acceptor != null) acceptor.start();
        if (replica != null) replica.start();
        if (leader != null) leader.start();
        drain();
    }

    // ------------------------------------------------------------------------------------------
    // Routing
    // ------------------------------------------------------------------------------------------

    private void send(NodeId to, MultiPaxosMessage message) {
        if (to.equals(self)) {
            localMessages.increment();
            local.addLast(new Local(self, message));
            return;
        }
        (RequestIds.isBackground(message.requestId()) ? backgroundMessages : clientMessages).increment();
        ctx.send(to, message);
    }

    /** Delivers a message to every local role whose inbox it is in. */
    private void route(NodeId from, MultiPaxosMessage m) {
        if (m instanceof ToAcceptor a && acceptor != null) acceptor.onMessage(from, a);
        if (m instanceof ToReplica r && replica != null) replica.onMessage(from, r);
        if (m instanceof ToLeader l && leader != null) leader.onMessage(from, l);
        if (m instanceof ToFrontend f && frontend != null) frontend.onMessage(from, f);
    }

    /** Runs the local queue to empty; messages that local deliveries send to this node join its end. */
    private void drain() {
        if (draining) return;
        draining = true;
        try {
            Local next;
            while ((next = local.pollFirst()) != null) route(next.from(), next.message());
        } finally {
            draining = false;
        }
    }

    @Override
    public void onMessage(NodeId from, ProtocolMessage message) {
        if (message instanceof MultiPaxosMessage m) route(from, m);
        drain();
    }

    @Override
    public void onTimer(TimerKey key) {
        switch (key) {
            case Leader.Timer t when leader != null -> leader.onTimer(t);
            case Replica.Timer t when replica != null -> replica.onTimer(t);
            case Frontend.Timer t when frontend != null -> frontend.onTimer(t);
            default -> { }
        }
        drain();
    }

    @Override
    public void onClientRequest(ClientRequest request) {
        if (frontend == null) ctx.reject(request.requestId(), new Rejection.Unavailable(self + " does not accept client requests in this deployment"));
        else frontend.onClientRequest(request);
        drain();
    }

    @Override
    public void onStorageEvent(StorageEvent event) {
        switch (event) {
            case StorageEvent.LogSynced s -> {
                if (acceptor != null) acceptor.onStorageEvent(s);
            }
            case StorageEvent.MetaSaved s -> {
                if (s.key().startsWith(Acceptor.KEY_PREFIX) && acceptor != null) acceptor.onStorageEvent(s);
                else if (s.key().startsWith(Leader.KEY_PREFIX) && leader != null) leader.onStorageEvent(s);
            }
            case StorageEvent.StorageFailed s -> {
                if (acceptor != null) acceptor.onStorageEvent(s);
                if (leader != null) leader.onStorageEvent(s);
                if (replica != null) replica.onStorageEvent(s);
                if (frontend != null) frontend.onStorageFailed();
            }
            default -> {
                if (replica != null) replica.onStorageEvent(event);
            }
        }
        drain();
    }

    @Override
    public void onApplied(long appliedIndex) {
        if (replica != null) replica.onApplied(appliedIndex);
        drain();
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
        return leader;
    }

    Acceptor acceptor() {
        return acceptor;
    }

    Replica replica() {
        return replica;
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
        EngineStatus.Role role = EngineStatus.Role.REPLICA;
        NodeId leaderHint = replica == null ? null : replica.leaderHint();
        Ballot epoch = acceptor == null ? Ballot.ZERO : acceptor.promised();
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
        if (leader != null) s.append(" | ").append(leader.describe());
        if (acceptor != null) s.append(" | ").append(acceptor.describe());
        if (replica != null) s.append(" | ").append(replica.describe());
        if (frontend != null) s.append(" | ").append(frontend.describe());
        return s.toString();
    }

    @Override
    public String toString() {
        return inspect();
    }
}
