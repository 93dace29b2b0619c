package io.tandem.protocols.vsync;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.engine.TimerKey;
import io.tandem.protocols.vsync.layout.Layout;
import io.tandem.protocols.vsync.layout.LayoutFunction;
import io.tandem.sim.SimFailure;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.Simulation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Large messages in the simulator (derecho.md §3.3-§3.4, §5.6): the layout of
 * {@link ShardedVsyncSimulationTest} (five members; {@code group} with the clients' commands,
 * {@code kv} two shards of 1..2, {@code log} one shard of 2..3), and every member multicasting in
 * each {@code kv}/{@code log} shard it serves on every heartbeat a mix of small messages (in the SMC
 * slot) and large ones (465..3,464 bytes with a 464-byte SMC threshold: header in the slot, payload
 * by RDMC in blocks of 256 bytes, up to 14 blocks). Faults: the minority episodes of
 * {@link VsyncSimulationTest#minorityFaults} (crashes, pauses, partitions), which land in the middle
 * of transfers; the simulator's network loses, duplicates and reorders engine messages (1 %, 1 %,
 * 5 %), so RDMC's repeated asks are exercised too.
 *
 * <p>Checked after every event: the engine's invariants (per-shard total order, per-shard same view
 * same set, no delivery after wedge, layout agreement, the group's own checks); at every delivery, that
 * the payload is exactly the bytes sent (the pattern named by its header) and each sender's messages
 * come in the order sent.
 *
 * <p>The default build runs 10 seeds; {@code -Dvsync.large=true} runs 500, {@code -Dvsync.large.seeds=N}
 * any number from {@code -Dvsync.large.first=SEED}.
 */
class LargeMessageSimulationTest {
    private static final int SEEDS = Integer.getInteger("vsync.large.seeds", Boolean.getBoolean("vsync.large") ? 500 : 10);
    private static final long FIRST = Long.getLong("vsync.large.first", 1);

    /** Slots of 512 bytes: up to 464 bytes go by SMC; up to 8 KiB by RDMC in blocks of 256 bytes. */
    static final VsyncConfig CONFIG = VsyncSimulationTest.SIM.withLargeMessages(0, 8192, 256);

    /** The payload of message {@code n} of {@code sender} in {@code shard}: a text header, then bytes that depend on all three and the position. */
    static byte[] payload(ShardId shard, NodeId sender, long n, int size) {
        byte[] head = (shard + "#" + sender + "#" + n + "#" + size + "#").getBytes(StandardCharsets.UTF_8);
        byte[] p = new byte[Math.max(size, head.length)];
        System.arraycopy(head, 0, p, 0, head.length);
        int seed = (int) (n * 0x9E3779B1L) ^ sender.hashCode();
        for (int i = head.length; i < p.length; i++) p[i] = (byte) (seed + i * 31 + (i >>> 8));
        return p;
    }

    /** Every third message large (465..3,464 bytes), the others small (40..239 bytes). */
    static int sizeOf(long n) {
        return n % 3 == 0 ? 465 + (int) (n * 797 % 3000) : 40 + (int) (n * 37 % 200);
    }

    /** Multicasts a mixed-size numbered message in each typed shard it serves on every heartbeat; watches its large transfers. */
    static class MixedEngine extends VsyncEngine {
        final NodeId me;
        final Receiver receiver;
        long sent;
        long largeSent;
        /** Large messages whose header this member read in a view and whose payload had not completed when the view ended. */
        final Set<String> waiting = new HashSet<>();
        long abandoned;
        /** Large messages whose transfer started here while an earlier one of the same sender was still incomplete here (pipelining). */
        long overlapped;

        MixedEngine(NodeId self, List<NodeId> members, VsyncConfig config, LayoutFunction layout, Receiver receiver) {
            super(self, members, config, layout, receiver);
            this.me = self;
            this.receiver = receiver;
            receiver.engine = this;
        }

        @Override
        public void onTimer(TimerKey key) {
            super.onTimer(key);
            if (!(key instanceof Heartbeat) || phase() != Phase.MEMBER) return;
            for (ShardId s : myShards()) {
                if (s.subgroup().equals(GROUP)) continue;
                int size = sizeOf(sent);
                if (orderedSend(s, payload(s, me, sent, size)) == null) {
                    if (size > CONFIG.smcPayloadBytes()) largeSent++;
                    sent++;
                }
            }
        }

