package io.tandem.protocols.multipaxos;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.Committed;
import io.tandem.engine.EngineContext;
import io.tandem.engine.GroupView;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Regions;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.history.Op;
import io.tandem.roles.Deployment;
import io.tandem.sim.FaultKind;
import io.tandem.sim.FaultSchedule;
import io.tandem.sim.SimFailure;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.SimTime;
import io.tandem.sim.Simulation;
import io.tandem.storage.DurableLog;
import io.tandem.storage.MetaStore;
import io.tandem.storage.SnapshotStore;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The directed scenarios of the spec (§7.3) on a compartmentalized deployment, and the unsafe
 * variants of §7.5 caught. Each scenario runs a few seeds of the full simulator (safety invariants
 * after every step, linearizability of the history) with no random faults but the scripted one, and
 * asserts that the scenario really happened (a counter of the planted event) and that the clients'
 * operations completed.
 *
 * <p>The deployment: proposers n1, n2; proxy leaders alone on n3, n4; a 2x2 acceptor grid alone on
 * n5..n8 (row 0 = {n5, n6}, row 1 = {n7, n8}; column 0 = {n5, n7}, column 1 = {n6, n8}); replicas
 * with frontends on n1, n2, n9.
 */
class CompartmentsScenariosTest {
    static final String GRID = """
            leader        = n1, n2
            proxy         = n3, n4
            acceptor-row1 = n5, n6
            acceptor-row2 = n7, n8
            replica       = n1, n2, n9
            frontend      = n1, n2, n9
            """;
    static final Deployment DEPLOYMENT = Deployment.parse(GRID, "grid.conf", MultiPaxosProtocol.ROLES);
    static final int SCENARIO_SEEDS = Integer.getInteger("compartments.scenario.seeds", 6);
    /** The slot from which a planted crash or hold may strike: after the cluster made some progress. */
    static final long FROM_SLOT = 15;

    static MultiPaxosConfig config() {
        return CompartmentsSimulationTest.config().toBuilder().deployment(DEPLOYMENT).build();
    }

    /** No random faults: only what a scenario scripts or plants. */
    static SimOptions quiet(long seed) {
        return SimOptions.defaults().withFaults(EnumSet.noneOf(FaultKind.class)).withWorkload(9, 5, 300).withSeed(seed);
    }

    static String describe(SimResult r) {
        return r.failure().isEmpty() ? "passed" : SimRunner.describeFailure(r);
    }

    static long completedOps(SimResult r) {
        return r.completedOps();
    }

    // ------------------------------------------------------------------------------------------
    // Planting: a role whose sends pass through a filter (a crash point, a held message)
    // ------------------------------------------------------------------------------------------

    /** The node's context with every send first offered to {@code allow}; a refused send is lost. */
    record FilteredContext(EngineContext inner, BiPredicate<NodeId, ProtocolMessage> allow, long zeroDelayNanos) implements EngineContext {
        FilteredContext(EngineContext inner, BiPredicate<NodeId, ProtocolMessage> allow) {
            this(inner, allow, 0);
        }

        public NodeId self() { return inner.self(); }
        public List<NodeId> members() { return inner.members(); }
        public void installView(GroupView view) { inner.installView(view); }
        public GroupView view() { return inner.view(); }
        public Regions regions() { return inner.regions(); }
        public void requestPolling(boolean poll) { inner.requestPolling(poll); }
        public long nowNanos() { return inner.nowNanos(); }
        public RandomGenerator random() { return inner.random(); }
        public void send(NodeId to, ProtocolMessage message) { if (allow.test(to, message)) inner.send(to, message); }
        /** With {@code zeroDelayNanos} set, a timer armed with no delay (an end-of-drain one) waits that long: its drain gathers more. */
        public TimerKey schedule(long delayNanos, TimerKey key) { return inner.schedule(delayNanos == 0 ? zeroDelayNanos : delayNanos, key); }
        public void cancel(TimerKey key) { inner.cancel(key); }
        public DurableLog log() { return inner.log(); }
        public MetaStore meta() { return inner.meta(); }
        public SnapshotStore snapshots() { return inner.snapshots(); }
        public void deliver(Committed entry) { inner.deliver(entry); }
        public void deliverReportingResult(Committed entry) { inner.deliverReportingResult(entry); }
        public void serveRead(long requestId, long afterIndex) { inner.serveRead(requestId, afterIndex); }
        public void complete(long requestId, byte[] result) { inner.complete(requestId, result); }
        public void reject(long requestId, Rejection reason) { inner.reject(requestId, reason); }
        public void takeSnapshot(long token) { inner.takeSnapshot(token); }
        public Meters meters() { return inner.meters(); }
    }

