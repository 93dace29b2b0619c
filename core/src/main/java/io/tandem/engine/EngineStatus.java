package io.tandem.engine;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What an engine knows about its group, in terms every engine can fill (DESIGN §2.1): the answer to
 * {@link Engine#status()}, read by operators, the KV server's status request and test harnesses, so
 * that no application needs to know which engine runs ({@code instanceof} an engine is never needed).
 *
 * @param role         this node's part in the protocol now
 * @param leader       the node this node believes orders commands now (itself if {@link Role#LEADER}), or null
 * @param epoch        the engine's term, view or ballot round: grows with every leadership change, so
 *                     two nodes that name the same leader in the same epoch agree
 * @param voters       the members whose votes decide, as the engine's current configuration has them
 * @param learners     members that receive the order without voting (empty for most engines)
 * @param commitIndex  the highest position this node knows is decided
 * @param appliedIndex the highest position the state machine applied here; the runtime fills it in
 *                     from execution ({@link #withAppliedIndex}), an engine reports what it last heard
 * @param lag          for each peer, how many entries it is behind the order this node holds; only the
 *                     node that tracks its peers (a leader) reports it, others give an empty map
 */
public record EngineStatus(Role role, NodeId leader, long epoch, List<NodeId> voters, List<NodeId> learners,
                           long commitIndex, long appliedIndex, Map<NodeId, Long> lag) {
    /** A node's part in its protocol, in words that fit every engine. */
    public enum Role {
        /** Orders commands now. */
        LEADER,
        /** Tries to become leader (a Raft pre-vote or election, a Paxos Phase 1). */
        CANDIDATE,
        /** A voting member that follows a leader, or waits to hear from one. */
        FOLLOWER,
        /** A member that receives the order without voting. */
        LEARNER,
        /** A member that holds no leadership role at all in its deployment (for example an acceptor or replica only). */
        REPLICA,
        /** A node listed among the runtime's members but outside the engine's current configuration (not yet added, or removed). */
        NOT_MEMBER,
        /** The engine does not report a role: only engines outside the shipped registry (tests) answer this. */
        UNKNOWN
    }

    /** The answer of an engine that reports nothing (the default of {@link Engine#status()}). */
    public static final EngineStatus UNKNOWN = new EngineStatus(Role.UNKNOWN, null, -1, List.of(), List.of(), -1, -1, Map.of());

    public EngineStatus {
        Objects.requireNonNull(role, "role");
        voters = List.copyOf(voters);
        learners = List.copyOf(learners);
        lag = Map.copyOf(lag);
    }

    public boolean isLeader() {
        return role == Role.LEADER;
    }

    /** This status with the state machine's applied index, which only the runtime's execution knows exactly. */
    public EngineStatus withAppliedIndex(long index) {
        return new EngineStatus(role, leader, epoch, voters, learners, commitIndex, index, lag);
    }
}
