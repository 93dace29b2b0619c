package io.tandem.kv.shard;

import io.tandem.codec.MessageRegistry;
import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.execution.ExecutorFactory;
import io.tandem.kv.KvLimits;
import io.tandem.protocols.vsync.VirtualSynchronyProtocol;
import io.tandem.protocols.vsync.VsyncConfig;
import io.tandem.protocols.vsync.VsyncEngine;
import io.tandem.protocols.vsync.layout.DeliveryMode;
import io.tandem.protocols.vsync.layout.LayoutFunction;
import io.tandem.protocols.vsync.layout.ShardAllocator;
import io.tandem.protocols.vsync.layout.SubgroupPolicy;
import io.tandem.routing.RoutingPolicy;
import java.util.List;

/**
 * The KV store sharded over virtual synchrony (issue 23): {@code virtual-synchrony} whose layout is
 * one durable subgroup {@value ShardedKvEngine#SUBGROUP} of {@code shards} shards of at least
 * {@code replicas} members each (derecho.md §1.3's allocator: members stay in their shard, spare
 * members fill failed places, the rest are spread over the smallest shards), each member running a
 * {@link ShardedKvEngine}. Its name is the group protocol's, {@value VirtualSynchronyProtocol#NAME}.
 *
 * <p>A server makes one instance for its one engine: {@link #shardMap()} is what that engine saw last.
 */
public final class ShardedKvProtocol implements Protocol {
    private final VsyncConfig config;
    private final int shards;
    private final int replicas;
    private final KvLimits limits;
    private final ExecutorFactory.Limits sessionLimits;
    private volatile ShardMap shardMap = ShardMap.NONE;

    /**
     * @param config   the group's timers, window and slot size
     * @param shards   how many shards, in [1, {@link KeyShards#MAX_SHARDS}]
     * @param replicas the fewest members a shard may have (the replication factor a view must offer)
     */
    public ShardedKvProtocol(VsyncConfig config, int shards, int replicas, KvLimits limits, ExecutorFactory.Limits sessionLimits) {
        if (shards < 1 || shards > KeyShards.MAX_SHARDS) throw new IllegalArgumentException("shards must be in [1, " + KeyShards.MAX_SHARDS + "], was " + shards);
        if (replicas < 1) throw new IllegalArgumentException("replicas per shard must be >= 1, was " + replicas);
        this.config = config;
        this.shards = shards;
        this.replicas = replicas;
        this.limits = limits;
        this.sessionLimits = sessionLimits;
    }

    /**
     * Checks that {@code members} can fill every shard, with a message that says what to change:
     * {@code shards × replicas} members are needed for the first view (and for every later one).
     */
    public static void check(int shards, int replicas, int members) {
        if (shards < 1 || shards > KeyShards.MAX_SHARDS) throw new IllegalArgumentException("shards must be in [1, " + KeyShards.MAX_SHARDS + "], was " + shards);
        if (replicas < 1) throw new IllegalArgumentException("shard-replicas must be >= 1, was " + replicas);
        if ((long) shards * replicas > members) {
            throw new IllegalArgumentException(shards + " shards of at least " + replicas + " replica" + (replicas == 1 ? "" : "s") + " need " + (shards * replicas)
                    + " members, but the group has " + members + ": lower shards or shard-replicas, or add members");
        }
    }

    /** The layout every member runs on every view. */
    public LayoutFunction layout(int members) {
        return new ShardAllocator(List.of(new SubgroupPolicy(ShardedKvEngine.SUBGROUP, shards, replicas, Math.max(replicas, members), DeliveryMode.DURABLE)));
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
        return VirtualSynchronyProtocol.NAME;
    }

    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        check(shards, replicas, members.size());
        VsyncConfig c = members.size() <= config.maxMembers() ? config : new VsyncConfig(members.size(), config.window(), config.slotBytes(), config.maxQueuedSends(),
                config.heartbeatNanos(), config.suspicionNanos(), config.joinRetryNanos(), config.rejoinNanos(), config.stateChunkBytes(), config.delivery(),
                config.maxSmcPayloadBytes(), config.maxLargePayloadBytes(), config.rdmcBlockBytes());
        ShardedKvEngine engine = new ShardedKvEngine(self, shards, limits, c.maxPayloadBytes(), sessionLimits, m -> shardMap = m);
        engine.attach(new VsyncEngine(self, members, c, layout(members.size()), engine));
        return engine;
    }

    /** Every member takes requests; one that does not serve the key's shard redirects to the members that do. */
    @Override
    public RoutingPolicy routing() {
        return RoutingPolicy.anyMember();
    }

    @Override
    public void registerMessages(MessageRegistry registry) {
        new VirtualSynchronyProtocol(config).registerMessages(registry);
    }
}
