package io.tandem.protocols.multipaxos;

import io.tandem.roles.Placement;
import io.tandem.roles.RoleCatalog;
import io.tandem.engine.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which node hosts which role, and the acceptors' quorum system: the deployment, resolved against
 * the group's members. Roles address each other only through it (the leader sends Phase 2 to
 * {@link #acceptors()} or to a {@linkplain #proxies() proxy leader}, Chosen to {@link #replicas()},
 * ...), never by assuming co-location, so the same role code runs whether roles share a node or not.
 *
 * <p>{@link #classic} puts one leader, acceptor, replica and frontend on every member (the baseline
 * MultiPaxos of the Copilot and Compartmentalization papers). A compartmentalized deployment (spec
 * §2) is the same code with other lists: proxy leaders between the leader and the acceptors (§2.1),
 * acceptors in a grid given row by row ({@code acceptor-row1}, {@code acceptor-row2}, ...; §2.2),
 * more replicas than acceptors (§2.3), batchers in front of the leader (§2.6).
 *
 * @param members    every node of the group, in the group's order
 * @param leaders    nodes running a proposer; a ballot's proposer index points into this list
 * @param proxies    nodes running a proxy leader (empty: the leader runs Phase 2 itself)
 * @param acceptors  nodes running an acceptor, in the quorum system's order
 * @param replicas   nodes running a replica (executing the log)
 * @param frontends  nodes that take client requests and pass each command to the leader; each runs a replica, unless
 *                   there are unbatchers
 * @param batchers   nodes that take client requests and pass commands to the leader in batches; each runs a replica,
 *                   unless there are unbatchers (then a batcher may be a machine of its own, spec §2.6)
 * @param unbatchers nodes that fan a replica's batch of results out to the members holding the clients (spec §2.7; empty: none)
 * @param quorums    read and write quorums over {@code acceptors}
 */
