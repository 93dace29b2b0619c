package io.tandem.protocols.copilot;

import io.tandem.protocols.Protocols;
import io.tandem.sim.FaultKind;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimTime;
import io.tandem.sim.Simulation;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** A diagnostic, not a test: the first seed (from -Dprobe.from, to -Dprobe.to) at which the election-without-promises twin fails. */
class TwinSeedSearchProbe {
    @Test
    void search() {
        SimOptions o = SimOptions.defaults().withFaults(EnumSet.of(FaultKind.CRASH, FaultKind.PARTITION, FaultKind.PAUSE, FaultKind.CLOCK))
                .withFaultRate(4.0, SimTime.millis(900));
        o = o.withWorkload(5, o.clients(), o.ops());
        var broken = Protocols.byName(BrokenCopilot.Bug.ELECTION_WITHOUT_PROMISES.protocolName());
        for (long seed = Long.getLong("probe.from", 1); seed <= Long.getLong("probe.to", 600); seed++) {
            SimResult r = Simulation.run(broken, o.withSeed(seed));
            if (!r.passed()) {
                System.out.println("TWIN caught at seed " + seed + ": " + r.failure().orElseThrow());
                return;
            }
        }
        System.out.println("TWIN not caught");
    }
}
