package io.tandem.protocols.vsync;

import io.tandem.codec.MessageRegistry;
import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.protocols.vsync.layout.Layout;
import io.tandem.protocols.vsync.layout.LayoutFunction;
import io.tandem.protocols.vsync.layout.Shard;
import io.tandem.routing.RoutingPolicy;
import io.tandem.sim.FaultSchedule;
import io.tandem.sim.MinorityFaultModel;
import io.tandem.sim.SimCluster;
import io.tandem.sim.SimInvariant;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimTime;
import io.tandem.sim.SimulatedProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Virtual synchrony after Derecho ({@code virtual-synchrony}): ordered multicast through an SST in
 * memory regions, with wedging, a leader-driven view change and the ragged trim. Every member
 * accepts commands; each one is multicast and delivered to every member's state machine in the same
 * total order, so a channel's receivers see the same messages in the same order and the same views.
 */
public class VirtualSynchronyProtocol implements SimulatedProtocol {
    public static final String NAME = "virtual-synchrony";

    private final VsyncConfig config;
    /** The layout function; null: the default one-shard group ({@link VsyncEngine#defaultLayout}). */
    private final LayoutFunction layout;
    /**
     * The simulator's {@code --window}: 0, each seed's window is drawn ({@link #withRandomConfig}); else every seed
     * keeps this one. Set only by {@link #withSimulatedWindow} on the copy it returns, and carried by the copies of
     * {@link #copy}, so it is fixed once a protocol is handed out.
     */
    private int simulatedWindow;

    public VirtualSynchronyProtocol() {
        this(VsyncConfig.DEFAULTS);
    }

    public VirtualSynchronyProtocol(VsyncConfig config) {
        this(config, null);
    }

    /** A group divided by {@code layout} into subgroups and shards on every view (derecho.md §1.3). */
    public VirtualSynchronyProtocol(VsyncConfig config, LayoutFunction layout) {
        this.config = config;
        this.layout = layout;
    }

    /** The layout function the engines run on every view. */
    public LayoutFunction layout() {
        return layout == null ? VsyncEngine.defaultLayout(config) : layout;
    }

    public VsyncConfig config() {
        return config;
    }

    @Override
    public String name() {
        return NAME + simulatedWindowFlag();
    }

    @Override
    public Engine createEngine(NodeId self, List<NodeId> members) {
        return newEngine(self, members);
    }

    /**
     * The simulator's engine: the same one, with the prefix hashes of the invariants over every
     * payload byte ({@link VsyncEngine#hashWholePayloads}), work production does not pay for.
     */
    @Override
    public Engine createSimulatedEngine(NodeId self, List<NodeId> members) {
        VsyncEngine engine = newEngine(self, members);
        engine.hashWholePayloads();
        return engine;
    }

    /** The engine of one member; a broken twin in the tests returns its own. */
    protected VsyncEngine newEngine(NodeId self, List<NodeId> members) {
        return new VsyncEngine(self, members, config, layout(), ShardReceiver.NONE);
    }

    /** Every member orders what it receives: a client may talk to any of them, and tries another when one refuses. */
    @Override
    public RoutingPolicy routing() {
        return RoutingPolicy.anyMember();
    }

    /**
     * True: a member orders every request it is given in its own ring (the engine refuses with Unavailable or
     * Overloaded, never with a redirect, so the runtime never forwards one), and every member delivers a group
     * message with the ring's owner, its sender, as the origin (derecho.md §3.2: a ring is one sender's, its
     * slots carry no name), in every view, the trimmed messages a sender sends again included (they go again in
     * its own ring). So a channel leaves its name out of each message (no copy of the payload per send).
     */
    @Override
    public boolean deliversSenderAsOrigin() {
        return true;
    }

    /**
     * Timers, window, chunk size and the rejoin delay drawn within their valid ranges (issue 16). A
     * third of the draws never rejoin by themselves ({@code rejoinNanos} 0, a supervisor restarts the
     * process): the fault model then restarts what an episode may have stopped ({@link #faultModel}).
     */
    @Override
    public VirtualSynchronyProtocol withRandomConfig(RandomGenerator random, int nodes) {
        long heartbeat = SimTime.millis(random.nextInt(5, 31));
        long suspicion = heartbeat * random.nextInt(5, 26);
        long joinRetry = SimTime.millis(random.nextInt(30, 301));
        long rejoin = random.nextInt(3) == 0 ? 0 : SimTime.millis(random.nextInt(50, 401));
        int drawn = 1 << random.nextInt(0, 6);
        int window = simulatedWindow > 0 ? simulatedWindow : drawn;
        int chunk = random.nextBoolean() ? 64 * 1024 : random.nextInt(16, 257);
        VsyncConfig c = new VsyncConfig(Math.max(config.maxMembers(), nodes), window, config.slotBytes(), config.maxQueuedSends(), heartbeat, suspicion, joinRetry, rejoin, chunk,
                config.delivery(), config.maxSmcPayloadBytes(), config.maxLargePayloadBytes(), config.rdmcBlockBytes());
        return copy(c);
    }

