package io.tandem.protocols.copilot;

import io.tandem.protocols.Protocols;
import io.tandem.sim.SimFailure;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.Simulation;
import org.junit.jupiter.api.Test;

/**
 * A diagnostic, not a test (copilot17): the seeds of {@code -Dprobe.from..-Dprobe.to} (default 1-200) on which the
 * twin {@code KEEP_ONLY_DEPENDENCY_RUN_AHEAD} stalls (LIVENESS) under the fault schedule of
 * {@link CopilotSimulationTest#membersWhoseExecutionPointsAreNotNestedKeepWhatTheOtherNeeds}, and whether the engine
 * passes each of them: the seed list of that test, found again after a change of the engine's timing.
 */
class NonNestedTwinSeedProbe {
    @Test
    void probe() {
        long from = Long.getLong("probe.from", 1), to = Long.getLong("probe.to", 200);
        SimOptions o = SimOptions.mix().toBuilder().profile(io.tandem.sim.FaultProfile.CRASH_HEAVY).build().withSchedule(io.tandem.sim.FaultSchedule.parse(
                "221360307ns=pause:n3;750681013ns=resume:n3;1165496112ns=crash:n2;1242634782ns=partition:halves:n1>n3,n2>n3,n3>n1,n3>n2;1352487305ns=heal;"
                        + "1389871349ns=crash:n1;1678988955ns=restart:n2;1683202551ns=crash:n3;2193887615ns=restart:n1;2346735442ns=restart:n3"));
        CopilotProtocol twin = (CopilotProtocol) Protocols.byName(BrokenCopilot.Bug.KEEP_ONLY_DEPENDENCY_RUN_AHEAD.protocolName());
        StringBuilder caught = new StringBuilder();
        int engineFailures = 0;
        for (long seed = from; seed <= to; seed++) {
            SimResult broken = Simulation.run(twin, o.withSeed(seed));
            if (broken.failure().isEmpty()) continue;
            SimResult fixed = Simulation.run(new CopilotProtocol(), o.withSeed(seed));
            boolean liveness = broken.failure().orElseThrow().kind() == SimFailure.Kind.LIVENESS;
            caught.append(' ').append(seed).append(liveness ? "" : "(" + broken.failure().orElseThrow().kind() + ")").append(fixed.failure().isPresent() ? "[engine fails too]" : "");
            if (fixed.failure().isPresent()) engineFailures++;
        }
        System.out.println("twin KEEP_ONLY_DEPENDENCY_RUN_AHEAD fails at seeds" + caught + " (of " + from + "-" + to + "); the engine fails at " + engineFailures + " of them");
    }
}
