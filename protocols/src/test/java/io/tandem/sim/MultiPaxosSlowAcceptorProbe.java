package io.tandem.sim;

import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.protocols.Protocols;
import io.tandem.sim.cost.CostModel;
import io.tandem.sim.cost.CostTable;
import io.tandem.sim.cost.Slowdown;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * A diagnostic, not a test (no assertion; run it with {@code -Dtest=MultiPaxosSlowAcceptorProbe}): MultiPaxos, 3 nodes,
 * {@code -Dprobe.clients=384} closed-loop clients, one follower slowed by {@code -Dprobe.slow=disk=512KiB/s} after 1 s;
 * every {@code -Dprobe.step=50} ms for {@code -Dprobe.window=1000} ms: the operations completed in the step and every
 * node's {@code inspect()}.
 */
class MultiPaxosSlowAcceptorProbe {
    public static void main(String[] args) {
        new MultiPaxosSlowAcceptorProbe().probe();
    }

    @Test
    void probe() {
        String slow = System.getProperty("probe.slow", "disk=512KiB/s");
        int clientsN = Integer.getInteger("probe.clients", 384);
        int stepMs = Integer.getInteger("probe.step", 50);
        int windowMs = Integer.getInteger("probe.window", 1000);
        SimOptions options = SimOptions.defaults().toBuilder()
                .seed(1).nodes(3).clients(clientsN).ops(0)
                .faults(EnumSet.noneOf(FaultKind.class)).faultsPerSecond(0)
                .lossRate(0).duplicateRate(0).reorderRate(0).codec(true).invariants(false).clockDriftPpm(0)
                .maxEvents(Long.MAX_VALUE / 2).build();
        CostModel costs = new CostModel(CostTable.calibrated(), CostModel.Resources.dedicated(1), 1);
        Simulation sim = new Simulation(Protocols.multiPaxos(), options, null, costs);
        long[] done = new long[1];
        sim.begin();
        List<SimBenchClient> clients = new ArrayList<>();
        for (int t = 0; t < clientsN; t++) {
            SimBenchClient c = new SimBenchClient(sim, t, 10_000, 0, SimTime.seconds(2), 1, (at, latency) -> done[0]++);
            clients.add(c);
            sim.at(0, c::start);
        }
        sim.runUntil(SimTime.seconds(1));
        while (SimBench.leaderOf(sim).isEmpty()) sim.runUntil(sim.nowNanos() + SimTime.millis(10));
        String leader = SimBench.leaderOf(sim).orElseThrow().value();
        String follower = leader.equals("n3") ? "n2" : "n3";
        if (!slow.equals("none")) Slowdown.parse("follower:" + slow).apply(costs, follower);
        System.out.printf(Locale.ROOT, "leader %s, slowed %s (%s)%n", leader, follower, slow);
        long start = sim.nowNanos();
        for (long t = start; t < start + SimTime.millis(windowMs); t += SimTime.millis(stepMs)) {
            long before = done[0];
            sim.runUntil(t + SimTime.millis(stepMs));
            System.out.printf(Locale.ROOT, "%+6d ms %6d ops%n", (t - start) / 1_000_000 + stepMs, done[0] - before);
            for (String n : List.of("n1", "n2", "n3")) System.out.printf(Locale.ROOT, "   %s: %s%n", n, describe(sim, n));
        }
        for (SimBenchClient c : clients) c.stop();
    }

    private static String describe(Simulation sim, String node) {
        Engine e = sim.engine(NodeId.of(node)).orElse(null);
        return e instanceof Inspectable i ? i.inspect() : String.valueOf(e);
    }
}