        @Override
        protected byte[] largePayload(ShardId shard, int origin, long index, int size) {
            byte[] p = super.largePayload(shard, origin, index, size);
            String prefix = shard + "/" + origin + "/";
            String key = prefix + index;
            if (p == null) {
                if (waiting.add(key) && waiting.stream().anyMatch(w -> w.startsWith(prefix) && !w.equals(key))) overlapped++;
            } else {
                waiting.remove(key);
            }
            return p;
        }

        void viewEnded() {
            abandoned += waiting.size();
            waiting.clear();
        }
    }

    static final class Receiver implements ShardReceiver {
        MixedEngine engine;
        long delivered;
        long largeDelivered;
        long largeBytes;
        /** Deliveries whose bytes were not the ones sent (must stay 0). */
        final List<String> corrupt = new ArrayList<>();
        final Map<String, Long> lastFrom = new HashMap<>();

        @Override
        public void viewInstalled(long vid, Layout layout) {
            if (engine != null) engine.viewEnded();
        }

        @Override
        public void deliver(ShardId shard, NodeId sender, long version, byte[] payload) {
            delivered++;
            String text = new String(payload, 0, Math.min(payload.length, 64), StandardCharsets.ISO_8859_1);
            String[] f = text.split("#", 5);
            if (f.length < 5 || !f[0].equals(shard.toString()) || !f[1].equals(sender.value())) {
                corrupt.add(shard + " from " + sender + ": header " + text);
                return;
            }
            long n = Long.parseLong(f[2]);
            int size = Integer.parseInt(f[3]);
            if (!java.util.Arrays.equals(payload, payload(shard, sender, n, size))) {
                corrupt.add(shard + " from " + sender + " #" + n + ": " + payload.length + " bytes differ from the " + size + " sent");
                return;
            }
            if (size > CONFIG.smcPayloadBytes()) {
                largeDelivered++;
                largeBytes += size;
            }
            Long before = lastFrom.put(shard + " " + sender + " " + (version >>> 32), n);
            if (before != null && before >= n) corrupt.add(shard + " delivered " + sender + "'s #" + n + " after its #" + before);
        }
    }

    static VirtualSynchronyProtocol mixed(VsyncConfig config, String name, boolean partialPayloads) {
        return mixed(config, name, partialPayloads, ShardedVsyncSimulationTest.layout(config));
    }

    /**
     * One subgroup of one shard over the whole view (the large-message benchmark's shape): the engine's send passes
     * leave their guard to the pass's control push, one write with the counters (rdmc19), which the three-subgroup
     * layout above never does.
     */
    static LayoutFunction oneShard(VsyncConfig config) {
        return new io.tandem.protocols.vsync.layout.ShardAllocator(List.of(new io.tandem.protocols.vsync.layout.SubgroupPolicy("kv", 1, 1, config.maxMembers(),
                io.tandem.protocols.vsync.layout.DeliveryMode.ORDERED)));
    }

    static VirtualSynchronyProtocol mixed(VsyncConfig config, String name, boolean partialPayloads, LayoutFunction layout) {
        return new VirtualSynchronyProtocol(config, layout) {
            @Override
            public String name() {
                return name;
            }

            @Override
            protected VsyncEngine newEngine(NodeId self, List<NodeId> members) {
                if (!partialPayloads) return new MixedEngine(self, members, config, layout, new Receiver());
                // The broken twin: a large message counts as received when its header arrives, with whatever
                // of its payload is here, instead of once the payload is complete.
                return new MixedEngine(self, members, config, layout, new Receiver()) {
                    @Override
                    protected byte[] largePayload(ShardId shard, int origin, long index, int size) {
                        byte[] p = super.largePayload(shard, origin, index, size);
                        return p != null ? p : partialLargePayload(shard, origin, index);
                    }
                };
            }
        };
    }

    record Stats(List<SimResult> failures, int seeds, long delivered, long largeSent, long largeDelivered, long largeBytes, long abandoned, long overlapped, List<String> corrupt) {}

    static Stats run(VirtualSynchronyProtocol protocol, long first, int seeds, int maxFailures) {
        return run(protocol, first, seeds, maxFailures, VsyncSimulationTest.base());
    }

