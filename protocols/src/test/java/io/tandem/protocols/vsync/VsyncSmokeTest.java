package io.tandem.protocols.vsync;

import io.tandem.sim.FaultKind;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimRunner;
import io.tandem.sim.Simulation;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class VsyncSmokeTest {
    static final VsyncConfig SIM = VsyncConfig.DEFAULTS.withTimers(Duration.ofMillis(5), Duration.ofMillis(60), Duration.ofMillis(30), Duration.ofMillis(100));

    @Test
    void smoke() {
        SimOptions o = SimOptions.defaults().withFaults(EnumSet.noneOf(FaultKind.class));
        long seed = Long.getLong("seed", 1);
        String faults = System.getProperty("faults", "");
        if (!faults.isEmpty()) {
            EnumSet<FaultKind> k = EnumSet.noneOf(FaultKind.class);
            for (String f : faults.split(",")) k.add(FaultKind.valueOf(f));
            o = o.withFaults(k);
        }
        o = o.withWorkload(Integer.getInteger("nodes", 3), o.clients(), o.ops());
        if (Boolean.getBoolean("trace")) {
            SimResult r = new Simulation(new VirtualSynchronyProtocol(SIM), o.withSeed(seed), System.out::println).run();
            System.out.println(r.failure());
            return;
        }
        SimRunner.Summary s = SimRunner.run(new VirtualSynchronyProtocol(SIM), o, SimOptions.seeds(seed, Integer.getInteger("seeds", 5)), 1, null);
        System.out.println(s.line());
        for (SimResult r : s.failures()) System.out.println(SimRunner.describeFailure(r));
    }
}