public record Topology(List<NodeId> members, List<NodeId> leaders, List<NodeId> proxies, List<NodeId> acceptors, List<NodeId> replicas,
                       List<NodeId> frontends, List<NodeId> batchers, List<NodeId> unbatchers, QuorumSystem quorums) {
    /** The most grid rows a deployment file can name ({@code acceptor-row1} .. {@code acceptor-row8}). */
    public static final int MAX_GRID_ROWS = 8;

    public Topology {
        members = List.copyOf(members);
        leaders = List.copyOf(leaders);
        proxies = List.copyOf(proxies);
        acceptors = List.copyOf(acceptors);
        replicas = List.copyOf(replicas);
        frontends = List.copyOf(frontends);
        batchers = List.copyOf(batchers);
        unbatchers = List.copyOf(unbatchers);
        for (List<NodeId> role : List.of(leaders, acceptors, replicas)) {
            if (role.isEmpty()) throw new IllegalArgumentException("every role needs at least one node: " + role);
        }
        for (List<NodeId> role : List.of(leaders, proxies, acceptors, replicas, frontends, batchers, unbatchers)) {
            if (!members.containsAll(role)) throw new IllegalArgumentException(role + " are not all members of " + members);
        }
        if (frontends.isEmpty() && batchers.isEmpty()) throw new IllegalArgumentException("some member must take client requests: place a frontend or a batcher");
        for (NodeId n : frontends) {
            if (batchers.contains(n)) throw new IllegalArgumentException(n + " runs both a frontend and a batcher; a member takes client requests through one of them");
        }
        // A client's request completes on the member that took it: from that member's own execution
        // (the runtime answers it when the command executes there), or, with unbatchers (spec §2.7),
        // from the ClientReplies an unbatcher brings from the replica answering for the slot. So a
        // member taking client requests must run a replica unless unbatchers bring its replies: then
        // it may be a batcher (or frontend) machine of its own, as in the paper (spec §2.6), whose
        // writes complete only from ClientReplies and whose reads go to a member with a replica.
        if (unbatchers.isEmpty()) {
            List<NodeId> clientMembers = new ArrayList<>(frontends);
            clientMembers.addAll(batchers);
            for (NodeId n : clientMembers) {
                if (!replicas.contains(n)) {
                    throw new IllegalArgumentException(n + " takes client requests (frontend or batcher) but runs no replica, and no unbatcher brings it"
                            + " the results: a request completes from the execution of the member that took it (place a replica there, or unbatchers)");
                }
            }
        }
        if (!quorums.members().equals(acceptors)) throw new IllegalArgumentException("the quorum system " + quorums + " is not over the acceptors " + acceptors);
    }

    /** The roles a MultiPaxos deployment file places. */
    static final RoleCatalog ROLES = catalog();

    private static RoleCatalog catalog() {
        List<RoleCatalog.RoleSpec> roles = new ArrayList<>(List.of(
                new RoleCatalog.RoleSpec("leader", 1, "proposes values in ballots; one leads at a time"),
                new RoleCatalog.RoleSpec("proxy", 0, "proxy leader: runs Phase 2 of the leader's slots and announces them chosen (optional)"),
                new RoleCatalog.RoleSpec("acceptor", 0, "votes on values; majorities of them choose (or give acceptor-row1.. for a grid)")));
        for (int r = 1; r <= MAX_GRID_ROWS; r++) {
            roles.add(new RoleCatalog.RoleSpec("acceptor-row" + r, 0, "acceptors of grid row " + r + ": a row is a read quorum, a column a write quorum"));
        }
        roles.add(new RoleCatalog.RoleSpec("replica", 1, "learns chosen values, executes the log and serves reads"));
        roles.add(new RoleCatalog.RoleSpec("frontend", 0, "takes client requests and passes each command to the leader"));
        roles.add(new RoleCatalog.RoleSpec("batcher", 0, "takes client requests and passes commands to the leader in batches (size or timeout)"));
        roles.add(new RoleCatalog.RoleSpec("unbatcher", 0, "takes a replica's batch of command results and sends each member its clients' replies (optional)"));
        return new RoleCatalog("multipaxos", roles);
    }

    /**
     * The members running each role as {@code placement} says; acceptor quorums as {@code layout} says,
     * unless the placement gives the acceptors as grid rows, which then are the quorum system.
     */
    public static Topology of(Placement placement, QuorumLayout layout) {
        List<NodeId> plain = placement.nodes("acceptor");
        List<List<NodeId>> rows = new ArrayList<>();
        for (int r = 1; r <= MAX_GRID_ROWS; r++) {
            List<NodeId> row = placement.nodes("acceptor-row" + r);
            if (row.isEmpty()) continue;
            if (rows.size() != r - 1) throw new IllegalArgumentException("acceptor-row" + r + " is placed but acceptor-row" + (rows.size() + 1) + " is not: number the grid rows from 1 without gaps");
            rows.add(row);
        }
        List<NodeId> acceptors;
        QuorumSystem quorums;
        if (!rows.isEmpty()) {
            if (!plain.isEmpty()) throw new IllegalArgumentException("give the acceptors either as 'acceptor' (majorities) or as grid rows 'acceptor-row1', ..., not both");
            quorums = QuorumSystem.grid(rows); // checks equal row lengths and distinct acceptors
            acceptors = quorums.members();
        } else {
            if (plain.isEmpty()) throw new IllegalArgumentException("no acceptors: place 'acceptor' or grid rows 'acceptor-row1', ...");
            acceptors = plain;
            quorums = layout.resolve(acceptors);
        }
        return new Topology(placement.members(), placement.nodes("leader"), placement.nodes("proxy"), acceptors, placement.nodes("replica"),
                placement.nodes("frontend"), placement.nodes("batcher"), placement.nodes("unbatcher"), quorums);
    }

    /** One leader, acceptor, replica and frontend per member; quorums as {@code layout} says. */
    public static Topology classic(List<NodeId> members, QuorumLayout layout) {
        return new Topology(members, members, List.of(), members, members, members, List.of(), List.of(), layout.resolve(members));
    }

    /** Members that take client requests and run a replica, so can serve reads: where a member without one sends its readers. */
    List<NodeId> readingClientMembers() {
        return clientMembers().stream().filter(replicas::contains).toList();
    }

    /** Members that take client requests: frontends and batchers. */
    public List<NodeId> clientMembers() {
        List<NodeId> all = new ArrayList<>(frontends);
        all.addAll(batchers);
        return all;
    }

    /**
     * True if clients spread their requests over the frontends and batchers (a deployment with
     * proxies or batchers; {@link MultiPaxosProtocol#routing()}): a frontend then finds the leader
     * itself and never redirects its client to it.
     */
    public boolean spreadsClients() {
        return hasProxies() || !batchers.isEmpty();
    }

    /** True if proxy leaders run Phase 2 (spec §2.1): the leader sends each run of slots to one of them. */
    public boolean hasProxies() {
        return !proxies.isEmpty();
    }
    /**
     * True if replicas hand command results to unbatchers (spec §2.7): the replica answering for a
     * slot ({@link #answersFor}) sends them on, so a client's write completes once any replica that
     * answers for it has executed it, not only its own member's.
     */
    public boolean hasUnbatchers() {
        return !unbatchers.isEmpty();
    }

    /** True if {@code replica} answers for {@code slot}: replica {@code slot mod R} of the list (spec §1.4, R-4). */
    public boolean answersFor(NodeId replica, long slot) {
        int i = replicas.indexOf(replica);
        return i >= 0 && Math.floorMod(slot, replicas.size()) == i;
    }

    /** The proposer index of {@code node}, or -1. */
    public int leaderIndex(NodeId node) {
        return leaders.indexOf(node);
    }

    /** The node owning ballot {@code b}, or null for {@link Ballot#ZERO}. */
    public NodeId leaderOf(Ballot b) {
        return b.isZero() || b.proposer() >= leaders.size() ? null : leaders.get(b.proposer());
    }

    /** Every node that hosts a leader, an acceptor, a replica, a frontend or a batcher: the audience of a leader's heartbeat. */
    public Set<NodeId> heartbeatAudience() {
        Set<NodeId> all = new TreeSet<>(leaders);
        all.addAll(acceptors);
        all.addAll(replicas);
        all.addAll(frontends);
        all.addAll(batchers);
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
