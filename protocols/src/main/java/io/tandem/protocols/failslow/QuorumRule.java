package io.tandem.protocols.failslow;

import io.tandem.engine.NodeId;
import java.util.HashSet;
import java.util.Set;

/**
 * Which sets of members form a quorum: {@code k} of {@code n} for Raft and classic Paxos, read or
 * write quorums of a flexible or grid quorum system for MultiPaxos and its compartmentalized form.
 * A rule is only ever asked about subsets of one group, and must be monotone: a superset of a
 * quorum is a quorum. {@link QuorumTracker} and {@link SlownessDetector} rely on that.
 */
@FunctionalInterface
public interface QuorumRule {
    /** True if {@code members} (a subset of the group) contains a quorum. */
    boolean isQuorum(Set<NodeId> members);

    /** Any {@code k} members. */
    static QuorumRule atLeast(int k) {
        if (k < 1) throw new IllegalArgumentException("k must be at least 1, was " + k);
        return members -> members.size() >= k;
    }

    /**
     * A quorum none of whose members can be spared: every member of it decides, with the others, when
     * a wait on it completes. A group whose quorums all come from the same minimal quorum inherits the
     * latency of its slowest member.
     */
    default boolean isMinimalQuorum(Set<NodeId> members) {
        if (!isQuorum(members)) return false;
        Set<NodeId> rest = new HashSet<>(members);
        for (NodeId m : members) {
            rest.remove(m);
            if (isQuorum(rest)) return false;
            rest.add(m);
        }
        return true;
    }
}
