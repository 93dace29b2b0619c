package io.tandem.protocols.vsync;

import io.tandem.codec.MessageRegistry;
import io.tandem.engine.AdminRequest;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.ShardGroup;
import io.tandem.engine.ShardLayout;
import io.tandem.engine.ShardListener;
import io.tandem.engine.ShardedApplication;
import io.tandem.engine.SnapshotTag;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.vsync.layout.DeliveryMode;
import io.tandem.protocols.vsync.layout.Layout;
import io.tandem.protocols.vsync.layout.LayoutFunction;
import io.tandem.protocols.vsync.layout.Shard;
import io.tandem.protocols.vsync.layout.ShardAllocator;
import io.tandem.protocols.vsync.layout.SubgroupPolicy;
import io.tandem.routing.RoutingPolicy;
import io.tandem.storage.StorageEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Virtual synchrony with its group split into an application's shards ({@link Protocol#withShards},
 * issue 23): the layout is one subgroup named by the {@link ShardLayout} (durable or ordered), of
 * its shards of at least its replicas each (derecho.md §1.3's allocator: members stay in their
 * shard, spare members fill failed places, the rest spread over the smallest shards), and no
 * {@code group} subgroup (the application's shards are the only state). Each member runs a
 * {@link VsyncEngine} behind the protocol-neutral {@link ShardGroup}, the application's
 * {@link ShardListener} as its receiver. Its name is the group protocol's.
 */
public final class ShardedGroupProtocol implements Protocol {
    private final VsyncConfig config;
    private final ShardLayout shards;
    private final ShardedApplication application;

    ShardedGroupProtocol(VsyncConfig config, ShardLayout shards, ShardedApplication application) {
        this.config = config;
        this.shards = shards;
        this.application = application;
    }

    /** The layout every member runs on every view of a group of {@code members}. */
    public LayoutFunction layout(int members) {
        return layout(shards, members);
    }

    static LayoutFunction layout(ShardLayout shards, int members) {
        return new ShardAllocator(List.of(new SubgroupPolicy(shards.name(), shards.shards(), shards.replicas(), Math.max(shards.replicas(), members),
                shards.durable() ? DeliveryMode.DURABLE : DeliveryMode.ORDERED)));
    }

    @Override
    public String name() {
        return VirtualSynchronyProtocol.NAME;
    }

    @Override
    public java.util.Optional<String> shardingRefused() {
        return java.util.Optional.of(name() + " is split into shards already (" + shards + ")");
    }

    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        shards.check(members.size());
        VsyncConfig c = members.size() <= config.maxMembers() ? config : new VsyncConfig(members.size(), config.window(), config.slotBytes(), config.maxQueuedSends(),
                config.heartbeatNanos(), config.suspicionNanos(), config.joinRetryNanos(), config.rejoinNanos(), config.stateChunkBytes(), config.delivery(),
                config.maxSmcPayloadBytes(), config.maxLargePayloadBytes(), config.rdmcBlockBytes());
        Group group = new Group(shards.name(), c.maxPayloadBytes());
        ShardedApplication.Member m = application.member(self, group);
        group.attach(new VsyncEngine(self, members, c, layout(members.size()), new Receiver(shards.name(), m.listener())));
        return m.engine();
    }

    /** Every member takes requests; one that does not serve a request's shard tells the client who does. */
    @Override
    public RoutingPolicy routing() {
        return RoutingPolicy.anyMember();
    }

    @Override
    public void registerMessages(MessageRegistry registry) {
        VsyncMessage.register(registry);
    }

    /** The member's engine as the application sees it: shards by index in the one subgroup. */
    private static final class Group implements ShardGroup {
        private final String subgroup;
        private final int maxPayloadBytes;
        private VsyncEngine engine;

        Group(String subgroup, int maxPayloadBytes) {
            this.subgroup = subgroup;
            this.maxPayloadBytes = maxPayloadBytes;
        }

        void attach(VsyncEngine engine) {
            this.engine = engine;
        }

        @Override
        public boolean member() {
            return engine.phase() == VsyncEngine.Phase.MEMBER;
        }

        @Override
        public String state() {
            return engine.phase().name().toLowerCase(Locale.ROOT);
        }

        @Override
        public long viewId() {
            return engine.viewId();
        }

        @Override
        public boolean serves(int shard) {
            return engine.myShards().contains(new ShardId(subgroup, shard));
        }

        @Override
        public List<NodeId> members(int shard) {
            Shard s = engine.layout().shard(subgroup, shard);
            return s == null ? List.of() : s.members();
        }

        @Override
        public String orderedSend(int shard, byte[] payload) {
            return engine.orderedSend(new ShardId(subgroup, shard), payload);
        }

        @Override
        public int maxPayloadBytes() {
            return maxPayloadBytes;
        }

        // ---- Engine: everything goes to the virtual-synchrony engine ----

        @Override
        public void start(EngineContext ctx) {
            engine.start(ctx);
        }

        @Override
        public void onMessage(NodeId from, ProtocolMessage message) {
            engine.onMessage(from, message);
        }

        @Override
        public void onTimer(TimerKey key) {
            engine.onTimer(key);
        }

        @Override
        public void onClientRequest(ClientRequest request) {
            engine.onClientRequest(request);
        }

        @Override
        public boolean onAdmin(long requestId, AdminRequest request) {
            return engine.onAdmin(requestId, request);
        }

        @Override
        public EngineStatus status() {
            return engine.status();
        }

        @Override
        public void onStorageEvent(StorageEvent event) {
            engine.onStorageEvent(event);
        }

        @Override
        public void onApplied(long appliedIndex) {
            engine.onApplied(appliedIndex);
        }

        @Override
        public void onExecuted(Committed entry, byte[] result) {
            engine.onExecuted(entry, result);
        }

        @Override
        public SnapshotTag snapshotTag(long index) {
            return engine.snapshotTag(index);
        }

        @Override
        public void onRegionWrite(NodeId writer, String region, int offset, int length) {
            engine.onRegionWrite(writer, region, offset, length);
        }

        @Override
        public int doWork() {
            return engine.doWork();
        }

        @Override
        public void stop() {
            engine.stop();
        }
    }

    /** The engine's upcalls for the one subgroup, by shard index, to the application. */
    private record Receiver(String subgroup, ShardListener listener) implements ShardReceiver {
        @Override
        public void deliver(ShardId shard, NodeId sender, long version, byte[] payload) {
            if (shard.subgroup().equals(subgroup)) listener.deliver(shard.index(), sender, version, payload);
        }

        @Override
        public void persisted(ShardId shard, long version) {
            if (shard.subgroup().equals(subgroup)) listener.persisted(shard.index(), version);
        }

        @Override
        public void replayStarts(ShardId shard) {
            if (shard.subgroup().equals(subgroup)) listener.replayStarts(shard.index());
        }

        @Override
        public void viewInstalled(long vid, Layout layout) {
            List<List<NodeId>> map = new ArrayList<>();
            for (Shard s : layout.subgroups().getOrDefault(subgroup, List.of())) map.add(s.members());
            listener.viewInstalled(vid, map);
        }
    }
}