    static RoleContext filtered(RoleContext rc, BiPredicate<NodeId, ProtocolMessage> allow) {
        return new RoleContext(new FilteredContext(rc.engine, allow), rc.topology, rc.config);
    }

    // ------------------------------------------------------------------------------------------
    // D4, D5, D6: a proxy leader crashes at three points
    // ------------------------------------------------------------------------------------------

    enum ProxyCrash {
        /** D4: right after it receives a Phase 2a: it forwards nothing. */
        BEFORE_FORWARDING,
        /** D5: after sending the Phase 2a to one acceptor of its column. */
        AFTER_PARTIAL_VOTES,
        /** D6: after sending Chosen to one replica. */
        AFTER_PARTIAL_CHOSEN
    }

    /** Proxy n3 dies (sends nothing more, ever) at the planted point of its first run from {@link #FROM_SLOT} on. */
    static final class CrashingProxy implements Roles {
        final ProxyCrash point;
        final AtomicLong crashedAtSlot = new AtomicLong(-1);
        boolean dead;
        int letThrough;

        CrashingProxy(ProxyCrash point) {
            this.point = point;
        }

        @Override
        public ProxyLeader proxy(RoleContext rc) {
            if (!rc.self.equals(NodeId.of("n3"))) return Roles.super.proxy(rc);
            return new ProxyLeader(filtered(rc, (to, m) -> {
                if (dead) return false;
                switch (point) {
                    case BEFORE_FORWARDING -> {
                        if (m instanceof MultiPaxosMessage.Accept a && a.firstSlot() >= FROM_SLOT) {
                            crash(a.firstSlot());
                            return false;
                        }
                    }
                    case AFTER_PARTIAL_VOTES -> {
                        if (m instanceof MultiPaxosMessage.Accept a && a.firstSlot() >= FROM_SLOT) {
                            if (letThrough++ == 0) return true;
                            crash(a.firstSlot());
                            return false;
                        }
                    }
                    case AFTER_PARTIAL_CHOSEN -> {
                        if (m instanceof MultiPaxosMessage.Chosen c && c.firstSlot() >= FROM_SLOT) {
                            if (letThrough++ == 0) return true;
                            crash(c.firstSlot());
                            return false;
                        }
                    }
                }
                return true;
            }));
        }

        private void crash(long slot) {
            dead = true;
            crashedAtSlot.compareAndSet(-1, slot);
        }
    }

    @ParameterizedTest
    @EnumSource(ProxyCrash.class)
    void aProxyLeaderCrashLeavesHolesThatAreRepairedAndEveryOperationCompletes(ProxyCrash point) {
        assertProxyCrashRepaired(point, "multipaxos-proxy-crash-", config());
    }

