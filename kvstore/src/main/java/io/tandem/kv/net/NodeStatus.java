package io.tandem.kv.net;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One node's view of itself and its group, as reported by a status request: the engine-neutral
 * {@link io.tandem.engine.EngineStatus} of its engine, plus what the server knows (addresses,
 * process). The same fields mean the same for every protocol.
 *
 * @param role                the engine's role, a name of {@link io.tandem.engine.EngineStatus.Role}
 *                            ("LEADER", "FOLLOWER", "CANDIDATE", "LEARNER", "REPLICA", "NOT_MEMBER", "UNKNOWN")
 * @param leader              the node this node believes leads, or null
 * @param leaderClientAddress that leader's client address, or null
 * @param epoch               the engine's term, view or ballot round; -1 if unknown
 * @param commitIndex         the highest index known committed, -1 if unknown
 * @param appliedIndex        the highest index applied to the state machine here
 * @param voters              the voting members in the engine's current configuration
 * @param learners            the non-voting members in the engine's current configuration
 * @param lag                 on a leader, how many entries each peer is behind; empty elsewhere
 * @param pid                 the server's process id (lets a local runner signal it)
 * @param faultInjection      whether fault-plan and clock-offset requests are accepted
 * @param members             every node of the group's configuration file, with its addresses
 * @param shardView           a sharded store (issue 23): the view {@code shards} belongs to; 0 otherwise
 * @param shards              a sharded store: for shard {@code i}, the ids of the members that serve it
 *                            (keys go to shards by {@link io.tandem.kv.shard.KeyShards#shardOf}); empty otherwise
 */
public record NodeStatus(
        String node,
        String cluster,
        String protocol,
        String role,
        String leader,
        String leaderClientAddress,
        long epoch,
        long commitIndex,
        long appliedIndex,
        List<String> voters,
        List<String> learners,
        Map<String, Long> lag,
        long pid,
        long uptimeMillis,
        boolean faultInjection,
        List<Member> members,
        long shardView,
        List<List<String>> shards) {

    /** The status of an unsharded store. */
    public NodeStatus(String node, String cluster, String protocol, String role, String leader, String leaderClientAddress, long epoch, long commitIndex,
            long appliedIndex, List<String> voters, List<String> learners, Map<String, Long> lag, long pid, long uptimeMillis, boolean faultInjection,
            List<Member> members) {
        this(node, cluster, protocol, role, leader, leaderClientAddress, epoch, commitIndex, appliedIndex, voters, learners, lag, pid, uptimeMillis, faultInjection,
                members, 0, List.of());
    }

    /** A member of the group with the address its peers use and the address clients use. */
    public record Member(String id, String peerAddress, String clientAddress) {
        public Member {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(peerAddress, "peerAddress");
            Objects.requireNonNull(clientAddress, "clientAddress");
        }
    }

    public NodeStatus {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(role, "role");
        voters = List.copyOf(voters);
        learners = List.copyOf(learners);
        lag = java.util.Collections.unmodifiableMap(new TreeMap<>(lag));
        members = List.copyOf(members);
        shards = shards.stream().map(List::copyOf).toList();
    }

    public boolean isLeader() {
        return "LEADER".equals(role);
    }
}
