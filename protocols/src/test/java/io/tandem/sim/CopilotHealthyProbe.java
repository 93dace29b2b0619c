package io.tandem.sim;

import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.protocols.Protocols;
import io.tandem.sim.cost.CostModel;
import io.tandem.sim.cost.CostTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A diagnostic, not a test (no assertion; run it with {@code -Dtest=CopilotHealthyProbe}): the healthy rows
 * "copilot 5 C healthy" and "multipaxos 5 C healthy" of {@link SimBench} (default cost table, one core per node,
 * seed 1; {@code -Dprobe.clients=16}), 2 s warm-up and 2 s measured: throughput, latency percentiles and a
 * coarse latency histogram, then every handled event by kind and message type per command (all nodes
 * together), and each engine's {@code inspect()} at the end (Copilot: fast/slow commits per pilot).
 */
class CopilotHealthyProbe {
    @Test
    void probe() {
        int clients = Integer.getInteger("probe.clients", 16);
        for (String p : System.getProperty("probe.protocols", "copilot,multipaxos").split(",")) run(p, clients);
    }

    /** Per member: busy ns of each stage (0-3), then wake-ups of each stage (4-7). */
    private static long[][] cpuSnapshot(Simulation sim, CostModel costs) {
        List<NodeId> ms = sim.members();
        long[][] out = new long[ms.size()][8];
        for (int k = 0; k < ms.size(); k++) {
            io.tandem.sim.cost.NodeCpu c = costs.cpu(ms.get(k).value());
            for (io.tandem.sim.cost.Stage st : io.tandem.sim.cost.Stage.values()) {
                out[k][st.ordinal()] = c.busyNanos(st);
                out[k][4 + st.ordinal()] = c.wakeups(st);
            }
        }
        return out;
    }

    private static long field(Object o, String name) throws ReflectiveOperationException {
        java.lang.reflect.Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.getLong(o);
    }

