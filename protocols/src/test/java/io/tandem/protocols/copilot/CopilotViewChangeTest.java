package io.tandem.protocols.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.engine.NodeId;
import io.tandem.history.Op;
import io.tandem.protocols.Protocols;
import io.tandem.sim.FaultKind;
import io.tandem.sim.FaultSchedule;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.SimTime;
import io.tandem.sim.Simulation;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * Pilot election (copilot.md §3.10) in the simulator: pilots crashed for long periods, one and then
 * both, and random crashes, partitions, pauses and clock jumps with elections after 200 ms of silence;
 * every Copilot invariant after every step (committed slots agree, so no election or takeover changes
 * a committed entry; the combined order is one prefix everywhere; no command runs twice; no proposer
 * ever sends two values at one ballot, so a restarted or newly elected pilot never reuses one) and
 * linearizability. The twins that elect without promises or do not recover the in-flight slots are
 * caught.
 */
class CopilotViewChangeTest {
    private static final int SEEDS = Math.max(20, Integer.getInteger("copilot.sim.seeds", 200) / 10);

    private static SimOptions scheduled(int nodes, String schedule) {
        SimOptions o = SimOptions.defaults().withFaults(EnumSet.noneOf(FaultKind.class));
        return o.withWorkload(nodes, o.clients(), 300).withSchedule(FaultSchedule.parse(schedule));
    }

    private static CopilotProtocol protocol() {
        return new CopilotProtocol(BrokenCopilot.QUICK_ELECTIONS);
    }

    private static void passes(String label, CopilotProtocol p, SimOptions o, int seeds) {
        SimRunner.Summary s = SimRunner.run(p, o, SimOptions.seeds(1, seeds), 3, null);
        System.out.println(label + ": " + s.line());
        StringBuilder b = new StringBuilder();
        for (SimResult r : s.failures()) b.append(SimRunner.describeFailure(r)).append('\n');
        assertThat(s.failures()).as(b.toString()).isEmpty();
    }

    /** Runs one seed and returns the engine of {@code node} at the end, for its views. */
    private static CopilotEngine after(Simulation sim, String node) {
        SimResult r = sim.run();
        assertThat(r.failure()).isEmpty();
        return (CopilotEngine) sim.engine(NodeId.of(node)).orElseThrow();
    }

    private static long answeredBetween(SimResult r, long fromNanos, long toNanos) {
        return r.history().operations().stream()
                .filter(o -> o.isCompleted() && o.outcome() == Op.Type.OK)
                .filter(o -> o.invocation().time() > fromNanos && o.completion().time() < toNanos)
                .count();
    }

    @Test
    void aPilotDownForLongIsReplacedAndItsLogGoesOn() {
        String schedule = "400ms=crash:n1;4s=restart:n1";
        passes("pilot n1 down 3.6 s", protocol(), scheduled(5, schedule), SEEDS);
        Simulation sim = new Simulation(protocol(), scheduled(5, schedule).withSeed(3));
        CopilotEngine n3 = after(sim, "n3");
        assertThat(n3.establishedView[0]).as("log 0 moved to a new view").isGreaterThan(0);
        assertThat(n3.pilotOf(0)).as("a member other than the crashed pilot and the copilot pilots log 0").isNotIn(0, 1);
        assertThat(n3.cursor(0)).as("log 0 kept growing and executing").isGreaterThan(n3.startSlot[0]);
    }

    @Test
    void theCopilotDownForLongIsReplaced() {
        passes("copilot n2 down 3.6 s", protocol(), scheduled(5, "400ms=crash:n2;4s=restart:n2"), SEEDS);
    }

    /** Both pilots down for good (two of five): the three others elect a pilot for each log and keep answering. */
    @Test
    void bothPilotsDownForGoodAreBothReplaced() {
        String schedule = "300ms=crash:n1;1200ms=crash:n2";
        passes("both pilots down", protocol(), scheduled(5, schedule), SEEDS);
        Simulation sim = new Simulation(protocol(), scheduled(5, schedule).withSeed(2));
        SimResult r = sim.run();
        assertThat(r.failure()).isEmpty();
        CopilotEngine n4 = (CopilotEngine) sim.engine(NodeId.of("n4")).orElseThrow();
        assertThat(n4.pilotOf(0)).isNotIn(0, 1);
        assertThat(n4.pilotOf(1)).isNotIn(0, 1);
        assertThat(n4.pilotOf(0)).isNotEqualTo(n4.pilotOf(1));
        assertThat(answeredBetween(r, SimTime.millis(2500), r.options().durationNanos())).as("answered with both original pilots down").isGreaterThan(20);
    }

