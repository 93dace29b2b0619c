package io.tandem.kv.net;

import java.util.List;
import java.util.Objects;

/**
 * One node's view of itself and its group, as reported by a status request.
 *
 * @param role                the engine's role ("LEADER", "FOLLOWER", ...) or "UNKNOWN" for engines that do not report one
 * @param leader              the node this node believes leads, or null
 * @param leaderClientAddress that leader's client address, or null
 * @param term                the current term (or view), -1 if the engine does not report one
 * @param commitIndex         the highest index known committed, -1 if not reported
 * @param appliedIndex        the highest index applied to the state machine here
 * @param pid                 the server's process id (lets a local runner signal it)
 * @param faultInjection      whether fault-plan and clock-offset requests are accepted
 * @param detail              the engine's one-line state, for humans (may be empty)
 */
public record NodeStatus(
        String node,
        String cluster,
        String protocol,
        String role,
        String leader,
        String leaderClientAddress,
        long term,
        long commitIndex,
        long appliedIndex,
        long pid,
        long uptimeMillis,
        boolean faultInjection,
        List<Member> members,
        String detail) {

    /** A member of the group with the address its peers use and the address clients use. */
    public record Member(String id, String peerAddress, String clientAddress) {
        public Member {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(peerAddress, "peerAddress");
            Objects.requireNonNull(clientAddress, "clientAddress");
        }
    }

    public static final String UNKNOWN_ROLE = "UNKNOWN";

    public NodeStatus {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(role, "role");
        members = List.copyOf(members);
        Objects.requireNonNull(detail, "detail");
    }

    public boolean isLeader() {
        return "LEADER".equals(role);
    }
}