    /**
     * This protocol with a host's settings: restart-after-shutdown becomes the rejoin delay (a member
     * that shut itself down asks to join again, as a new process with the state, instead of staying
     * down until a supervisor restarts it: derecho.md §5.2, §5.4). Virtual synchrony has no election,
     * no snapshot threshold and no initial voters: it refuses those.
     */
    @Override
    public VirtualSynchronyProtocol withHostSettings(io.tandem.engine.HostSettings settings) {
        settings.requireOnly(name(), hostSettings());
        if (settings.restartAfterShutdown() == null) return this;
        VsyncConfig c = config;
        return copy(c.withTimers(java.time.Duration.ofNanos(c.heartbeatNanos()), java.time.Duration.ofNanos(c.suspicionNanos()),
                java.time.Duration.ofNanos(c.joinRetryNanos()), settings.restartAfterShutdown()));
    }

    /** Virtual synchrony splits its group into subgroups and shards (derecho.md §1.3). */
    @Override
    public Optional<String> shardingRefused() {
        return Optional.empty();
    }

    /**
     * The group split into an application's shards, one subgroup of this protocol's configuration
     * ({@link ShardedGroupProtocol}); this protocol's own layout, if any, is replaced by it.
     */
    @Override
    public io.tandem.engine.Protocol withShards(io.tandem.engine.ShardLayout layout, io.tandem.engine.ShardedApplication application) {
        if (layout.name().equals(VsyncEngine.GROUP)) throw new IllegalArgumentException("a shard layout cannot be named " + VsyncEngine.GROUP + " (the whole group's subgroup)");
        return new ShardedGroupProtocol(config, layout, application);
    }

    /** This protocol with another configuration. */
    protected VirtualSynchronyProtocol withConfig(VsyncConfig c) {
        return new VirtualSynchronyProtocol(c, layout);
    }

    /** {@link #withConfig}, keeping the simulator's fixed window. */
    private VirtualSynchronyProtocol copy(VsyncConfig c) {
        VirtualSynchronyProtocol p = withConfig(c);
        p.simulatedWindow = simulatedWindow;
        return p;
    }

    /**
     * The simulator's {@code tandem sim --window W}: every seed runs with the send window (ring slots per sender) W
     * instead of the one drawn from the seed (1 to 32), the other drawn settings unchanged (the draw is still made,
     * so a seed's timers are the same with and without it). For checking a window an application or a benchmark
     * uses (issue 22: 512 and 1024 at 1 KiB). The name carries the flag, so a failure's replay line runs the same.
     */
    public VirtualSynchronyProtocol withSimulatedWindow(int window) {
        if (window < 1) throw new IllegalArgumentException("--window must be >= 1, was " + window);
        VirtualSynchronyProtocol p = withConfig(config.withWindow(window, config.slotBytes()));
        p.simulatedWindow = window;
        return p;
    }

    /** The flag of {@link #withSimulatedWindow} for {@link #name()}, or "". */
    protected String simulatedWindowFlag() {
        return simulatedWindow == 0 ? "" : " --window " + simulatedWindow;
    }

    @Override
    public String describeConfig() {
        return "heartbeat=" + SimTime.format(config.heartbeatNanos()) + " suspicion=" + SimTime.format(config.suspicionNanos()) + " joinRetry="
                + SimTime.format(config.joinRetryNanos()) + " rejoin=" + SimTime.format(config.rejoinNanos()) + " window=" + config.window() + " stateChunk="
                + config.stateChunkBytes();
    }

    /**
     * Virtual synchrony survives the loss of a minority at a time and takes failed members back as
     * new members (derecho.md §5.2, §5.12); a majority lost, or every member cut off from a
     * majority, stops it by design. So its generated schedules stay within that model: one episode
     * at a time over at most a minority, and time between episodes for the group to notice, shrink
     * and take the member back (suspicion, view change, the rejoin delay, join retries and the state
     * transfer, with room for a slow disk).
     */
    public MinorityFaultModel faultModel() {
        long recovery = config.suspicionNanos() + config.rejoinNanos() + 3 * config.joinRetryNanos() + SimTime.millis(300);
        long supervisor = config.rejoinNanos() == 0 ? config.suspicionNanos() + SimTime.millis(100) : 0;
        return new MinorityFaultModel(recovery, supervisor);
    }