    private static void run(String name, int clientCount) {
        io.tandem.protocols.copilot.CopilotConfig cfg = io.tandem.protocols.copilot.CopilotConfig.DEFAULTS;
        String variant = System.getProperty("probe.variant", "");
        if (variant.equals("pp-off")) cfg = cfg.withPingPong(false);
        if (variant.startsWith("wait=")) cfg = cfg.withTimers(java.time.Duration.ofNanos(Long.parseLong(variant.substring(5)) * 1000), cfg.takeoverTimeout(),
                cfg.fastPathWait(), cfg.resendInterval(), cfg.catchUpInterval());
        Protocol protocol = name.equals("copilot") ? Protocols.copilot(cfg) : Protocols.byName(name);
        SimOptions options = SimOptions.defaults().toBuilder()
                .seed(1).nodes(5).clients(clientCount).ops(0)
                .faults(EnumSet.noneOf(FaultKind.class)).faultsPerSecond(0)
                .lossRate(0).duplicateRate(0).reorderRate(0).codec(true).invariants(false).clockDriftPpm(0)
                .maxEvents(Long.MAX_VALUE / 2).build();
        CostModel costs = new CostModel(System.getProperty("probe.costs", "").isEmpty() ? CostTable.calibrated()
                : CostTable.read(java.nio.file.Path.of(System.getProperty("probe.costs"))), CostModel.Resources.dedicated(1), 1);
        Simulation sim = new Simulation(protocol, options, null, costs);
        List<long[]> done = new ArrayList<>();
        Map<String, long[]> handled = new TreeMap<>();
        boolean[] measuring = {false};
        sim.setHandlerProbe((kind, type, bytes, wall) -> {
            if (!measuring[0]) return;
            long[] c = handled.computeIfAbsent(kind + (type == null ? "" : ":" + type), k -> new long[3]);
            c[0]++;
            c[1] += bytes;
            c[2] += wall;
        });
        sim.begin();
        List<SimBenchClient> clients = new ArrayList<>();
        for (int t = 0; t < clientCount; t++) {
            SimBenchClient c = new SimBenchClient(sim, t, 10_000, 0, SimTime.seconds(2), 1, (at, latency) -> done.add(new long[] {at, latency}));
            clients.add(c);
            sim.at(0, c::start);
        }
        sim.runUntil(SimTime.seconds(2));
        int from = done.size();
        long[][] cpu0 = cpuSnapshot(sim, costs);
        measuring[0] = true;
        sim.runUntil(SimTime.seconds(4));
        measuring[0] = false;
        long[][] cpu1 = cpuSnapshot(sim, costs);
        List<long[]> ops = done.subList(from, done.size());
        long[] l = ops.stream().mapToLong(d -> d[1]).sorted().toArray();
        double opsPerSec = l.length / 2.0;
        System.out.printf(Locale.ROOT, "== %s 5 nodes %d clients: %d ops, %.0f ops/s, mean %.0f p50 %d p90 %d p99 %d max %d us%n", name, clientCount,
                l.length, opsPerSec, Arrays.stream(l).average().orElse(0) / 1e3, l[l.length / 2] / 1000, l[(int) (l.length * 0.9)] / 1000,
                l[(int) (l.length * 0.99)] / 1000, l[l.length - 1] / 1000);
        long[] edges = {500, 600, 700, 800, 900, 1000, 1200, 1500, 2000, 3000, Long.MAX_VALUE};
        StringBuilder h = new StringBuilder("   latency histogram (us, upper edge: share, share of the total latency):");
        long total = Arrays.stream(l).sum();
        int i = 0;
        for (long e : edges) {
            int n = 0;
            long sum = 0;
            while (i < l.length && l[i] / 1000 < e) { n++; sum += l[i]; i++; }
            h.append(String.format(Locale.ROOT, " <%s: %.1f%%/%.1f%%", e == Long.MAX_VALUE ? "inf" : e, 100.0 * n / l.length, 100.0 * sum / total));
        }
        System.out.println(h);
        // Core time per node and stage in the measured window (share of the node's one core), and wake-ups of idle
        // stages (each charges the table's wakeup tail to the core): where the CPU of a command goes (copilot16).
        List<NodeId> ms = sim.members();
        for (int k = 0; k < ms.size(); k++) {
            StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "   cpu %s:", ms.get(k).value()));
            long total2 = 0;
            for (io.tandem.sim.cost.Stage st : io.tandem.sim.cost.Stage.values()) total2 += cpu1[k][st.ordinal()] - cpu0[k][st.ordinal()];
            b.append(String.format(Locale.ROOT, " busy %.1f%%", 100.0 * total2 / 2e9));
            for (io.tandem.sim.cost.Stage st : io.tandem.sim.cost.Stage.values()) {
                int o = st.ordinal(), w = 4 + o;
                b.append(String.format(Locale.ROOT, " %s %.2f us/op (%d wakeups, %.3f/op)", st, (cpu1[k][o] - cpu0[k][o]) / 1e3 / l.length,
                        cpu1[k][w] - cpu0[k][w], (cpu1[k][w] - cpu0[k][w]) / (double) l.length));
            }
            System.out.println(b);
        }
        System.out.println("   handled per command (all nodes): count, bytes per message, wall ns per message (JIT-warm-ish, for ranking only)");
        for (Map.Entry<String, long[]> e : handled.entrySet()) {
            long[] c = e.getValue();
            System.out.printf(Locale.ROOT, "   %-40s %6.3f  %6.0f B  %7.0f ns%n", e.getKey(), c[0] / (double) l.length, c[1] / (double) c[0], c[2] / (double) c[0]);
        }
        for (NodeId n : sim.members()) {
            Engine e = sim.engine(n).orElse(null);
            System.out.println("   " + n.value() + ": " + (e instanceof Inspectable in ? in.inspect() : String.valueOf(e)));
        }
        try {
            java.lang.reflect.Field f = Simulation.class.getDeclaredField("nodes");
            f.setAccessible(true);
            @SuppressWarnings("unchecked")
            Map<NodeId, SimNode> nodes = (Map<NodeId, SimNode>) f.get(sim);
            Map<String, Long> sum = new TreeMap<>();
            for (SimNode node : nodes.values()) {
                java.lang.reflect.Field cf = SimMeters.class.getDeclaredField("counters");
                cf.setAccessible(true);
                Map<String, ?> counters = (Map<String, ?>) cf.get(node.meters);
                for (String k : counters.keySet()) {
                    if (k.startsWith("tandem.copilot")) sum.merge(node.id.value() + " " + k, ((io.tandem.engine.Meters.Counter) counters.get(k)).count(), Long::sum);
                }
            }
            sum.forEach((k, v) -> { if (v > 0) System.out.println("   " + k + " = " + v); });
            for (SimNode node : nodes.values()) {
                java.lang.reflect.Field df = SimMeters.class.getDeclaredField("distributions");
                df.setAccessible(true);
                Map<String, ?> dists = (Map<String, ?>) df.get(node.meters);
                for (Map.Entry<String, ?> d : dists.entrySet()) {
                    if (!d.getKey().startsWith("tandem.copilot")) continue;
                    Object v = d.getValue();
                    long count = field(v, "count"), dsum = field(v, "sum"), max = field(v, "max");
                    if (count > 0) System.out.printf(Locale.ROOT, "   %s %s: n=%d mean %.1f us max %.1f us%n", node.id.value(), d.getKey(), count, dsum / 1e3 / count, max / 1e3);
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        for (SimBenchClient c : clients) c.stop();
    }
}
