package io.tandem.protocols.vsync;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.vsync.layout.Layout;
import io.tandem.protocols.vsync.layout.LayoutFunction;
import io.tandem.protocols.vsync.layout.LayoutResult;
import io.tandem.protocols.vsync.layout.ShardAllocator;
import io.tandem.protocols.vsync.layout.SubgroupPolicy;
import io.tandem.protocols.vsync.layout.DeliveryMode;
import io.tandem.sim.SimFailure;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.Simulation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Subgroups and shards in the simulator (derecho.md §1.3, §4, §5.6 per shard): five members, the
 * whole-group subgroup taking the clients' commands (state machine, linearizability as before), a
 * subgroup {@code kv} of two shards of 1..2 members and a subgroup {@code log} of one shard of 2..3
 * members placed independently, so members serve several subgroups at once. Every member multicasts
 * in each shard it serves on every heartbeat (test traffic through {@link VsyncEngine#orderedSend}).
 * Faults: the minority episodes of {@link VsyncSimulationTest#minorityFaults}; a removed member's
 * shard is refilled from the unassigned member, so shards are reassigned as views change. After
 * every event: per-shard total order, per-shard same view same set, layout agreement, no delivery
 * after wedge, plus the group's checks.
 *
 * <p>The default build runs 10 seeds (about a second of CPU each); {@code -Dvsync.shards=true} runs
 * 500, {@code -Dvsync.shards.seeds=N} any number, from {@code -Dvsync.shards.first=SEED}.
 */
class ShardedVsyncSimulationTest {
    private static final int SEEDS = Integer.getInteger("vsync.shards.seeds", Boolean.getBoolean("vsync.shards") ? 500 : 10);
    private static final long FIRST = Long.getLong("vsync.shards.first", 1);

    static LayoutFunction layout(VsyncConfig config) {
        return LayoutFunction.overlapping(List.of(
                new ShardAllocator(List.of(new SubgroupPolicy(VsyncEngine.GROUP, 1, 1, config.maxMembers(), DeliveryMode.ORDERED))),
                new ShardAllocator(List.of(new SubgroupPolicy("kv", 2, 1, 2, DeliveryMode.ORDERED))),
                new ShardAllocator(List.of(new SubgroupPolicy("log", 1, 2, 3, DeliveryMode.ORDERED)))));
    }

    /** An engine that multicasts a numbered message in each shard it serves on every heartbeat (test traffic). */
    static class TrafficEngine extends VsyncEngine {
        long sent;
        long delivered;
        int maxSubgroups;
        /** Whether each heartbeat also asks another member of each shard for its delivery count (p2p_send). */
        boolean queries;
        long queriesSent;
        long repliesReceived;
        long logDelivered;

        final NodeId me;

        TrafficEngine(NodeId self, List<NodeId> members, VsyncConfig config, LayoutFunction layout, Counter counter) {
            super(self, members, config, layout, counter);
            this.me = self;
            counter.engine = this;
        }

        @Override
        public void onTimer(TimerKey key) {
            super.onTimer(key);
            if (!(key instanceof Heartbeat) || phase() != Phase.MEMBER) return;
            List<ShardId> mine = myShards();
            maxSubgroups = Math.max(maxSubgroups, mine.size());
            for (ShardId s : mine) {
                if (s.subgroup().equals(GROUP)) continue;
                if (orderedSend(s, (s + "#" + sent).getBytes(StandardCharsets.UTF_8)) == null) sent++;
                if (!queries) continue;
                for (NodeId m : layout().shard(s.subgroup(), s.index()).members()) {
                    if (m.equals(me)) continue;
                    p2pSend(m, s, s.toString().getBytes(StandardCharsets.UTF_8));
                    queriesSent++;
                    break;
                }
            }
        }
    }

    static final class Counter implements ShardReceiver {
        TrafficEngine engine;
        final java.util.Map<ShardId, Long> deliveredIn = new java.util.HashMap<>();
        /** Per shard, sender and view: the number of the last message delivered. */
        final java.util.Map<String, Long> lastFrom = new java.util.HashMap<>();

        @Override
        public byte[] query(ShardId shard, NodeId from, byte[] request) {
            // Only a member serving the shard answers (the engine drops queries for a shard it does not serve).
            if (!engine.myShards().contains(shard)) throw new AssertionError(engine.me + " asked about " + shard + " which it does not serve");
            if (!new String(request, StandardCharsets.UTF_8).equals(shard.toString())) throw new AssertionError("query for " + shard + " carried " + new String(request, StandardCharsets.UTF_8));
            return (shard + "=" + deliveredIn.getOrDefault(shard, 0L)).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public void reply(long queryId, NodeId from, byte[] answer) {
            if (!new String(answer, StandardCharsets.UTF_8).matches("[a-z]+/[0-9]+=[0-9]+")) throw new AssertionError("reply " + new String(answer, StandardCharsets.UTF_8));
            engine.repliesReceived++;
        }

        @Override
        public void deliver(ShardId shard, NodeId sender, long version, byte[] payload) {
            engine.delivered++;
            if (shard.subgroup().equals("log")) engine.logDelivered++;
            deliveredIn.merge(shard, 1L, Long::sum);
            // The payload names the shard it was sent to: a message never crosses shards.
            String text = new String(payload, StandardCharsets.UTF_8);
            if (!text.startsWith(shard + "#")) throw new AssertionError(shard + " delivered " + text);
            // Each sender's messages arrive in the order it sent them, in ordered and raw shards alike (derecho.md §1.5).
            long n = Long.parseLong(text.substring(text.indexOf('#') + 1));
            Long before = lastFrom.put(shard + " " + sender + " " + (version >>> 32), n);
            if (before != null && before >= n) throw new AssertionError(shard + " delivered " + sender + "'s #" + n + " after its #" + before);
        }
    }

    static VirtualSynchronyProtocol sharded(VsyncConfig config, LayoutFunction layout, String name) {
        return sharded(config, layout, name, false);
    }

    static VirtualSynchronyProtocol sharded(VsyncConfig config, LayoutFunction layout, String name, boolean queries) {
        return new VirtualSynchronyProtocol(config, layout) {
            @Override
            public String name() {
                return name;
            }

            @Override
            protected VsyncEngine newEngine(NodeId self, List<NodeId> members) {
                TrafficEngine e = new TrafficEngine(self, members, config, layout, new Counter());
                e.queries = queries;
                return e;
            }

            @Override
            protected VirtualSynchronyProtocol withConfig(VsyncConfig c) {
                return sharded(c, layout, name, queries);
            }
        };
    }

    record Stats(List<SimResult> failures, long moves, long delivered, int maxSubgroups, int seeds, long queries, long replies, long logDelivered) {}

    static Stats run(VirtualSynchronyProtocol protocol, long first, int seeds, int maxFailures) {
        List<SimResult> failures = new ArrayList<>();
        long moves = 0;
        long delivered = 0;
        int maxSubgroups = 0;
        int ran = 0;
        long queries = 0;
        long replies = 0;
        long logDelivered = 0;
        SimOptions base = VsyncSimulationTest.base();
        for (long seed = first; seed < first + seeds && failures.size() < maxFailures; seed++) {
            SimOptions o = base.withSeed(seed).withSchedule(VsyncSimulationTest.minorityFaults(seed, base.durationNanos()));
            Simulation sim = new Simulation(protocol, o);
            SimResult r = sim.run();
            ran++;
            if (!r.passed()) failures.add(r);
            for (NodeId n : sim.members()) {
                var e = sim.engine(n, TrafficEngine.class);
                if (e.isEmpty()) continue;
                moves += e.get().shardMoves();
                delivered += e.get().delivered;
                maxSubgroups = Math.max(maxSubgroups, e.get().maxSubgroups);
                queries += e.get().queriesSent;
                replies += e.get().repliesReceived;
                logDelivered += e.get().logDelivered;
            }
        }
        System.out.println(protocol.name() + ": seeds=" + ran + " failures=" + failures.size() + " shard moves=" + moves + " shard deliveries=" + delivered + " p2p queries=" + queries + " replies=" + replies + " log deliveries=" + logDelivered);
        return new Stats(failures, moves, delivered, maxSubgroups, ran, queries, replies, logDelivered);
    }

    private static String describe(List<SimResult> failures) {
        return failures.stream().map(SimRunner::describeFailure).reduce("", String::concat);
    }

    @Test
    void everyShardKeepsVirtualSynchronyWhileShardsAreReassigned() {
        Stats s = run(sharded(VsyncSimulationTest.SIM, layout(VsyncSimulationTest.SIM), "vsync-sharded"), FIRST, SEEDS, 3);
        assertThat(s.failures()).as(describe(s.failures())).isEmpty();
        assertThat(s.delivered()).as("messages delivered in the kv and log shards").isPositive();
        assertThat(s.moves()).as("shard reassignments at view changes").isPositive();
        assertThat(s.maxSubgroups()).as("a member serving group, kv and log at once").isEqualTo(3);
    }

    /** p2p_send (derecho.md §1.4): queries to another member of each shard served are answered by members serving it. */
    @Test
    void pointToPointQueriesAreAnsweredByTheShardsMembers() {
        Stats s = run(sharded(VsyncSimulationTest.SIM, layout(VsyncSimulationTest.SIM), "vsync-sharded-p2p", true), 1, 3, 1);
        assertThat(s.failures()).as(describe(s.failures())).isEmpty();
        assertThat(s.queries()).isPositive();
        // Replies come back for most queries; the rest were asked of a member that crashed, was cut off or left the shard.
        assertThat(s.replies()).as("replies to %d queries", s.queries()).isGreaterThan(s.queries() / 2);
    }

    /** A raw subgroup beside ordered ones (derecho.md §1.5): delivered at once, per-sender FIFO, no total order to check. */
    @Test
    void aRawShardDeliversBesideOrderedOnes() {
        VsyncConfig c = VsyncSimulationTest.SIM;
        LayoutFunction mixed = LayoutFunction.overlapping(List.of(
                new ShardAllocator(List.of(new SubgroupPolicy(VsyncEngine.GROUP, 1, 1, c.maxMembers(), DeliveryMode.ORDERED))),
                new ShardAllocator(List.of(new SubgroupPolicy("kv", 2, 1, 2, DeliveryMode.ORDERED))),
                new ShardAllocator(List.of(new SubgroupPolicy("log", 1, 2, 3, DeliveryMode.RAW)))));
        Stats s = run(sharded(c, mixed, "vsync-sharded-raw"), 1, 3, 1);
        assertThat(s.failures()).as(describe(s.failures())).isEmpty();
        assertThat(s.logDelivered()).as("messages delivered in the raw log shard").isPositive();
    }

    @Test
    void theLayoutIsComputedTheSameOnEveryMemberAndKeepsMembersInPlace() {
        LayoutFunction f = layout(VsyncSimulationTest.SIM);
        List<NodeId> five = List.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"), NodeId.of("n4"), NodeId.of("n5"));
        Layout first = ((LayoutResult.Adequate) f.allocate(Layout.EMPTY, five)).layout();
        assertThat(first.shardsOf(NodeId.of("n1"))).hasSize(3); // group, kv/0, log/0: overlapping subgroups
        assertThat(f.allocate(Layout.EMPTY, five)).isEqualTo(new LayoutResult.Adequate(first)); // deterministic
        // n1 leaves: its kv shard is refilled from the member kv left unassigned (n5), and nobody else moves.
        Layout second = ((LayoutResult.Adequate) f.allocate(first, five.subList(1, 5))).layout();
        assertThat(second.shard("kv", 0).members()).contains(NodeId.of("n5"));
        assertThat(second.shard("kv", 1).members()).isEqualTo(first.shard("kv", 1).members());
        // Inadequate when log cannot get its two members.
        assertThat(f.allocate(second, List.of(NodeId.of("n2")))).isInstanceOf(LayoutResult.Inadequate.class);
    }

    // ---- broken twins (test code only) must be caught ----

    /** A shard that delivers what this member holds without waiting for every shard member to hold it. */
    @Test
    void aShardDeliveringBeforeShardStabilityIsCaught() {
        VsyncConfig c = VsyncSimulationTest.SIM;
        LayoutFunction layout = layout(c);
        VirtualSynchronyProtocol broken = new VirtualSynchronyProtocol(c, layout) {
            @Override
            public String name() {
                return "vsync-broken-shard-delivery-before-stability";
            }

            @Override
            protected VsyncEngine newEngine(NodeId self, List<NodeId> members) {
                return new TrafficEngine(self, members, c, layout, new Counter()) {
                    @Override
                    protected long stableCount(ShardId shard) {
                        return shard.subgroup().equals(GROUP) ? super.stableCount(shard) : ownSeq(shard);
                    }
                };
            }
        };
        caught(broken, 60);
    }

    /** A layout computed from local state: each member puts itself first, so members disagree on the shards. */
    @Test
    void aLayoutComputedFromLocalStateIsCaught() {
        VsyncConfig c = VsyncSimulationTest.SIM;
        LayoutFunction good = layout(c);
        VirtualSynchronyProtocol broken = new VirtualSynchronyProtocol(c, good) {
            @Override
            public String name() {
                return "vsync-broken-local-layout";
            }

            @Override
            protected VsyncEngine newEngine(NodeId self, List<NodeId> members) {
                LayoutFunction local = new LayoutFunction() {
                    @Override
                    public List<String> subgroups() {
                        return good.subgroups();
                    }

                    @Override
                    public int maxShards(String subgroup) {
                        return good.maxShards(subgroup);
                    }

                    @Override
                    public LayoutResult allocate(Layout previous, List<NodeId> view) {
                        List<NodeId> mine = new ArrayList<>(view);
                        if (mine.remove(self)) mine.addFirst(self);
                        return good.allocate(previous, mine);
                    }
                };
                return new TrafficEngine(self, members, c, local, new Counter());
            }
        };
        caught(broken, 20);
    }

    private static void caught(VirtualSynchronyProtocol broken, int seeds) {
        Stats s = run(broken, 1, seeds, 1);
        assertThat(s.failures()).as("%s survived %d seeds", broken.name(), s.seeds()).isNotEmpty();
        SimResult r = s.failures().getFirst();
        SimFailure f = r.failure().orElseThrow();
        System.out.println(broken.name() + " caught at seed " + r.seed() + ": " + f.check() + ": " + f.message());
        assertThat(f.kind()).isNotEqualTo(SimFailure.Kind.LIVENESS);
    }
}
