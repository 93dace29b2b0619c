package io.tandem.protocols.vsync;

import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.vsync.layout.DeliveryMode;
import io.tandem.protocols.vsync.layout.LayoutFunction;
import io.tandem.protocols.vsync.layout.ShardAllocator;
import io.tandem.protocols.vsync.layout.SubgroupPolicy;
import io.tandem.sim.Fault;
import io.tandem.sim.FaultSchedule;
import io.tandem.sim.SimCluster;
import io.tandem.sim.SimInvariant;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimTime;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * Virtual synchrony's shards in the simulator, for {@code ./tandem sim --protocol virtual-synchrony
 * --shards N [--durable]} (issue 23; derecho.md §1.3, §4.6, §5.6, §5.9). Every member multicasts a
 * numbered message in each shard it serves on every heartbeat (simulation traffic through
 * {@link VsyncEngine#orderedSend}); the engine is the production one.
 *
 * <ul>
 *   <li><b>Ordered</b> ({@link #ordered}): subgroups {@code group} (every member: the clients'
 *       registers, linearizability as for the unsharded protocol), {@code kv} of N shards of exactly one
 *       member (every failure of one moves a spare in) and {@code log} of one shard of 2..3 members, placed independently, so members serve
 *       several subgroups at once and shards move as views change. Faults: the protocol's minority
 *       episodes. Checks after every event: the engine's invariants (per-shard total order, per-shard
 *       same view same set, layout agreement, no delivery after wedge) and {@code vsync-shard-traffic}
 *       (a message never crosses shards; each sender's messages arrive in the order sent).</li>
 *   <li><b>Durable</b> ({@link #durable}): subgroups {@code store} (one durable shard of every member)
 *       and {@code kv} (N durable shards of 1..3), no clients (a total failure loses the volatile
 *       {@code group} state by design). Faults ({@link #totalFailures}): total failures (a power cut
 *       half of the time) with restarts in two waves, single crashes between them. Checks: the
 *       engine's invariants, {@code vsync-shard-traffic} and {@code vsync-durable-survives} (every
 *       message any member was told is persisted is delivered, at that version with that payload, by
 *       every member that holds the shard's history and delivered past it; versions only grow).</li>
 * </ul>
 *
 * {@link #report()} sums what the seeds did (shard moves, a member's most subgroups, deliveries,
 * persisted upcalls, restart views, history copies), so a run shows that the cases were reached.
 */
public final class ShardSimulation extends VirtualSynchronyProtocol {
    private final int shards;
    private final boolean durable;
    private final Stats stats;
    private final LayoutFunction layoutFunction;

    /** What the seeds run with one {@link ShardSimulation} (and its reconfigured copies) did. */
    public static final class Stats {
        long seeds;
        long shardMoves;
        int maxSubgroups;
        long delivered;
        long persisted;
        long replays;
        long restartViews;
        long historiesCopied;
        /** The current seed's recorder and engines (seeds run one after another). */
        Recorder recorder = new Recorder();
        final List<Traffic> engines = new ArrayList<>();
        final Map<NodeId, Integer> incarnations = new HashMap<>();

        /** A new seed: counts the last one's engines (every incarnation) and starts afresh. */
        void nextSeed() {
            closeSeed();
            recorder = new Recorder();
            incarnations.clear();
            seeds++;
        }

        private void closeSeed() {
            // Summed over every incarnation: each counts what it installed or copied itself.
            for (Traffic e : engines) {
                shardMoves += e.shardMoves();
                restartViews += e.restarts();
                historiesCopied += e.historiesCopied();
            }
            engines.clear();
            delivered += recorder.delivered;
            persisted += recorder.persistedSignals;
            replays += recorder.replays;
            recorder.delivered = recorder.persistedSignals = recorder.replays = 0;
        }
    }

    private ShardSimulation(VsyncConfig config, int shards, boolean durable, Stats stats) {
        super(config, layout(config, shards, durable));
        this.shards = shards;
        this.durable = durable;
        this.stats = stats;
        this.layoutFunction = layout(config, shards, durable);
    }

    /**
     * The sharded simulation of {@code base}'s configuration.
     *
     * @throws IllegalArgumentException if {@code base} is not virtual synchrony (naming it), or the
     *         shards cannot be filled by the majority of {@code nodes} that the fault model keeps
     */
    public static ShardSimulation over(Protocol base, int shards, boolean durable, int nodes) {
        if (!(base instanceof VirtualSynchronyProtocol v) || base instanceof ShardSimulation) {
            throw new IllegalArgumentException(base.shardingRefused().orElse(base.name() + " has no sharded simulation"));
        }
        int majority = nodes / 2 + 1;
        if (shards < 1) throw new IllegalArgumentException("--shards must be >= 1, was " + shards);
        // Every view keeps a majority; each shard of kv needs one member of it (log two, store one).
        if (shards > majority) {
            throw new IllegalArgumentException("--shards " + shards + " cannot be filled by a majority of " + nodes + " nodes (" + majority + "): use at most " + majority
                    + " shards or more --nodes");
        }
        return new ShardSimulation(v.config(), shards, durable, new Stats());
    }

    /** Two shards, ordered (the layout of {@code ShardedVsyncSimulationTest}). */
    public static ShardSimulation ordered(VsyncConfig config, int shards) {
        return new ShardSimulation(config, shards, false, new Stats());
    }

    /** Durable shards with total failures (the layout of {@code DurableVsyncSimulationTest}). */
    public static ShardSimulation durable(VsyncConfig config, int shards) {
        return new ShardSimulation(config, shards, true, new Stats());
    }

    static LayoutFunction layout(VsyncConfig config, int shards, boolean durable) {
        if (durable) {
            return LayoutFunction.overlapping(List.of(
                    new ShardAllocator(List.of(new SubgroupPolicy("store", 1, 1, config.maxMembers(), DeliveryMode.DURABLE))),
                    new ShardAllocator(List.of(new SubgroupPolicy("kv", shards, 1, 3, DeliveryMode.DURABLE)))));
        }
        return LayoutFunction.overlapping(List.of(
                new ShardAllocator(List.of(new SubgroupPolicy(VsyncEngine.GROUP, 1, 1, config.maxMembers(), DeliveryMode.ORDERED))),
                // kv shards of exactly one member: every failure of one moves a spare member in (a reassignment per view change).
                new ShardAllocator(List.of(new SubgroupPolicy("kv", shards, 1, 1, DeliveryMode.ORDERED))),
                new ShardAllocator(List.of(new SubgroupPolicy("log", 1, 2, 3, DeliveryMode.ORDERED)))));
    }

    /** Whether the shards are durable (then the run has no clients: see the class comment). */
    public boolean isDurable() {
        return durable;
    }

    /** The options this simulation needs: a durable run has no clients' operations (a total failure loses the volatile group state). */
    public SimOptions adapt(SimOptions options) {
        if (!durable) return options;
        SimOptions o = options.withWorkload(options.nodes(), 1, 0);
        return o.withTiming(o.durationNanos(), o.opTimeoutNanos(), o.livenessNanos(), 0);
    }

    /** The name carries the flags, so that the replay line of a failure runs the same simulation. */
    @Override
    public String name() {
        return NAME + " --shards " + shards + (durable ? " --durable" : "") + simulatedWindowFlag();
    }

    @Override
    protected VsyncEngine newEngine(NodeId self, List<NodeId> members) {
        int n = stats.incarnations.merge(self, 1, Integer::sum);
        Traffic e = new Traffic(self, members, config(), layoutFunction, new Receiver(self, stats.recorder, n == 1), stats);
        stats.engines.add(e);
        return e;
    }

    @Override
    protected VirtualSynchronyProtocol withConfig(VsyncConfig c) {
        return new ShardSimulation(c, shards, durable, stats);
    }

    @Override
    public FaultSchedule faultSchedule(RandomGenerator random, SimOptions options, List<NodeId> members) {
        return durable ? totalFailures(random, options.durationNanos(), members) : super.faultSchedule(random, options, members);
    }

    @Override
    public String describeFaultModel() {
        return durable ? "total failures (a power cut half of the time), restarts in two waves, single crashes between them" : super.describeFaultModel();
    }

    /** A new seed starts here (the simulator asks for the invariants once per run, before any engine). */
    @Override
    public List<SimInvariant> invariants() {
        stats.nextSeed();
        Recorder recorder = stats.recorder;
        List<SimInvariant> all = new ArrayList<>(super.invariants());
        all.add(SimInvariant.of("vsync-shard-traffic", c -> Optional.ofNullable(recorder.trafficViolation)));
        if (durable) all.add(SimInvariant.of("vsync-durable-survives", recorder::check));
        return all;
    }

    /** What the seeds so far did, one line. */
    public String report() {
        stats.closeSeed();
        return String.format(java.util.Locale.ROOT, "shards: seeds=%d shard-moves=%d max-subgroups-of-one-member=%d shard-deliveries=%d%s", stats.seeds, stats.shardMoves,
                stats.maxSubgroups, stats.delivered, durable ? " persisted-upcalls=" + stats.persisted + " replays=" + stats.replays + " restart-views=" + stats.restartViews
                        + " histories-copied=" + stats.historiesCopied : "");
    }

    /** Total failures with restarts in two waves, and single crashes between them. */
    static FaultSchedule totalFailures(RandomGenerator random, long durationNanos, List<NodeId> members) {
        List<Fault.Scheduled> events = new ArrayList<>();
        int n = members.size();
        long t = SimTime.millis(300) + random.nextLong(SimTime.millis(300));
        while (t < durationNanos - SimTime.millis(1500)) {
            if (random.nextInt(3) == 0) {
                // One member crashes and comes back while the group lives: it rejoins and copies the histories.
                NodeId x = members.get(random.nextInt(n));
                events.add(new Fault.Scheduled(t, new Fault.Crash(x)));
                t += SimTime.millis(50) + random.nextLong(SimTime.millis(250));
                events.add(new Fault.Scheduled(t, new Fault.Restart(x)));
                t += SimTime.millis(500) + random.nextLong(SimTime.millis(300));
            }
            List<NodeId> up = new ArrayList<>(members);
            if (random.nextBoolean()) {
                // One member goes first (half of the time the restart leader): its log is then stale.
                NodeId first = random.nextBoolean() ? members.getFirst() : members.get(random.nextInt(n));
                events.add(new Fault.Scheduled(t, new Fault.Crash(first)));
                up.remove(first);
                t += SimTime.millis(150) + random.nextLong(SimTime.millis(350));
            }
            // Half of the total failures take every member at one instant (a power cut: what was not synced is gone everywhere).
            boolean instant = random.nextBoolean();
            for (NodeId x : up) events.add(new Fault.Scheduled(t + (instant ? 0 : random.nextLong(SimTime.millis(40))), new Fault.Crash(x)));
            t += SimTime.millis(60) + random.nextLong(SimTime.millis(200));
            List<NodeId> early = new ArrayList<>();
            List<NodeId> late = new ArrayList<>();
            for (NodeId x : members) (random.nextBoolean() ? early : late).add(x);
            if (early.isEmpty()) early.add(late.removeFirst());
            for (NodeId x : early) events.add(new Fault.Scheduled(t, new Fault.Restart(x)));
            t += SimTime.millis(200) + random.nextLong(SimTime.millis(600));
            for (NodeId x : late) events.add(new Fault.Scheduled(t, new Fault.Restart(x)));
            t += SimTime.millis(1000) + random.nextLong(SimTime.millis(500));
        }
        return new FaultSchedule(events);
    }

    /** Multicasts a numbered message in each shard it serves (but {@code group}) on every heartbeat. */
    private static final class Traffic extends VsyncEngine {
        private final Stats stats;
        private long sent;

        Traffic(NodeId self, List<NodeId> members, VsyncConfig config, LayoutFunction layout, Receiver receiver, Stats stats) {
            super(self, members, config, layout, receiver);
            this.stats = stats;
        }

        @Override
        public void onTimer(TimerKey key) {
            super.onTimer(key);
            if (!(key instanceof Heartbeat) || phase() != Phase.MEMBER) return;
            List<ShardId> mine = myShards();
            stats.maxSubgroups = Math.max(stats.maxSubgroups, mine.size());
            for (ShardId s : mine) {
                if (s.subgroup().equals(GROUP)) continue;
                if (orderedSend(s, (s + "#" + sent).getBytes(StandardCharsets.UTF_8)) == null) sent++;
            }
        }
    }

    /**
     * One seed's record: every member's deliveries per shard and the messages any member was told are
     * persisted; a violation is kept (the first) and reported by the invariants after the event.
     */
    static final class Recorder {
        final Map<ShardId, TreeMap<Long, Long>> durable = new HashMap<>();
        final Map<NodeId, Receiver> latest = new HashMap<>();
        String violation;
        String trafficViolation;
        long persistedSignals;
        long replays;
        long delivered;

        void fail(String message) {
            if (violation == null) violation = message;
        }

        /** The first durability violation seen, for an invariant ({@code vsync-durable-survives}). */
        Optional<String> check(io.tandem.sim.SimCluster cluster) {
            return Optional.ofNullable(violation);
        }

        /** {@code node} was told that its messages of {@code shard} up to {@code version} are persisted everywhere. */
        void persisted(NodeId node, ShardId shard, Map.Entry<Long, Long> e) {
            TreeMap<Long, Long> d = durable.computeIfAbsent(shard, k -> new TreeMap<>());
            Long before = d.putIfAbsent(e.getKey(), e.getValue());
            if (before != null && !before.equals(e.getValue())) fail(node + " persisted another message at version " + version(e.getKey()) + " of " + shard);
            if (before != null) return;
            // Every member holding the shard's history that delivered past this version delivered it.
            for (Receiver r : latest.values()) {
                TreeMap<Long, Long> seq = r.seq.get(shard);
                if (seq == null || !r.full.getOrDefault(shard, false) || seq.isEmpty() || seq.lastKey() < e.getKey()) continue;
                Long h = seq.get(e.getKey());
                if (!e.getValue().equals(h)) fail(r.node + " delivered past persisted version " + version(e.getKey()) + " of " + shard + " without delivering it");
            }
        }
    }

    /** A version as view.index; "nothing" for the -1 before a shard's first delivery. */
    static String version(long v) {
        if (v < 0) return "nothing";
        return (v >>> 32) + "." + (v & 0xffffffffL);
    }

    /** One incarnation's receiver: checks what it is given and records it (tests extend it to watch a scenario). */
    static class Receiver implements ShardReceiver {
        final NodeId node;
        final Recorder recorder;
        final boolean fresh;
        final Map<ShardId, TreeMap<Long, Long>> seq = new HashMap<>();
        /** Whether this incarnation's sequence of the shard starts at its first message (view 1, or a replay). */
        final Map<ShardId, Boolean> full = new HashMap<>();
        final Map<ShardId, Long> signaled = new HashMap<>();
        /** Per shard, sender and view: the number of the last message delivered. */
        final Map<String, Long> lastFrom = new HashMap<>();

        Receiver(NodeId node, Recorder recorder, boolean fresh) {
            this.node = node;
            this.recorder = recorder;
            this.fresh = fresh;
            recorder.latest.put(node, this);
        }

        @Override
        public void replayStarts(ShardId shard) {
            seq.put(shard, new TreeMap<>());
            full.put(shard, true);
            signaled.remove(shard);
            recorder.replays++;
        }

        @Override
        public void deliver(ShardId shard, NodeId sender, long version, byte[] payload) {
            recorder.delivered++;
            checkTraffic(shard, sender, version, payload);
            TreeMap<Long, Long> s = seq.computeIfAbsent(shard, k -> {
                // A first delivery without a replay: only a member of the initial view starts at the first message.
                full.put(shard, fresh && (version >>> 32) == 1);
                return new TreeMap<>();
            });
            long last = s.isEmpty() ? -1 : s.lastKey();
            if (version <= last) recorder.fail(node + " delivered version " + version(version) + " of " + shard + " after " + version(last));
            long hash = Arrays.hashCode(payload) * 31L + sender.value().hashCode();
            if (full.getOrDefault(shard, false)) {
                TreeMap<Long, Long> d = recorder.durable.getOrDefault(shard, new TreeMap<>());
                var skipped = d.subMap(last, false, version, false);
                if (!skipped.isEmpty()) recorder.fail(node + " skipped persisted version " + version(skipped.firstKey()) + " of " + shard + " (delivered " + version(version) + " after " + version(last) + ")");
                Long h = d.get(version);
                if (h != null && h != hash) recorder.fail(node + " delivered another message at persisted version " + version(version) + " of " + shard);
            }
            s.put(version, hash);
        }

        /** A message never crosses shards, and each sender's messages arrive in the order it sent them (within a view). */
        private void checkTraffic(ShardId shard, NodeId sender, long version, byte[] payload) {
            String text = new String(payload, StandardCharsets.UTF_8);
            int hash = text.indexOf('#');
            if (hash < 0 || !text.substring(0, hash).equals(shard.toString())) {
                if (recorder.trafficViolation == null) recorder.trafficViolation = node + ": " + shard + " delivered " + text;
                return;
            }
            long n = Long.parseLong(text.substring(hash + 1));
            Long before = lastFrom.put(shard + " " + sender + " " + (version >>> 32), n);
            if (before != null && before >= n && recorder.trafficViolation == null) {
                recorder.trafficViolation = node + ": " + shard + " delivered " + sender + "'s #" + n + " after its #" + before;
            }
        }

        @Override
        public void persisted(ShardId shard, long version) {
            recorder.persistedSignals++;
            TreeMap<Long, Long> s = seq.get(shard);
            if (s == null) return;
            long from = signaled.getOrDefault(shard, -1L);
            if (version <= from) recorder.fail(node + " was told " + shard + " persisted to " + version(version) + " after " + version(from));
            signaled.put(shard, version);
            for (Map.Entry<Long, Long> e : s.subMap(from, false, version, true).entrySet()) recorder.persisted(node, shard, e);
        }
    }
}