    static Stats run(VirtualSynchronyProtocol protocol, long first, int seeds, int maxFailures, SimOptions base) {
        List<SimResult> failures = new ArrayList<>();
        List<String> corrupt = new ArrayList<>();
        long delivered = 0;
        long largeSent = 0;
        long largeDelivered = 0;
        long largeBytes = 0;
        long abandoned = 0;
        long overlapped = 0;
        int ran = 0;
        for (long seed = first; seed < first + seeds && failures.size() < maxFailures; seed++) {
            SimOptions o = base.withSeed(seed).withSchedule(VsyncSimulationTest.minorityFaults(seed, base.durationNanos()));
            Simulation sim = new Simulation(protocol, o);
            SimResult r = sim.run();
            ran++;
            if (!r.passed()) failures.add(r);
            for (NodeId n : sim.members()) {
                var e = sim.engine(n, MixedEngine.class);
                if (e.isEmpty()) continue;
                delivered += e.get().receiver.delivered;
                largeSent += e.get().largeSent;
                largeDelivered += e.get().receiver.largeDelivered;
                largeBytes += e.get().receiver.largeBytes;
                abandoned += e.get().abandoned;
                overlapped += e.get().overlapped;
                for (String c : e.get().receiver.corrupt) corrupt.add("seed " + seed + " " + n + ": " + c);
            }
        }
        System.out.println(protocol.name() + ": seeds=" + ran + " (from " + first + ") failures=" + failures.size() + " shard deliveries=" + delivered + " large sent=" + largeSent
                + " large delivered=" + largeDelivered + " (" + largeBytes + " bytes) large transfers cut by a view change=" + abandoned + " overlapping transfers=" + overlapped + " corrupt=" + corrupt.size());
        return new Stats(failures, ran, delivered, largeSent, largeDelivered, largeBytes, abandoned, overlapped, corrupt);
    }

    private static String describe(List<SimResult> failures) {
        return failures.stream().map(SimRunner::describeFailure).reduce("", String::concat);
    }

    @Test
    void largeAndSmallMessagesKeepVirtualSynchronyThroughCrashesMidTransfer() {
        Stats s = run(mixed(CONFIG, "vsync-large-messages", false), FIRST, SEEDS, 3);
        assertThat(s.failures()).as(describe(s.failures())).isEmpty();
        assertThat(s.corrupt()).as("deliveries whose bytes differ from those sent").isEmpty();
        assertThat(s.largeDelivered()).as("large messages delivered").isPositive();
        assertThat(s.delivered()).as("all shard deliveries").isGreaterThan(s.largeDelivered());
        assertThat(s.abandoned()).as("large transfers under way when a view ended").isPositive();
        assertThat(s.overlapped()).as("transfers started behind an incomplete one of the same sender (pipelining)").isPositive();
    }

    /** The same with one shard over the whole view: the guard and the counters of a pass in one write. */
    @Test
    void largeAndSmallMessagesInTheViewsOneShardKeepVirtualSynchrony() {
        // Without the group subgroup the simulator's clients (who talk to the group) get no answers, so no client is
        // owed answers after the heal; the traffic here is the engines' own, every heartbeat, and every other check runs.
        SimOptions base = VsyncSimulationTest.base();
        base = base.withTiming(base.durationNanos(), base.opTimeoutNanos(), base.livenessNanos(), 0);
        Stats s = run(mixed(CONFIG, "vsync-large-messages-one-shard", false, oneShard(CONFIG)), FIRST, SEEDS, 3, base);
        assertThat(s.failures()).as(describe(s.failures())).isEmpty();
        assertThat(s.corrupt()).as("deliveries whose bytes differ from those sent").isEmpty();
        assertThat(s.largeDelivered()).as("large messages delivered").isPositive();
        assertThat(s.delivered()).as("all shard deliveries").isGreaterThan(s.largeDelivered());
    }

    /** Twin: a large message counted (and so delivered once stable) with whatever of its payload has arrived. */
    @Test
    void aLargeMessageCountedBeforeItsPayloadCompletedIsCaught() {
        Stats s = run(mixed(CONFIG, "vsync-broken-large-before-payload", true), 1, 20, 1);
        assertThat(s.failures()).as("%s survived %d seeds", "vsync-broken-large-before-payload", s.seeds()).isNotEmpty();
        SimResult r = s.failures().getFirst();
        SimFailure f = r.failure().orElseThrow();
        System.out.println("vsync-broken-large-before-payload caught at seed " + r.seed() + ": " + f.check() + ": " + f.message());
        assertThat(f.kind()).isNotEqualTo(SimFailure.Kind.LIVENESS);
    }
}
