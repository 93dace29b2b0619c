package io.tandem.protocols.copilot;

import io.tandem.engine.NodeId;
import io.tandem.history.Op;
import io.tandem.history.Operation;
import io.tandem.sim.FaultKind;
import io.tandem.sim.FaultSchedule;
import io.tandem.sim.Latency;
import io.tandem.sim.SimInvariant;
import io.tandem.sim.SimOptions;
import io.tandem.sim.SimResult;
import io.tandem.sim.SimTime;
import io.tandem.sim.Simulation;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A diagnostic, not a test (copilot17): the two scenarios of {@link CopilotTakeoverTimeoutTest} over seeds
 * {@code -Dprobe.from..-Dprobe.to} (default 1-8) with {@link CopilotConfig#commitPiggyback} on and off: pilot n2's
 * takeovers and the worst latency per seed, to tell a trajectory's chance from a change of behaviour.
 */
class PiggybackTakeoverProbe {
    private static SimOptions options(int clients, Latency disk, String schedule, long seed) {
        SimOptions o = SimOptions.defaults().withFaults(EnumSet.noneOf(FaultKind.class)).withWorkload(5, clients, 400 * clients).withKeys(50, 1000)
                .withNetwork(new Latency.Uniform(SimTime.micros(100), SimTime.micros(300)), 0, 0, 0, false)
                .withDisk(disk, true, 0).withSeed(seed);
        return schedule == null ? o : o.withSchedule(FaultSchedule.parse(schedule));
    }

    private static String run(boolean piggyback, int clients, Latency disk, String schedule, long seed) {
        long[] takeovers = {0};
        CopilotProtocol p = new CopilotProtocol(CopilotConfig.DEFAULTS.withCommitPiggyback(piggyback, Duration.ofMillis(1)));
        Probed probe = new Probed(p, SimInvariant.of("probe", c -> {
            c.engine(NodeId.of("n2"), CopilotEngine.class).filter(CopilotEngine::isPilot).ifPresent(e -> takeovers[0] = e.takeovers.started());
            return Optional.empty();
        }));
        SimResult r = Simulation.run(probe, options(clients, disk, schedule, seed));
        long max = 0;
        for (Operation op : r.history().operations()) {
            if (!op.isCompleted() || op.outcome() != Op.Type.OK) continue;
            max = Math.max(max, op.completion().time() - op.invocation().time());
        }
        return String.format(java.util.Locale.ROOT, "takeovers %d max %.2f ms%s", takeovers[0], max / 1e6, r.failure().isPresent() ? " FAILED" : "");
    }

    @Test
    void probe() {
        long from = Long.getLong("probe.from", 1), to = Long.getLong("probe.to", 8);
        StringBuilder pauses = new StringBuilder();
        for (int i = 0; i < 10; i++) {
            long at = 1000 + 300L * i;
            pauses.append(at).append("ms=pause:n1;").append(at + 30).append("ms=resume:n1;");
        }
        for (long seed = from; seed <= to; seed++) {
            for (boolean on : new boolean[] {false, true}) {
                System.out.println("seed " + seed + " piggyback " + on + " | paused: " + run(on, 16, new Latency.Uniform(SimTime.micros(20), SimTime.micros(50)), pauses.toString(), seed)
                        + " | 3-8 ms flushes: " + run(on, 5, new Latency.Uniform(SimTime.millis(3), SimTime.millis(8)), null, seed));
            }
        }
    }
}