    /** A pilot that crashes and restarts again and again, so restarts meet elections: no ballot is ever reused. */
    @Test
    void aPilotRestartedAgainAndAgainNeverReusesABallot() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 6; i++) {
            long at = 300 + i * 700L;
            s.append(at).append("ms=crash:n1;").append(at + 150 + 60L * i).append("ms=restart:n1;");
        }
        passes("pilot n1 crash-restart cycles", protocol(), scheduled(3, s.substring(0, s.length() - 1)), SEEDS);
    }

    /** Random faults of every kind with quick elections: pauses and clock jumps make members suspect live pilots. */
    @Test
    void randomFaultsWithQuickElectionsPass() {
        SimOptions o = SimOptions.defaults().withFaultRate(3.0, SimTime.millis(900));
        passes("quick elections, 3 nodes, 3 faults/s", protocol(), o, SEEDS * 2);
        passes("quick elections, 5 nodes, 3 faults/s", protocol(), o.withWorkload(5, o.clients(), o.ops()), SEEDS);
    }

    private static SimResult caught(BrokenCopilot.Bug bug, SimOptions o, int seeds) {
        CopilotProtocol broken = (CopilotProtocol) Protocols.byName(bug.protocolName());
        SimRunner.Summary s = SimRunner.run(broken, o, SimOptions.seeds(1, seeds), 1, null);
        assertThat(s.failures()).as("%s survived %d seeds", bug, s.seeds()).isNotEmpty();
        SimResult r = s.failures().getFirst();
        System.out.println(bug.protocolName() + " caught at seed " + r.seed() + ": " + r.failure().orElseThrow());
        assertThat(Simulation.run(broken, r.options()).failure()).isEqualTo(r.failure()); // it replays exactly
        return r;
    }

    private static SimOptions electionHeavy() {
        SimOptions o = SimOptions.defaults().withFaults(EnumSet.of(FaultKind.CRASH, FaultKind.PARTITION, FaultKind.PAUSE, FaultKind.CLOCK))
                .withFaultRate(4.0, SimTime.millis(900));
        return o.withWorkload(5, o.clients(), o.ops());
    }

    @Test
    void anElectionWithoutPromisesIsCaught() {
        caught(BrokenCopilot.Bug.ELECTION_WITHOUT_PROMISES, electionHeavy(), 200);
    }

    /**
     * Until pilots stood again when outranked, this twin was caught only by a stall (seed 11); now it runs on
     * and is caught by state-machine safety, two replicas applying different commands at one index (seed
     * 656 of these options, 215 since new pilots take over their inherited slots at once, with a stall at
     * seed 140 before it), so the test runs up to 700 seeds until a safety failure.
     */
    @Test
    void aNewPilotThatDoesNotRecoverTheInFlightSlotsIsCaught() {
        // Since a new pilot takes over every inherited slot at once, this twin also stalls (liveness) on
        // some seeds before the first one that shows its real harm; the test looks for that one: a safety
        // failure, which must replay exactly.
        CopilotProtocol broken = (CopilotProtocol) Protocols.byName(BrokenCopilot.Bug.NEW_PILOT_REUSES_IN_FLIGHT_SLOTS.protocolName());
        SimResult unsafe = null;
        int stalls = 0;
        for (long seed = 1; seed <= 700 && unsafe == null; seed++) {
            SimResult r = Simulation.run(broken, electionHeavy().withSeed(seed));
            if (r.passed()) continue;
            if (r.failure().orElseThrow().kind() == io.tandem.sim.SimFailure.Kind.SAFETY) unsafe = r;
            else stalls++;
        }
        assertThat(unsafe).as("no safety failure in 700 seeds (%d stalls)", stalls).isNotNull();
        System.out.println(broken.name() + " caught at seed " + unsafe.seed() + " (" + stalls + " stalls before): " + unsafe.failure().orElseThrow());
        assertThat(Simulation.run(broken, unsafe.options()).failure()).isEqualTo(unsafe.failure()); // it replays exactly
    }
}
