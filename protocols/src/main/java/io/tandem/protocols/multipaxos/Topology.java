package io.tandem.protocols.multipaxos;

import io.tandem.roles.Placement;
import io.tandem.roles.RoleCatalog;
import io.tandem.engine.NodeId;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which node hosts which role, and the acceptors' quorum system: the deployment, resolved against
 * the group's members. Roles address each other only through it (the leader sends Phase 2 to
 * {@link #acceptors()}, Chosen to {@link #replicas()}, ...), never by assuming co-location, so the
 * same role code runs whether roles share a node or not.
 *
 * <p>{@link #classic} puts one of each role on every member (the baseline MultiPaxos of the Copilot
 * and Compartmentalization papers). A compartmentalized deployment (spec §2) is another factory
 * here: disjoint lists of leaders, acceptors in a grid, more replicas than acceptors, plus the roles
 * that do not exist yet (proxy leaders between the leader and the acceptors, batchers in front of
 * the leader, unbatchers behind the replicas), each a new list and a new role engine.
 *
 * @param members    every node of the group, in the group's order
 * @param leaders    nodes running a proposer; a ballot's proposer index points into this list
 * @param acceptors  nodes running an acceptor, in the quorum system's order
 * @param replicas   nodes running a replica (executing the log)
 * @param frontends  nodes that accept client requests
 * @param quorums    read and write quorums over {@code acceptors}
 */
public record Topology(List<NodeId> members, List<NodeId> leaders, List<NodeId> acceptors, List<NodeId> replicas, List<NodeId> frontends,
                       QuorumSystem quorums) {
    public Topology {
        members = List.copyOf(members);
        leaders = List.copyOf(leaders);
        acceptors = List.copyOf(acceptors);
        replicas = List.copyOf(replicas);
        frontends = List.copyOf(frontends);
        for (List<NodeId> role : List.of(leaders, acceptors, replicas, frontends)) {
            if (role.isEmpty()) throw new IllegalArgumentException("every role needs at least one node: " + role);
            if (!members.containsAll(role)) throw new IllegalArgumentException(role + " are not all members of " + members);
        }
        if (!quorums.members().equals(acceptors)) throw new IllegalArgumentException("the quorum system " + quorums + " is not over the acceptors " + acceptors);
    }

    /** The roles a MultiPaxos deployment file places. */
    static final RoleCatalog ROLES = new RoleCatalog("multipaxos", List.of(
            new RoleCatalog.RoleSpec("leader", 1, "proposes values in ballots; one leads at a time"),
            new RoleCatalog.RoleSpec("acceptor", 1, "votes on values; its quorums choose them"),
            new RoleCatalog.RoleSpec("replica", 1, "learns chosen values and executes the log"),
            new RoleCatalog.RoleSpec("frontend", 1, "takes client requests and passes them to a leader")));

    /** The members running each role as {@code placement} says; acceptor quorums as {@code layout} says. */
    public static Topology of(Placement placement, QuorumLayout layout) {
        List<NodeId> acceptors = placement.nodes("acceptor");
        return new Topology(placement.members(), placement.nodes("leader"), acceptors, placement.nodes("replica"), placement.nodes("frontend"),
                layout.resolve(acceptors));
    }

    /** One leader, acceptor, replica and frontend per member; quorums as {@code layout} says. */
    public static Topology classic(List<NodeId> members, QuorumLayout layout) {
        return new Topology(members, members, members, members, members, layout.resolve(members));
    }

    /** The proposer index of {@code node}, or -1. */
    public int leaderIndex(NodeId node) {
        return leaders.indexOf(node);
    }

    /** The node owning ballot {@code b}, or null for {@link Ballot#ZERO}. */
    public NodeId leaderOf(Ballot b) {
        return b.isZero() || b.proposer() >= leaders.size() ? null : leaders.get(b.proposer());
    }

    /** Every node that hosts a leader, an acceptor or a replica: the audience of a leader's heartbeat. */
    public Set<NodeId> heartbeatAudience() {
        Set<NodeId> all = new TreeSet<>(leaders);
        all.addAll(acceptors);
        all.addAll(replicas);
        return all;
    }

    /** Nodes that want to hear a replica's progress: leaders (chosen watermark) and acceptors (garbage collection). */
    public Set<NodeId> progressAudience() {
        Set<NodeId> all = new TreeSet<>(leaders);
        all.addAll(acceptors);
        return all;
    }

    /**
     * How many replicas must hold a snapshot covering a slot before acceptors may forget their votes
     * for it: a majority of the replicas, so any minority of failures leaves a copy.
     */
    public int snapshotCopiesForGc() {
        return replicas.size() / 2 + 1;
    }
}
