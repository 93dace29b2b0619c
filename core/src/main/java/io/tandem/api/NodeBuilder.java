package io.tandem.api;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.GroupView;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.runtime.NodeRuntime;
import io.tandem.runtime.RuntimeConfig;
import io.tandem.storage.FlushPolicy;
import io.tandem.storage.NodeStorage;
import io.tandem.storage.StorageOptions;
import io.tandem.storage.memory.MemoryDisk;
import io.tandem.statemachine.StateMachine;
import io.tandem.transport.Endpoint;
import io.tandem.transport.Transport;
import io.tandem.transport.TransportFactory;
import io.tandem.transport.TransportSetup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Configures and starts one member: {@link #start()} for a replicated state machine,
 * {@link #connect(Receiver)} for a {@link Channel}. Everything is validated at start with a
 * message that names the setting.
 */
public final class NodeBuilder {
    /** Opens the storage of a node (see {@link #dataDir}, {@link #inMemoryStorage}). */
    @FunctionalInterface
    public interface StorageFactory {
        NodeRuntime.StorageOpener opener(String cluster, NodeId node);
    }

    private NodeId id;
    private final Map<NodeId, Endpoint> members = new LinkedHashMap<>();
    private String cluster = "tandem";
    private Protocol protocol;
    private TransportFactory transport;
    private StorageFactory storage;
    private StateMachine stateMachine;
    private MeterRegistry registry;
    private RuntimeConfig runtimeConfig = RuntimeConfig.DEFAULTS;

    NodeBuilder() {}

    public NodeBuilder id(String id) {
        this.id = NodeId.of(id);
        return this;
    }

    /**
     * The members of the group, in a stable order, as {@code name=host:port} (or just {@code name}
     * for the in-JVM transport, which needs no address). The same list on every member.
     */
    public NodeBuilder members(String... members) {
        this.members.clear();
        for (String m : members) {
            int eq = m.indexOf('=');
            NodeId node = NodeId.of(eq < 0 ? m.trim() : m.substring(0, eq).trim());
            Endpoint endpoint = eq < 0 ? Endpoint.UNADDRESSED : Endpoint.parse(m.substring(eq + 1).trim());
            if (this.members.put(node, endpoint) != null) throw new IllegalArgumentException("member " + node + " is listed twice");
        }
        return this;
    }

    public NodeBuilder members(Map<NodeId, Endpoint> members) {
        this.members.clear();
        this.members.putAll(members);
        return this;
    }

    /** Names the group; members of another cluster are refused by the transport. */
    public NodeBuilder cluster(String cluster) {
        this.cluster = Objects.requireNonNull(cluster);
        return this;
    }

    public NodeBuilder protocol(Protocol protocol) {
        this.protocol = protocol;
        return this;
    }

    public NodeBuilder transport(TransportFactory transport) {
        this.transport = transport;
        return this;
    }

    /** Durable storage in {@code dir} (created if missing), one fsync per batch of writes. */
    public NodeBuilder dataDir(Path dir) {
        return dataDir(dir, FlushPolicy.FSYNC);
    }

    /**
     * Durable storage in {@code dir} with an explicit flush policy; {@link FlushPolicy#NO_FSYNC}
     * survives a process crash but not power loss, and is meant for benchmarks.
     */
    public NodeBuilder dataDir(Path dir, FlushPolicy flushPolicy) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(flushPolicy, "flushPolicy");
        // The registry is read when the node starts, so meterRegistry(...) may come after dataDir(...).
        this.storage = (cluster, node) -> (events, restorer) ->
                NodeStorage.open(dir, cluster, node, StorageOptions.of(flushPolicy).withMetrics(registry), events, restorer);
        return this;
    }

    /**
     * Storage in memory with the same contract as files (for tests and examples): the data lives
     * as long as {@code disk}, so a node restarted on the same disk recovers what was synced.
     */
    public NodeBuilder inMemoryStorage(MemoryDisk disk) {
        Objects.requireNonNull(disk, "disk");
        this.storage = (cluster, node) -> (events, restorer) -> NodeStorage.inMemory(disk, cluster, node, events, restorer);
        return this;
    }

    /** Storage in memory, lost when the node closes. */
    public NodeBuilder inMemoryStorage() {
        return inMemoryStorage(new MemoryDisk());
    }

    public NodeBuilder storage(StorageFactory storage) {
        this.storage = storage;
        return this;
    }

    public NodeBuilder stateMachine(StateMachine stateMachine) {
        this.stateMachine = stateMachine;
        return this;
    }

    public NodeBuilder meterRegistry(MeterRegistry registry) {
        this.registry = registry;
        return this;
    }

    public NodeBuilder requestTimeout(Duration timeout) {
        this.runtimeConfig = runtimeConfig.withRequestTimeout(timeout);
        return this;
    }

    public NodeBuilder maxPendingRequests(int max) {
        this.runtimeConfig = runtimeConfig.withMaxPendingRequests(max);
        return this;
    }

    /**
     * Whether a request submitted on a member that cannot order it (a Raft follower) is forwarded to
     * one that can, its answer coming back here (the default), or fails at once with
     * {@link NotLeaderException} naming who can (for applications that route their own clients).
     */
    public NodeBuilder forwardRequests(boolean forward) {
        this.runtimeConfig = runtimeConfig.withForwardRequests(forward);
        return this;
    }

    public NodeBuilder runtimeConfig(RuntimeConfig config) {
        this.runtimeConfig = Objects.requireNonNull(config);
        return this;
    }

    /** Starts a replicated state machine member. */
    public ReplicatedNode start() {
        require(stateMachine, "stateMachine");
        return startWith(stateMachine);
    }

    /**
     * Joins the group as a {@link Channel} whose receiver gets every message in total order, and
     * every view the engine installs ({@link Receiver#viewAccepted}), in the same order on every
     * member, interleaved with the messages where the engine installed them (with Raft: at each
     * committed membership change). The first view comes before any message.
     */
    public Channel connect(Receiver receiver) {
        Objects.requireNonNull(receiver, "receiver");
        require(id, "id");
        require(protocol, "protocol");
        ReplicatedChannel.ViewTracker views = new ReplicatedChannel.ViewTracker(receiver);
        boolean senderIsOrigin = protocol.deliversSenderAsOrigin();
        RuntimeBackedNode node = startWith(new ReceiverStateMachine(receiver, senderIsOrigin), views);
        try {
            views.awaitFirst(runtimeConfig.requestTimeout(), node.runtime());
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
        return new ReplicatedChannel(node, new Address(id), views, senderIsOrigin);
    }

    /** The channel API's view of an engine's view. */
    static View toView(GroupView v) {
        List<Address> members = new ArrayList<>();
        for (NodeId m : v.members()) members.add(new Address(m));
        return new View(v.id(), members);
    }

    private RuntimeBackedNode startWith(StateMachine sm) {
        return startWith(sm, null);
    }

    private RuntimeBackedNode startWith(StateMachine sm, java.util.function.Consumer<GroupView> viewListener) {
        require(id, "id");
        require(protocol, "protocol");
        require(transport, "transport");
        if (storage == null) throw new IllegalStateException("node builder: no storage: call dataDir(path) for durable storage or inMemoryStorage() for tests");
        if (members.isEmpty()) throw new IllegalArgumentException("members is empty: list every member of the group");
        if (!members.containsKey(id)) throw new IllegalArgumentException("id " + id + " is not among the members " + members.keySet());
        MeterRegistry meters = registry != null ? registry : new SimpleMeterRegistry();
        KryoCodec.Builder codec = KryoCodec.builder();
        protocol.registerMessages(codec);
        Transport t = transport.create(new TransportSetup(cluster, id, members, codec.build(), meters));
        NodeRuntime runtime = new NodeRuntime(id, members, protocol, t, storage.opener(cluster, id), sm, meters, runtimeConfig);
        if (viewListener != null) runtime.addViewListener(viewListener);
        runtime.start();
        return new RuntimeBackedNode(runtime);
    }

    private static void require(Object value, String name) {
        if (value == null) throw new IllegalStateException("node builder: '" + name + "' is not set");
    }

}