    /** Every seed: the proxy reaches its crash point, the run passes and at least 90 % of the operations complete. */
    private static void assertProxyCrashRepaired(ProxyCrash point, String name, MultiPaxosConfig config) {
        for (long seed = 1; seed <= SCENARIO_SEEDS; seed++) {
            CrashingProxy roles = new CrashingProxy(point);
            MultiPaxosProtocol p = new MultiPaxosProtocol(name + point, config, roles, null);
            SimOptions o = quiet(seed);
            SimResult r = Simulation.run(p, o);
            assertThat(r.passed()).as("seed %d: %s", seed, describe(r)).isTrue();
            assertThat(roles.crashedAtSlot.get()).as("seed %d: the proxy reached the crash point", seed).isGreaterThanOrEqualTo(FROM_SLOT);
            assertThat(completedOps(r)).as("seed %d", seed).isGreaterThan(o.ops() * 9L / 10);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Stripes: consecutive slots per proxy, adjacent chosen runs announced as one Chosen
    // ------------------------------------------------------------------------------------------

    /** One command per Phase 2 (as the unbatched ablation), stripes of 4 slots per proxy. */
    static MultiPaxosConfig stripes() {
        return config().toBuilder().maxBatch(1, 16 << 10).proxyStripeSlots(4).build();
    }

    /**
     * Proxies whose end-of-drain announcement waits 2 ms (the correctness simulator hands a node one
     * message per event, so a 0-delay timer would gather one run): several runs chosen meanwhile go out
     * together, merged where adjacent (besides the proxy's own hold for the rest of a stripe). With {@code bridgeGaps}, the broken twin: every run of the
     * announcement goes into one Chosen from the lowest slot, across gaps (the values land on slots
     * they were not chosen for).
     */
    static final class MergingProxies implements Roles {
        final AtomicLong merged = new AtomicLong();
        final boolean bridgeGaps;

        MergingProxies(boolean bridgeGaps) {
            this.bridgeGaps = bridgeGaps;
        }

        @Override
        public ProxyLeader proxy(RoleContext rc) {
            RoleContext slow = new RoleContext(new FilteredContext(rc.engine, (to, m) -> {
                if (m instanceof MultiPaxosMessage.Chosen c && c.values().size() > 1) merged.incrementAndGet();
                return true;
            }, SimTime.millis(2)), rc.topology, rc.config);
            if (!bridgeGaps) return new ProxyLeader(slow);
            return new ProxyLeader(slow) {
                @Override
                List<List<Run>> grouped(List<Run> runs, int maxSlots, int maxBytes) {
                    return List.of(runs); // every run of the announcement in one group, gaps and all
                }

                @Override
                List<MultiPaxosMessage.Chosen> announcement(List<Run> group) {
                    List<MultiPaxosMessage.Chosen> right = ProxyLeader.chosenMessages(group, Integer.MAX_VALUE, Integer.MAX_VALUE);
                    if (right.size() < 2) return right;
                    List<Value> all = new java.util.ArrayList<>();
                    for (MultiPaxosMessage.Chosen c : right) all.addAll(c.values());
                    return List.of(new MultiPaxosMessage.Chosen(right.getFirst().firstSlot(), all, right.getFirst().requestId()));
                }
            };
        }
    }

    @Test
    void adjacentRunsOfAStripeAreAnnouncedAsOneChosenAndEveryOperationCompletes() {
        long merged = 0;
        for (long seed = 1; seed <= SCENARIO_SEEDS; seed++) {
            MergingProxies roles = new MergingProxies(false);
            MultiPaxosProtocol p = new MultiPaxosProtocol("multipaxos-stripes", stripes(), roles, null);
            SimOptions o = quiet(seed);
            SimResult r = Simulation.run(p, o);
            assertThat(r.passed()).as("seed %d: %s", seed, describe(r)).isTrue();
            assertThat(completedOps(r)).as("seed %d", seed).isGreaterThan(o.ops() * 9L / 10);
            merged += roles.merged.get();
        }
        assertThat(merged).as("Chosen messages carrying more than one slot").isPositive();
    }

    @ParameterizedTest
    @EnumSource(ProxyCrash.class)
    void withStripesAProxyLeaderCrashIsRepairedToo(ProxyCrash point) {
        assertProxyCrashRepaired(point, "multipaxos-stripes-proxy-crash-", stripes());
    }

    @Test
    void aProxyThatMergesAcrossAGapIsCaught() {
        MultiPaxosProtocol broken = new MultiPaxosProtocol("multipaxos-unsafe-chosen-across-gap", stripes(), new MergingProxies(true), null);
        SimRunner.Summary s = SimRunner.run(broken, SimOptions.defaults().withWorkload(9, 5, 300), SimOptions.seeds(1, UNSAFE_SEEDS), 1, null);
        assertThat(s.failures()).as("merging across gaps survived %d seeds", s.seeds()).isNotEmpty();
        SimResult caught = s.failures().getFirst();
        SimFailure f = caught.failure().orElseThrow();
        System.out.println(broken.name() + " caught at seed " + caught.seed() + " (" + f.kind() + " " + f.check() + "): " + f.message());
    }

    // ------------------------------------------------------------------------------------------
    // D2: a read sent to a lagging replica waits for the slot its index names
    // ------------------------------------------------------------------------------------------

    /** The proxies never tell replica n9 about slots FROM_SLOT..FROM_SLOT+40: it learns them only by catching up from a peer. */
    static class HoldingChosenToN9 implements Roles {
        final AtomicLong held = new AtomicLong();

        @Override
        public ProxyLeader proxy(RoleContext rc) {
            return new ProxyLeader(filtered(rc, (to, m) -> {
                if (to.equals(NodeId.of("n9")) && m instanceof MultiPaxosMessage.Chosen c && c.lastSlot() >= FROM_SLOT && c.firstSlot() <= FROM_SLOT + 40) {
                    held.incrementAndGet();
                    return false;
                }
                return true;
            }));
        }
    }

    @Test
    void aLinearizableReadAtALaggingReplicaWaitsForTheSlotOfItsIndex() {
        long parkedTotal = 0;
        for (long seed = 1; seed <= SCENARIO_SEEDS; seed++) {
            HoldingChosenToN9 roles = new HoldingChosenToN9();
            MultiPaxosProtocol p = new MultiPaxosProtocol("multipaxos-lagging-replica", config(), roles, null);
            SimOptions o = quiet(seed);
            Simulation sim = new Simulation(p, o);
            SimResult r = sim.run();
            assertThat(r.passed()).as("seed %d: %s", seed, describe(r)).isTrue();
            assertThat(roles.held.get()).as("seed %d: Chosen messages held from n9", seed).isPositive();
            assertThat(completedOps(r)).as("seed %d", seed).isGreaterThan(o.ops() * 9L / 10);
            MultiPaxosEngine n9 = (MultiPaxosEngine) sim.engine(NodeId.of("n9")).orElseThrow();
            parkedTotal += n9.replica().readsParked();
        }
        // The lagging replica got reads whose index it had not executed yet, and made them wait (LR-4).
        assertThat(parkedTotal).isPositive();
    }

    // ------------------------------------------------------------------------------------------
    // Unbatchers (spec §2.7) and D12: a lagging origin answered through them; an unbatcher that dies
    // ------------------------------------------------------------------------------------------

    static final Deployment UNBATCHED = Deployment.parse(GRID + "unbatcher = n3, n4\n", "unbatched.conf", MultiPaxosProtocol.ROLES);

    /**
     * Replica n9 lags as in D2 (no Chosen for 40 slots from {@link #FROM_SLOT}), and unbatcher n3 dies
     * (drops every reply) once slot {@link #FROM_SLOT} is reached, so n4 carries what is left.
     */
    static final class LaggingOriginAndDeadUnbatcher extends HoldingChosenToN9 {
        final AtomicLong dropped = new AtomicLong();

        @Override
        public Unbatcher unbatcher(RoleContext rc) {
            if (!rc.self.equals(NodeId.of("n3"))) return super.unbatcher(rc);
            return new Unbatcher(filtered(rc, (to, m) -> {
                if (m instanceof MultiPaxosMessage.ClientReplies c && c.replies().getLast().slot() >= FROM_SLOT) {
                    dropped.incrementAndGet();
                    return false;
                }
                return true;
            }));
        }
    }

    @Test
    void unbatchersAnswerALaggingOriginsClientsAndALostUnbatcherCostsNothingButItsReplies() {
        long unbatched = 0;
        long unbatchedAtN9 = 0;
        for (long seed = 1; seed <= SCENARIO_SEEDS; seed++) {
            LaggingOriginAndDeadUnbatcher roles = new LaggingOriginAndDeadUnbatcher();
            MultiPaxosConfig c = config().toBuilder().deployment(UNBATCHED).build();
            MultiPaxosProtocol p = new MultiPaxosProtocol("multipaxos-unbatchers", c, roles, null);
            SimOptions o = quiet(seed);
            Simulation sim = new Simulation(p, o);
            SimResult r = sim.run();
            assertThat(r.passed()).as("seed %d: %s", seed, describe(r)).isTrue();
            assertThat(roles.held.get()).as("seed %d: Chosen messages held from n9", seed).isPositive();
            assertThat(roles.dropped.get()).as("seed %d: replies lost with unbatcher n3", seed).isPositive();
            assertThat(completedOps(r)).as("seed %d", seed).isGreaterThan(o.ops() * 9L / 10);
            for (String n : List.of("n1", "n2", "n9")) {
                MultiPaxosEngine e = (MultiPaxosEngine) sim.engine(NodeId.of(n)).orElseThrow();
                unbatched += e.frontend().unbatchedReplies();
                if (n.equals("n9")) unbatchedAtN9 += e.frontend().unbatchedReplies();
            }
        }
        // Replicas answered for slots of other members' commands through the unbatchers, and the
        // lagging member's clients got replies computed elsewhere.
        assertThat(unbatched).isPositive();
        assertThat(unbatchedAtN9).isPositive();
    }

    // ------------------------------------------------------------------------------------------
    // D7: an acceptor of the grid crashes
    // ------------------------------------------------------------------------------------------

    @Test
    void anAcceptorCrashInTheGridCostsProxiesARetryAndReadsUseTheOtherRow() {
        long retries = 0;
        long widened = 0;
        for (long seed = 1; seed <= SCENARIO_SEEDS; seed++) {
            // a2 = n6 (row 0, column 1) crashes for good after a second.
            SimOptions o = quiet(seed).withSchedule(FaultSchedule.parse("1000000000ns=crash:n6"));
            Simulation sim = new Simulation(new MultiPaxosProtocol(config()), o);
            SimResult r = sim.run();
            assertThat(r.passed()).as("seed %d: %s", seed, describe(r)).isTrue();
            assertThat(completedOps(r)).as("seed %d", seed).isGreaterThan(o.ops() * 9L / 10);
            for (String proxy : List.of("n3", "n4")) retries += ((MultiPaxosEngine) sim.engine(NodeId.of(proxy)).orElseThrow()).proxy().retriesSent();
            for (NodeId m : sim.members()) {
                MultiPaxosEngine e = (MultiPaxosEngine) sim.engine(m).orElseThrow();
                if (e.frontend() != null) widened += e.frontend().readQueriesWidened();
            }
        }
        assertThat(retries).as("proxies whose column lost n6 resent to the other acceptors").isPositive();
        // A read round asks one row first; one that asked n6's row asks the other row too, and the next rounds start there.
        assertThat(widened).as("read rounds that asked n6's row and then every acceptor").isPositive();
    }

    // ------------------------------------------------------------------------------------------
    // D9: reads keep completing while there is no leader
    // ------------------------------------------------------------------------------------------

    @Test
    void readsCompleteWhileTheLeaderIsDownAndBeforeANewOneIsElected() {
        long crashAt = SimTime.millis(1500);
        long readsWithoutLeader = 0;
        for (long seed = 1; seed <= SCENARIO_SEEDS; seed++) {
            SimOptions o = quiet(seed).withSchedule(FaultSchedule.parse(crashAt + "ns=crash:n1"));
            SimResult r = Simulation.run(new MultiPaxosProtocol(config()), o);
            assertThat(r.passed()).as("seed %d: %s", seed, describe(r)).isTrue();
            // n2 cannot start Phase 1 before an election timeout without heartbeats: no leader in this window.
            long windowEnd = crashAt + config().electionTimeoutMin().toNanos();
            readsWithoutLeader += r.history().ops().stream()
                    .filter(op -> op.isClient() && op.type() == Op.Type.OK && "read".equals(String.valueOf(op.f()).replace(":", ""))
                            && op.time() > crashAt && op.time() < windowEnd)
                    .count();
        }
        assertThat(readsWithoutLeader).as("linearizable reads completed while no proposer led").isPositive();
    }

    // ------------------------------------------------------------------------------------------
    // D18: a proposer restarts quickly and never reuses a round
    // ------------------------------------------------------------------------------------------

    /** Records every life of proposer n1 (a restart makes a new one); optionally each forgets its durable round. */
    static final class RecordingLeaders implements Roles {
        final boolean forgetRound;
        final List<Leader> lives = new java.util.ArrayList<>();

        RecordingLeaders(boolean forgetRound) {
            this.forgetRound = forgetRound;
        }

        @Override
        public Leader leader(RoleContext rc) {
            Leader l = forgetRound ? new Leader(rc) {
                @Override
                long recoveredRound() {
                    return 0; // round reuse forced on: the negative control of D18
                }
            } : new Leader(rc);
            if (rc.self.equals(NodeId.of("n1"))) lives.add(l);
            return l;
        }
    }

    /** n1 leads, crashes and restarts at once; then n2 (which took over) crashes, so n1 must lead again. */
    static final FaultSchedule RESTARTS = FaultSchedule.parse("1200000000ns=crash:n1;1230000000ns=restart:n1;2200000000ns=crash:n2;2600000000ns=restart:n2");

    @Test
    void aLeaderThatRestartsQuicklyNeverReusesARound() {
        int ledAgain = 0;
        for (long seed = 1; seed <= SCENARIO_SEEDS; seed++) {
            RecordingLeaders roles = new RecordingLeaders(false);
            SimOptions o = quiet(seed).withSchedule(RESTARTS);
            SimResult r = Simulation.run(new MultiPaxosProtocol("multipaxos-restarts", config(), roles, null), o);
            assertThat(r.passed()).as("seed %d: %s", seed, describe(r)).isTrue();
            assertThat(r.completedOps()).as("seed %d", seed).isGreaterThan(o.ops() * 8L / 10);
            assertThat(roles.lives).as("seed %d: lives of n1", seed).hasSizeGreaterThanOrEqualTo(2);
            for (int i = 1; i < roles.lives.size(); i++) {
                Ballot before = roles.lives.get(i - 1).ballot();
                Ballot after = roles.lives.get(i).ballot();
                if (after.isZero()) continue;
                ledAgain++;
                assertThat(after.round()).as("seed %d: life %d of n1 took round %s after %s", seed, i, after, before).isGreaterThan(before.round());
            }
        }
        assertThat(ledAgain).as("a restarted n1 started Phase 1 again in some seed").isPositive();
    }

    @Test
    void aRestartedLeaderThatReusesARoundIsCaught() {
        SimResult caught = null;
        for (long seed = 1; seed <= UNSAFE_SEEDS && caught == null; seed++) {
            MultiPaxosProtocol broken = new MultiPaxosProtocol("multipaxos-unsafe-round-reuse", config(), new RecordingLeaders(true), null);
            SimResult r = Simulation.run(broken, SimOptions.defaults().withWorkload(9, 5, 300).withSeed(seed)
                    .withFaults(EnumSet.of(FaultKind.CRASH)).withFaultRate(3.0, SimTime.millis(40)));
            if (!r.passed()) caught = r;
        }
        assertThat(caught).as("round reuse survived %d seeds", UNSAFE_SEEDS).isNotNull();
        SimFailure f = caught.failure().orElseThrow();
        System.out.println("multipaxos-unsafe-round-reuse caught at seed " + caught.seed() + " (" + f.kind() + " " + f.check() + "): " + f.message());
    }

    // ------------------------------------------------------------------------------------------
    // §7.5: the unsafe variants are caught
    // ------------------------------------------------------------------------------------------

    static final int UNSAFE_SEEDS = Integer.getInteger("compartments.unsafe.seeds", 300);

    /** Five replicas taking reads, every fault kind: lagging replicas and leader changes abound. */
    static final Deployment READ_HEAVY = Deployment.parse("""
            leader        = n1, n2
            proxy         = n3, n4
            acceptor-row1 = n3, n4
            acceptor-row2 = n5, n6
            replica       = n1, n2, n5, n6, n7
            frontend      = n1, n2, n5, n6, n7
            """, "read-heavy.conf", MultiPaxosProtocol.ROLES);

    @ParameterizedTest
    @EnumSource(BrokenCompartments.Unsafe.class)
    void everyUnsafeVariantIsCaught(BrokenCompartments.Unsafe bug) {
        MultiPaxosProtocol broken = BrokenCompartments.protocol(bug, CompartmentsSimulationTest.config(), READ_HEAVY);
        SimOptions o = SimOptions.defaults().withWorkload(7, 6, 300);
        if (bug == BrokenCompartments.Unsafe.READ_JOINS_ROUND_IN_FLIGHT) {
            // Its window is one read round: make rounds at n7 slow (the acceptors' answers crawl) and
            // n7's replica lag (the proxies' Chosen crawl too), so a read that joins a round late
            // gets an old index and a replica that has executed it already.
            o = o.withFaults(EnumSet.noneOf(FaultKind.class)).withSchedule(FaultSchedule.parse(
                    "1ns=slowlink:n3>n7:30;1ns=slowlink:n4>n7:30;1ns=slowlink:n5>n7:30;1ns=slowlink:n6>n7:30"));
        }
        SimRunner.Summary s = SimRunner.run(broken, o, SimOptions.seeds(1, UNSAFE_SEEDS), 1, null);
        assertThat(s.failures()).as("%s survived %d seeds", bug, s.seeds()).isNotEmpty();
        SimResult caught = s.failures().getFirst();
        SimFailure f = caught.failure().orElseThrow();
        System.out.println(broken.name() + " caught at seed " + caught.seed() + " (" + f.kind() + " " + f.check() + "): " + f.message());
        if (bug != BrokenCompartments.Unsafe.CLIENT_TABLE_OFF_WITH_RESEND) {
            // Read bugs show as stale reads: the history is not linearizable.
            assertThat(f.kind()).as(describe(caught)).isEqualTo(SimFailure.Kind.LINEARIZABILITY);
        }
        assertThat(Simulation.run(broken, caught.options()).failure()).isEqualTo(caught.failure()); // it replays exactly
    }
}
