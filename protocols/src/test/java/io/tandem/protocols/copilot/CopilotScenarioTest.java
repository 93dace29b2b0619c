package io.tandem.protocols.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.history.Op;
import io.tandem.sim.FaultKind;
import io.tandem.sim.FaultSchedule;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.SimTime;
import io.tandem.sim.Simulation;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The directed scenarios of copilot.md §8.2 on five replicas (n1 pilot, n2 copilot), each an explicit
 * fault schedule run over many seeds (the seed varies message timing, so the faults hit different
 * moments of the protocol), with every invariant after every step and linearizability at the end.
 */
class CopilotScenarioTest {
    private static final int SEEDS = Math.max(20, Integer.getInteger("copilot.sim.seeds", 200) / 10);

    private static SimOptions options(String schedule) {
        SimOptions o = SimOptions.defaults().withFaults(EnumSet.noneOf(FaultKind.class));
        return o.withWorkload(5, o.clients(), 300).withSchedule(FaultSchedule.parse(schedule));
    }

    private static void passes(String scenario, String schedule) {
        SimRunner.Summary s = SimRunner.run(new CopilotProtocol(), options(schedule), SimOptions.seeds(1, SEEDS), 3, null);
        System.out.println(scenario + ": " + s.line());
        StringBuilder b = new StringBuilder();
        for (SimResult r : s.failures()) b.append(SimRunner.describeFailure(r)).append('\n');
        assertThat(s.failures()).as(b.toString()).isEmpty();
    }

    private static String isolate(String node) {
        List<String> links = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            String other = "n" + i;
            if (other.equals(node)) continue;
            links.add(node + ">" + other);
            links.add(other + ">" + node);
        }
        return "partition:isolate:" + String.join(",", links);
    }

    @Test
    void aSlowPilotWhoseEntriesBlockTheOtherLog() {
        passes("slow pilot", "0ns=slow:n1:30");
    }

    @Test
    void bothPilotsSlowInTurn() {
        passes("both pilots slow in turn", "500ms=slow:n1:30;2s=unslow:n1;2s=slow:n2:30;3500ms=unslow:n2");
    }

    @Test
    void aPilotCrashesInTheMiddleOfItsFastAccepts() {
        passes("pilot crash mid-FastAccept", "700ms=crash:n1;1500ms=restart:n1;2600ms=crash:n2;3300ms=restart:n2");
    }

    /** Pauses longer than the takeover timeout: the other pilot takes over, then the paused one wakes up and sends its late Accepts and Commits. */
    @Test
    void aTakeoverRacesThePausedPilotsLateAccepts() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            long at = 400 + i * 500L;
            String node = i % 2 == 0 ? "n1" : "n2";
            s.append(at).append("ms=pause:").append(node).append(';').append(at + 15 + 10L * i).append("ms=resume:").append(node).append(';');
        }
        passes("takeover racing late Accepts", s.substring(0, s.length() - 1));
    }

    @Test
    void aPartitionOfOnePilot() {
        passes("partition of one pilot", "800ms=" + isolate("n1") + ";2500ms=heal;3000ms=" + isolate("n2") + ";4200ms=heal");
    }

    /** With the copilot down the whole time, the pilot alone keeps answering (it takes over what blocks). */
    @Test
    void theGroupStaysAvailableWithOnePilotDown() {
        SimResult r = Simulation.run(new CopilotProtocol(), options("200ms=crash:n2"));
        assertThat(r.failure()).isEmpty();
        long okWhileDown = r.history().operations().stream()
                .filter(o -> o.isCompleted() && o.outcome() == Op.Type.OK)
                .filter(o -> o.invocation().time() > SimTime.millis(500) && o.completion().time() < r.options().durationNanos())
                .count();
        assertThat(okWhileDown).as("operations answered while the copilot was down").isGreaterThan(100);
    }

}
