package io.tandem.sim;

import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.protocols.Protocols;
import io.tandem.sim.cost.CostModel;
import io.tandem.sim.cost.CostTable;
import io.tandem.sim.cost.Slowdown;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * A diagnostic, not a test (no assertion; not matched by surefire's default includes, run it with
 * {@code -Dtest=CopilotPauseProbe}): the headline row "copilot 5 16 leader:pause=40ms/1s" of the
 * performance simulator ({@link SimBench}, same setup), with the engines' own state around the first
 * pauses: every completion in the 120 ms after each pause starts (when it was sent, how long it took),
 * and the fast pilot's state ({@code inspect()}: cursors, heads, takeovers) whenever it changes.
 * {@code -Dprobe.costs=FILE} picks another cost table, {@code -Dprobe.pauses=N} how many pauses to show,
 * {@code -Dprobe.pause=40ms} the pause.
 */
class CopilotPauseProbe {
    @Test
    void probe() {
        String costsFile = System.getProperty("probe.costs", "");
        CostTable table = costsFile.isEmpty() ? CostTable.calibrated() : CostTable.read(Path.of(costsFile));
        int pauses = Integer.getInteger("probe.pauses", 2);
        String pause = System.getProperty("probe.pause", "40ms");
        SimOptions options = SimOptions.defaults().toBuilder()
                .seed(1).nodes(5).clients(16).ops(0)
                .faults(EnumSet.noneOf(FaultKind.class)).faultsPerSecond(0)
                .lossRate(0).duplicateRate(0).reorderRate(0).codec(true).invariants(false).clockDriftPpm(0)
                .maxEvents(Long.MAX_VALUE / 2).build();
        CostModel costs = new CostModel(table, CostModel.Resources.dedicated(1), 1);
        Simulation sim = new Simulation(Protocols.copilot(), options, null, costs);
        List<long[]> done = new ArrayList<>();
        List<SimBenchClient> clients = new ArrayList<>();
        sim.begin();
        for (int t = 0; t < 16; t++) {
            SimBenchClient c = new SimBenchClient(sim, t, 10_000, 0, SimTime.seconds(2), 1, (at, latency) -> done.add(new long[] {at, latency}));
            clients.add(c);
            sim.at(0, c::start);
        }
        sim.runUntil(SimTime.seconds(2));
        String leader = SimBench.leaderOf(sim).orElseThrow().value();
        String fast = leader.equals("n1") ? "n2" : "n1";
        long t0 = sim.nowNanos();
        Slowdown.parse("leader:pause=" + pause + "/1s").apply(costs, leader);
        System.out.printf(Locale.ROOT, "paused pilot %s, fast pilot %s, pauses start at %d ms + k s%n", leader, fast, t0 / SimTime.MILLIS);
        for (int k = 1; k <= pauses; k++) {
            long start = t0 + k * SimTime.SECONDS;
            sim.runUntil(start - SimTime.millis(5));
            int from = done.size();
            String last = "";
            System.out.printf(Locale.ROOT, "---- pause %d at %d ms ----%n", k, start / SimTime.MILLIS);
            for (long t = start - SimTime.millis(5); t < start + SimTime.millis(120); t += SimTime.MICROS * 250) {
                sim.runUntil(t);
                String now = describe(sim, fast) + " || paused: " + describe(sim, leader);
                if (!now.equals(last)) System.out.printf(Locale.ROOT, "%+8.2f ms %s%n", (t - start) / 1e6, now);
                last = now;
            }
            long worst = 0;
            for (int i = from; i < done.size(); i++) {
                long[] d = done.get(i);
                worst = Math.max(worst, d[1]);
                if (d[1] > SimTime.millis(5)) {
                    System.out.printf(Locale.ROOT, "  op sent %+8.2f ms, done %+8.2f ms, took %6.2f ms%n", (d[0] - d[1] - start) / 1e6, (d[0] - start) / 1e6, d[1] / 1e6);
                }
            }
            System.out.printf(Locale.ROOT, "pause %d: %d ops completed in the window, worst %.2f ms%n", k, done.size() - from, worst / 1e6);
        }
        for (SimBenchClient c : clients) c.stop();
    }

    private static String describe(Simulation sim, String node) {
        Engine e = sim.engine(NodeId.of(node)).orElse(null);
        return e instanceof Inspectable i ? i.inspect() : String.valueOf(e);
    }
}
