package io.tandem.sim;

import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.protocols.Protocols;
import io.tandem.sim.cost.CostModel;
import io.tandem.sim.cost.CostTable;
import io.tandem.sim.cost.Slowdown;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * A diagnostic, not a test (no assertion; run it with {@code -Dtest=CopilotSlowPilotProbe}): the headline rows
 * "copilot 5 16 leader:SLOWDOWN" of {@link SimBench} with a pilot slowed for the whole window
 * ({@code -Dprobe.slow=net=+5ms}, default), as {@link CopilotPauseProbe} does for a pause: throughput and
 * percentiles for the healthy second before and the slowed second after, then the fast pilot's and the slow
 * pilot's {@code inspect()} every 0.25 ms for {@code -Dprobe.window=20} ms in the slowed second, and every
 * operation of that window that took more than 3 ms.
 */
class CopilotSlowPilotProbe {
    @Test
    void probe() {
        String slow = System.getProperty("probe.slow", "net=+5ms");
        int windowMs = Integer.getInteger("probe.window", 20);
        SimOptions options = SimOptions.defaults().toBuilder()
                .seed(1).nodes(5).clients(16).ops(0)
                .faults(EnumSet.noneOf(FaultKind.class)).faultsPerSecond(0)
                .lossRate(0).duplicateRate(0).reorderRate(0).codec(true).invariants(false).clockDriftPpm(0)
                .maxEvents(Long.MAX_VALUE / 2).build();
        CostModel costs = new CostModel(CostTable.calibrated(), CostModel.Resources.dedicated(1), 1);
        Simulation sim = new Simulation(Protocols.copilot(), options, null, costs);
        List<long[]> done = new ArrayList<>();
        sim.begin();
        List<SimBenchClient> clients = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            SimBenchClient c = new SimBenchClient(sim, t, 10_000, 0, SimTime.seconds(2), 1, (at, latency) -> done.add(new long[] {at, latency}));
            clients.add(c);
            sim.at(0, c::start);
        }
        sim.runUntil(SimTime.seconds(1));
        int healthyFrom = done.size();
        sim.runUntil(SimTime.seconds(2));
        summary("healthy 1-2 s", done.subList(healthyFrom, done.size()));
        String leader = SimBench.leaderOf(sim).orElseThrow().value();
        String fast = leader.equals("n1") ? "n2" : "n1";
        Slowdown.parse("leader:" + slow).apply(costs, leader);
        System.out.printf(Locale.ROOT, "slowed pilot %s (%s), fast pilot %s%n", leader, slow, fast);
        sim.runUntil(SimTime.millis(2500));
        int slowFrom = done.size();
        long start = sim.nowNanos();
        String last = "";
        for (long t = start; t < start + SimTime.millis(windowMs); t += SimTime.MICROS * 250) {
            sim.runUntil(t);
            String now = describe(sim, fast) + " || slow: " + describe(sim, leader);
            if (!now.equals(last)) System.out.printf(Locale.ROOT, "%+8.2f ms %s%n", (t - start) / 1e6, now);
            last = now;
        }
        for (int i = slowFrom; i < done.size(); i++) {
            long[] d = done.get(i);
            if (d[1] > SimTime.millis(3)) System.out.printf(Locale.ROOT, "  op sent %+8.2f ms, done %+8.2f ms, took %6.2f ms%n", (d[0] - d[1] - start) / 1e6, (d[0] - start) / 1e6, d[1] / 1e6);
        }
        sim.runUntil(SimTime.millis(3500));
        summary("slowed 2.5-3.5 s", done.subList(slowFrom, done.size()));
        for (SimBenchClient c : clients) c.stop();
    }

    private static void summary(String what, List<long[]> ops) {
        long[] l = ops.stream().mapToLong(d -> d[1]).sorted().toArray();
        if (l.length == 0) return;
        long span = ops.get(ops.size() - 1)[0] - ops.get(0)[0];
        System.out.printf(Locale.ROOT, "%s: %d ops, %.0f ops/s, mean %.2f p50 %.2f p90 %.2f p99 %.2f max %.2f ms%n", what, l.length,
                l.length * 1e9 / span, Arrays.stream(l).average().orElse(0) / 1e6, l[l.length / 2] / 1e6, l[(int) (l.length * 0.9)] / 1e6,
                l[(int) (l.length * 0.99)] / 1e6, l[l.length - 1] / 1e6);
    }

    private static String describe(Simulation sim, String node) {
        Engine e = sim.engine(NodeId.of(node)).orElse(null);
        return e instanceof Inspectable i ? i.inspect() : String.valueOf(e);
    }
}