    @Override
    public FaultSchedule faultSchedule(RandomGenerator random, SimOptions options, List<NodeId> members) {
        return faultModel().generate(random, options, members);
    }

    @Override
    public String describeFaultModel() {
        MinorityFaultModel m = faultModel();
        return "minority episodes one at a time, recovery " + SimTime.format(m.recoveryNanos())
                + (m.supervisorRestartNanos() > 0 ? ", supervisor restart after " + SimTime.format(m.supervisorRestartNanos()) : ", members rejoin by themselves");
    }

    @Override
    public void registerMessages(MessageRegistry registry) {
        VsyncMessage.register(registry);
    }

    /**
     * The virtual-synchrony properties (derecho.md §9.2), checked after every simulated event over
     * the live members; the built-in checks add state-machine safety (the same command at the same
     * index everywhere, across crashes) and linearizability of the clients' history.
     */
    @Override
    public List<SimInvariant> invariants() {
        return List.of(
                SimInvariant.of("vsync-self-check", VirtualSynchronyProtocol::selfChecks),
                SimInvariant.of("vsync-total-order", VirtualSynchronyProtocol::totalOrder),
                SimInvariant.of("vsync-same-view-same-set", VirtualSynchronyProtocol::sameViewSameSet),
                SimInvariant.of("vsync-layout-agreement", VirtualSynchronyProtocol::layoutAgreement),
                SimInvariant.of("vsync-shard-total-order", VirtualSynchronyProtocol::shardTotalOrder),
                SimInvariant.of("vsync-shard-same-view-same-set", new ShardViewRecords()::check));
    }

    private static List<VsyncEngine> live(SimCluster cluster) {
        List<VsyncEngine> out = new ArrayList<>();
        for (NodeId n : cluster.members()) cluster.engine(n, VsyncEngine.class).ifPresent(out::add);
        return out;
    }

    /** No delivery after wedge (outside the trim), and nothing found stable that is not held. */
    static Optional<String> selfChecks(SimCluster cluster) {
        for (VsyncEngine e : live(cluster)) if (e.violation() != null) return Optional.of(e.violation());
        return Optional.empty();
    }

    /** P4: in one view, of two members' delivered sequences one is a prefix of the other. */
    static Optional<String> totalOrder(SimCluster cluster) {
        List<VsyncEngine> engines = live(cluster);
        for (int i = 0; i < engines.size(); i++) {
            for (int j = i + 1; j < engines.size(); j++) {
                VsyncEngine a = engines.get(i);
                VsyncEngine b = engines.get(j);
                if (a.phase() != VsyncEngine.Phase.MEMBER || b.phase() != VsyncEngine.Phase.MEMBER || a.viewId() != b.viewId()) continue;
                long common = Math.min(a.deliveredInView(), b.deliveredInView());
                if (common > 0 && a.prefixHash(common) != b.prefixHash(common)) {
                    return Optional.of("in view " + a.viewId() + " the first " + common + " deliveries differ between " + a.viewMembers() + " members (total order broken)");
                }
            }
        }
        return Optional.empty();
    }

    /** P3/V3: members that left the same view delivered the same sequence in it. */
    static Optional<String> sameViewSameSet(SimCluster cluster) {
        List<NodeId> nodes = new ArrayList<>();
        List<VsyncEngine> engines = new ArrayList<>();
        for (NodeId n : cluster.members()) {
            Optional<VsyncEngine> e = cluster.engine(n, VsyncEngine.class);
            if (e.isPresent()) {
                nodes.add(n);
                engines.add(e.get());
            }
        }
        for (int i = 0; i < engines.size(); i++) {
            for (int j = i + 1; j < engines.size(); j++) {
                Map<Long, long[]> a = engines.get(i).completedViews();
                Map<Long, long[]> b = engines.get(j).completedViews();
                for (Map.Entry<Long, long[]> e : a.entrySet()) {
                    long[] other = b.get(e.getKey());
                    if (other != null && (other[0] != e.getValue()[0] || other[1] != e.getValue()[1])) {
                        return Optional.of(nodes.get(i) + " and " + nodes.get(j) + " both installed the view after " + e.getKey() + " but delivered different messages in view "
                                + e.getKey() + " (" + e.getValue()[0] + " vs " + other[0] + " positions)");
                    }
                }
            }
        }
        return Optional.empty();
    }

