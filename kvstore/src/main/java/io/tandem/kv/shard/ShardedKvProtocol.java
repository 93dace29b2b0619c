package io.tandem.kv.shard;

import io.tandem.codec.MessageRegistry;
import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.ShardLayout;
import io.tandem.engine.ShardedApplication;
import io.tandem.execution.ExecutorFactory;
import io.tandem.kv.KvLimits;
import io.tandem.routing.RoutingPolicy;
import java.util.List;
import java.util.Optional;

/**
 * The KV store sharded over a group's shards (issue 23): a protocol that can split its group
 * ({@link Protocol#withShards}; virtual synchrony's subgroups do) into one durable shard layout
 * named {@value ShardedKvEngine#SUBGROUP} of {@code shards} shards of at least {@code replicas}
 * members each, each member running a {@link ShardedKvEngine}. Built only through
 * {@link #over}, which asks the protocol and never names it: a protocol that cannot shard refuses
 * with its own reason. Its name is the group protocol's.
 *
 * <p>A server makes one instance for its one engine: {@link #shardMap()} is what that engine saw last.
 */
public final class ShardedKvProtocol implements Protocol {
    private final Protocol group;
    private final int shards;
    private final int replicas;
    private volatile ShardMap shardMap = ShardMap.NONE;

    private ShardedKvProtocol(Protocol base, int shards, int replicas, KvLimits limits, ExecutorFactory.Limits sessionLimits) {
        this.shards = shards;
        this.replicas = replicas;
        ShardedApplication kv = (self, group) -> {
            ShardedKvEngine engine = new ShardedKvEngine(self, group, shards, limits, sessionLimits, m -> shardMap = m);
            return new ShardedApplication.Member(engine, engine);
        };
        this.group = base.withShards(layout(shards, replicas), kv);
    }

    /**
     * The KV store split into {@code shards} durable shards of at least {@code replicas} members of
     * {@code base}'s group.
     *
     * @throws IllegalArgumentException with the protocol's reason if {@code base} cannot split its
     *         group into shards, or if the numbers are out of range
     */
    public static ShardedKvProtocol over(Protocol base, int shards, int replicas, KvLimits limits, ExecutorFactory.Limits sessionLimits) {
        Optional<String> refused = base.shardingRefused();
        if (refused.isPresent()) throw new IllegalArgumentException("the sharded KV store needs a protocol that splits its group into shards: " + refused.get());
        return new ShardedKvProtocol(base, shards, replicas, limits, sessionLimits);
    }

    /** The shard layout the store asks of its protocol: durable, because an answer waits until the request is on disk at every member of its shard. */
    static ShardLayout layout(int shards, int replicas) {
        if (shards < 1 || shards > KeyShards.MAX_SHARDS) throw new IllegalArgumentException("shards must be in [1, " + KeyShards.MAX_SHARDS + "], was " + shards);
        return new ShardLayout(ShardedKvEngine.SUBGROUP, shards, replicas, true);
    }

    /**
     * Checks that {@code members} can fill every shard, with a message that says what to change:
     * {@code shards × replicas} members are needed for the first view (and for every later one).
     */
    public static void check(int shards, int replicas, int members) {
        layout(shards, replicas).check(members);
    }

    public int shards() {
        return shards;
    }

    public int replicas() {
        return replicas;
    }

    /** The shards' members in the last view this protocol's engine installed ({@link ShardMap#NONE} before the first). */
    public ShardMap shardMap() {
        return shardMap;
    }

    @Override
    public String name() {
        return group.name();
    }

    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        return group.createEngine(self, members);
    }

    /** Every member takes requests; one that does not serve the key's shard redirects to the members that do. */
    @Override
    public RoutingPolicy routing() {
        return group.routing();
    }

    @Override
    public Optional<String> shardingRefused() {
        return Optional.of("the KV store is split into shards already");
    }

    @Override
    public void registerMessages(MessageRegistry registry) {
        group.registerMessages(registry);
    }
}
