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

    /**
     * The roles this protocol can place on members with a deployment file, if it is built from
     * separable roles (MultiPaxos: leader, acceptor, replica, frontend). Empty for a protocol that runs
     * one engine per member.
     */
    default java.util.Optional<io.tandem.roles.RoleCatalog> roles() {
        return java.util.Optional.empty();
    }

    /**
     * This protocol with its roles placed as {@code deployment} says (read with {@link #roles()}'s
     * catalog). A protocol without {@link #roles()} refuses with a clear reason.
     */
    default Protocol withDeployment(io.tandem.roles.Deployment deployment) {
        throw new io.tandem.roles.DeploymentException(name() + " runs one engine per member and takes no deployment file");
    }

    /**
     * This protocol with engine settings named as {@code key=value} text (e.g. {@code max-batch-slots=1}),
     * for tools that tune one engine without knowing its config type (the performance simulator).
     * Keys the protocol does not know, and values outside their valid range, are refused with a
     * message naming the key; an empty map returns this protocol unchanged.
     *
     * @throws IllegalArgumentException naming the key, for an unknown key or a bad value
     */
    default Protocol withEngineOptions(java.util.Map<String, String> options) {
        if (options.isEmpty()) return this;
        throw new IllegalArgumentException(name() + " takes no engine options (given: " + String.join(", ", options.keySet()) + ")");
    }

    /**
     * The host settings this protocol applies ({@link #withHostSettings}); a host may list them to say
     * which protocols a setting of its own affects.
     */
    default java.util.Set<HostSettings.Kind> hostSettings() {
        return java.util.Set.of();
    }

    /**
     * This protocol with the settings a host states in the same words for every protocol (election
     * timeout, snapshot threshold, initial voters, restart after shutdown), so that the host never
     * needs to know which engine it runs. Unset settings keep this protocol's values.
     *
     * @throws IllegalArgumentException naming the setting, if one is set that this protocol has no
     *         equivalent for ({@link #hostSettings()}) or if a value is outside its valid range here
     */
    default Protocol withHostSettings(HostSettings settings) {
        settings.requireOnly(name(), hostSettings());
        return this;
    }

    /**
     * Whether every command its engines deliver names, as {@link Committed#origin}, the member the command was
     * submitted on, on every member: the protocol orders each command at the member a client submitted it on and
     * never redirects one (so the runtime never forwards it, DESIGN §2.1), and the order tells every member
     * whose each command is (virtual synchrony: each sender's ring). A channel over such a protocol leaves its
     * name out of every message and its receivers take the sender from the origin (issue 22: the name was copied
     * in front of every payload before it reached the engine, a copy and an allocation per send). False by
     * default, and for any protocol that may order a command at another member (a leader's log: the origin is
     * the leader for a forwarded command), where the channel keeps the name in the command. Every member of a
     * group must see the same answer (it is the protocol's, the same on all of them).
     */
    default boolean deliversSenderAsOrigin() {
        return false;
    }

    /**
     * Why this protocol cannot split its group into shards ({@link #withShards}), naming it; empty if
     * it can. A host checks this when it reads its configuration, before anything starts.
     */
    default java.util.Optional<String> shardingRefused() {
        return java.util.Optional.of(name() + " cannot split its group into shards: it keeps one total order over the whole group "
                + "(a protocol with subgroups, such as virtual-synchrony, can)");
    }

    /**
     * This protocol with its group split into the shards {@code layout} asks for, each member running
     * {@code application} over its {@link ShardGroup} (issue 23: the KV store sharded over Derecho's
     * subgroups). The host never needs to know which engine it runs: a protocol that cannot shard
     * refuses with {@link #shardingRefused()}'s reason.
     *
     * @throws IllegalArgumentException if this protocol cannot shard, or cannot give what
     *         {@code layout} asks (durability, that many shards)
     */
    default Protocol withShards(ShardLayout layout, ShardedApplication application) {
        throw new IllegalArgumentException(shardingRefused().orElse(name() + " does not implement withShards"));
    }

    /** Registers every {@link ProtocolMessage} type of this protocol; unregistered types never cross the wire. */
    void registerMessages(MessageRegistry registry);
}