    /**
     * V1 for layouts: members that installed the same view computed the same shards (derecho.md §1.3:
     * no agreement step, so a pure function). Compares the layouts' fingerprints (checked after every
     * event, so it must be cheap); the full layouts only to describe a difference.
     */
    static Optional<String> layoutAgreement(SimCluster cluster) {
        List<VsyncEngine> engines = live(cluster);
        for (int i = 0; i < engines.size(); i++) {
            for (int j = i + 1; j < engines.size(); j++) {
                Map<Long, Long> b = engines.get(j).recentLayoutPrints();
                for (Map.Entry<Long, Long> e : engines.get(i).recentLayoutPrints().entrySet()) {
                    Long other = b.get(e.getKey());
                    if (other != null && !other.equals(e.getValue())) {
                        return Optional.of("view " + e.getKey() + " has layout " + shardMembers(engines.get(i).recentLayouts().get(e.getKey())) + " at one member and "
                                + shardMembers(engines.get(j).recentLayouts().get(e.getKey())) + " at another");
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static Map<String, List<List<NodeId>>> shardMembers(Layout l) {
        Map<String, List<List<NodeId>>> out = new java.util.TreeMap<>();
        if (l != null) l.subgroups().forEach((name, shards) -> out.put(name, shards.stream().map(Shard::members).toList()));
        return out;
    }

    /**
     * P4 per shard: in one view, two members' delivered sequences of an ordered shard they both serve
     * are prefixes of one another ({@link VsyncEngine#GROUP}'s shard is {@code vsync-total-order}'s).
     */
    static Optional<String> shardTotalOrder(SimCluster cluster) {
        List<VsyncEngine> engines = live(cluster);
        for (int i = 0; i < engines.size(); i++) {
            for (int j = i + 1; j < engines.size(); j++) {
                VsyncEngine a = engines.get(i);
                VsyncEngine b = engines.get(j);
                if (a.phase() != VsyncEngine.Phase.MEMBER || b.phase() != VsyncEngine.Phase.MEMBER || a.viewId() != b.viewId()) continue;
                for (ShardState sa : a.typedShards()) {
                    if (sa.raw) continue; // raw delivery has no order to agree on (derecho.md §1.5)
                    ShardState sb = b.servedShard(sa.subgroup, sa.shardIndex);
                    if (sb == null) continue;
                    long common = Math.min(sa.deliveredInView(), sb.deliveredInView());
                    if (common > 0 && sa.prefixHash(common) != sb.prefixHash(common)) {
                        return Optional.of("in view " + a.viewId() + " the first " + common + " deliveries of shard " + sa.name() + " differ (total order within the shard broken)");
                    }
                }
            }
        }
        return Optional.empty();
    }

    /**
     * P3/V3 per shard: members that served a shard in a view and both installed the next view delivered
     * the same sequence of it ({@link VsyncEngine#GROUP}'s shard is {@code vsync-same-view-same-set}'s).
     * One object per simulation ({@link #invariants()} is asked once per run): a completed view's record
     * never changes, so each is compared once, when it appears, with the first record of the same view
     * and shard from any member, crashed ones included (pairwise over all records after every event
     * was most of a sharded run's time).
     */
    static final class ShardViewRecords {
        private final Map<VsyncEngine, Long> checkedThrough = new java.util.IdentityHashMap<>();
        private final Map<Long, Map<ShardId, long[]>> first = new java.util.HashMap<>();
        private final Map<Long, Map<ShardId, NodeId>> firstBy = new java.util.HashMap<>();

        Optional<String> check(SimCluster cluster) {
            for (NodeId n : cluster.members()) {
                Optional<VsyncEngine> e = cluster.engine(n, VsyncEngine.class);
                if (e.isEmpty()) continue;
                java.util.NavigableMap<Long, Map<ShardId, long[]>> records = e.get().completedShardViews();
                if (records.isEmpty()) continue;
                Long through = checkedThrough.get(e.get());
                Map<Long, Map<ShardId, long[]>> fresh = through == null ? records : records.tailMap(through, false);
                for (Map.Entry<Long, Map<ShardId, long[]>> v : fresh.entrySet()) {
                    Map<ShardId, long[]> known = first.computeIfAbsent(v.getKey(), k -> new java.util.HashMap<>());
                    Map<ShardId, NodeId> by = firstBy.computeIfAbsent(v.getKey(), k -> new java.util.HashMap<>());
                    for (Map.Entry<ShardId, long[]> s : v.getValue().entrySet()) {
                        long[] o = known.putIfAbsent(s.getKey(), s.getValue());
                        if (o == null) {
                            by.put(s.getKey(), n);
                        } else if (o[0] != s.getValue()[0] || o[1] != s.getValue()[1]) {
                            return Optional.of(by.get(s.getKey()) + " and " + n + " both left view " + v.getKey() + " but delivered different messages of shard " + s.getKey()
                                    + " in it (" + o[0] + " vs " + s.getValue()[0] + " positions)");
                        }
                    }
                }
                checkedThrough.put(e.get(), records.lastKey());
            }
            return Optional.empty();
        }
    }
}
