package io.tandem.bench.sim;

import io.tandem.protocols.Protocols;
import io.tandem.sim.SimBench;
import io.tandem.sim.SimTime;
import io.tandem.sim.cost.CostModel;
import io.tandem.sim.cost.CostTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The model against the real cluster benchmark (issue 18): reads the {@code summary.csv} of
 * {@code jmh/run-peers.sh} runs (one per client count, configuration {@code 64B-fsync}), runs the
 * performance simulator for the same systems and client counts with every replica and the load
 * generator sharing this machine's cores (as the real runs do), and prints and writes the error of
 * each point and whether the model ranks the systems as the real runs do. Target: within 25 %.
 *
 * <p>Usage: {@code SimValidation --real 1=DIR --real 16=DIR --real 64=DIR [--costs FILE] [--cores 2] [--out FILE]};
 * {@code jmh/run-simvalidate.sh} runs the real side and then this.
 */
public final class SimValidation {
    private SimValidation() {}

    private record Point(double throughput, double p50, double p99, double cpuPerOp) {}

    private static final Map<String, String[]> SYSTEMS = new LinkedHashMap<>();

    static {
        SYSTEMS.put("tandem-raft", new String[] {"raft", "3"});
        SYSTEMS.put("tandem-multipaxos", new String[] {"multipaxos", "3"});
        SYSTEMS.put("tandem-unreplicated", new String[] {"unreplicated", "1"});
    }

    public static void main(String[] args) throws IOException {
        Map<Integer, List<Path>> real = new LinkedHashMap<>();
        Map<String, CostTable> tableFor = new HashMap<>(); // "CLIENTS" or "CLIENTS/SYSTEM"
        CostTable table = null;
        int cores = Runtime.getRuntime().availableProcessors();
        Path out = null;
        String config = "64B-fsync";
        boolean separateDisks = false;
        boolean stages = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--real" -> {
                    String[] kv = args[++i].split("=", 2);
                    real.computeIfAbsent(Integer.parseInt(kv[0]), k -> new ArrayList<>()).add(Path.of(kv[1]));
                }
                case "--costs" -> table = CostTable.read(Path.of(args[++i]));
                case "--costs-for" -> {
                    String[] kv = args[++i].split("=", 2);
                    tableFor.put(kv[0], CostTable.read(Path.of(kv[1])));
                }
                case "--cores" -> cores = Integer.parseInt(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--config" -> config = args[++i];
                case "--separate-disks" -> separateDisks = true;
                case "--stages" -> stages = true;
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (--real CLIENTS=DIR, --costs FILE, --costs-for CLIENTS[/SYSTEM]=FILE, --cores N, --out FILE, --config NAME, --separate-disks, --stages)");
            }
        }
        if (table == null) table = CostTable.calibrated();
        CostModel.Resources resources = separateDisks ? CostModel.Resources.shared(cores).withSeparateDisks() : CostModel.Resources.shared(cores);
        System.out.printf("cost table: calibrated %s on %s, load %s; model: all replicas and the load generator on %d shared cores, %s; link stalls %s per s, window %d B; hand-off latency %s%n",
                table.meta("date"), table.meta("host"), table.meta("load.before"), cores, separateDisks ? "a disk of its own per node" : "one disk device shared by the nodes",
                table.values().getOrDefault("net.stall.perSecond", "none (tail per message)"), table.windowBytes(),
                table.handoffLatency() == null ? "none" : String.format(Locale.ROOT, "p50 %.1f us, p99 %.1f us", table.handoffLatency().quantile(0.5) / 1e3, table.handoffLatency().quantile(0.99) / 1e3));
        List<String> csv = new ArrayList<>();
        csv.add("clients,system,real_ops_s,model_ops_s,throughput_error_pct,real_p50_us,model_p50_us,real_p99_us,model_p99_us,real_cpu_us_per_op,model_cpu_us_per_op,within_25pct");
        System.out.printf("%-7s %-20s %10s %10s %7s %9s %9s %9s %9s %9s %9s%n", "clients", "system", "real ops/s", "model", "err %", "real p50", "model p50", "real p99", "model p99", "real cpu", "model cpu");
        int within = 0;
        int points = 0;
        List<String> rankings = new ArrayList<>();
        for (Map.Entry<Integer, List<Path>> e : real.entrySet()) {
            int clients = e.getKey();
            Map<String, Point> measured = new HashMap<>();
            for (Path dir : e.getValue()) {
                Path summary = dir.resolve("summary.csv");
                if (Files.exists(summary)) measured.putAll(readSummary(summary, config));
            }
            if (measured.isEmpty()) System.out.println(clients + " clients: no real measurement in " + e.getValue() + " (see the runs' logs)");
            Map<String, Double> realThr = new HashMap<>();
            Map<String, Double> modelThr = new HashMap<>();
            for (Map.Entry<String, String[]> s : SYSTEMS.entrySet()) {
                Point r = measured.get(s.getKey());
                // The disk is the machine's state, not the code's: a table with the disk sampled while this system's real run
                // went on (the other engineers' builds move the fsync distribution by 10x within minutes) replaces the global one.
                CostTable pointTable = tableFor.getOrDefault(clients + "/" + s.getKey(), tableFor.getOrDefault(Integer.toString(clients), table));
                if (pointTable != table)
                    System.out.printf(Locale.ROOT, "%d clients, %s: disk measured %s: fsync p50 %.0f us, p99 %.0f us%n", clients, s.getKey(), pointTable.meta("disk.date"),
                            fsyncQuantile(pointTable, 0.5) / 1e3, fsyncQuantile(pointTable, 0.99) / 1e3);
                SimBench.Config c = new SimBench.Config(Integer.parseInt(s.getValue()[1]), clients, 10_000, SimTime.seconds(2), SimTime.millis(500), SimTime.seconds(3), 1,
                        resources, List.of());
                SimBench.Result m = SimBench.run(Protocols.byName(s.getValue()[0]), c, pointTable);
                modelThr.put(s.getKey(), m.throughput());
                if (stages) {
                    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  model CPU us/op by stage, %d clients, %s:", clients, s.getKey()));
                    m.stageMicrosPerOp().forEach((k, v) -> { if (v > 0.005) line.append(String.format(Locale.ROOT, " %s %.2f", k, v)); });
                    System.out.println(line);
                }
                if (r == null) {
                    System.out.printf(Locale.ROOT, "%-7d %-20s %10s %10.0f %7s %9s %9.0f %9s %9.0f%n", clients, s.getKey(), "-", m.throughput(), "-", "-", m.p50Micros(), "-", m.p99Micros());
                    csv.add(String.format(Locale.ROOT, "%d,%s,,%.0f,,,%.0f,,%.0f,", clients, s.getKey(), m.throughput(), m.p50Micros(), m.p99Micros()));
                    continue;
                }
                realThr.put(s.getKey(), r.throughput());
                double err = 100.0 * (m.throughput() - r.throughput()) / r.throughput();
                points++;
                if (Math.abs(err) <= 25) within++;
                System.out.printf(Locale.ROOT, "%-7d %-20s %10.0f %10.0f %+7.1f %9.0f %9.0f %9.0f %9.0f %9.1f %9.1f%n", clients, s.getKey(), r.throughput(), m.throughput(), err,
                        r.p50(), m.p50Micros(), r.p99(), m.p99Micros(), r.cpuPerOp(), m.cpuMicrosPerOp());
                csv.add(String.format(Locale.ROOT, "%d,%s,%.0f,%.0f,%.1f,%.0f,%.0f,%.0f,%.0f,%.1f,%.1f,%s", clients, s.getKey(), r.throughput(), m.throughput(), err, r.p50(), m.p50Micros(),
                        r.p99(), m.p99Micros(), r.cpuPerOp(), m.cpuMicrosPerOp(), Math.abs(err) <= 25));
            }
            List<String> realRank = realThr.keySet().stream().sorted((a, b) -> Double.compare(realThr.get(b), realThr.get(a))).toList();
            List<String> modelRank = realRank.stream().sorted((a, b) -> Double.compare(modelThr.get(b), modelThr.get(a))).toList();
            rankings.add(clients + " clients: real " + realRank + ", model " + modelRank + (realRank.equals(modelRank) ? " (same)" : " (DIFFERENT)"));
        }
        rankings.forEach(System.out::println);
        System.out.printf("%d of %d points within 25 %% of real throughput%n", within, points);
        if (out != null) {
            Files.write(out, csv, StandardCharsets.UTF_8);
            System.out.println("wrote " + out);
        }
    }

    private static double fsyncQuantile(CostTable t, double q) {
        String d = t.values().get("disk.fsync");
        return d == null ? Double.NaN : io.tandem.sim.cost.Distribution.parse(d).quantile(q);
    }

    private static Map<String, Point> readSummary(Path file, String config) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<String> header = List.of(lines.getFirst().split(","));
        int cConfig = header.indexOf("config");
        int cSystem = header.indexOf("system");
        int cThr = header.indexOf("throughput");
        int cP50 = header.indexOf("p50_us");
        int cP99 = header.indexOf("p99_us");
        int cCpu = header.indexOf("cpu_us_per_op");
        Map<String, Point> out = new HashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            if (f.length <= cP99 || !f[cConfig].equals(config) || f[cThr].isBlank()) continue;
            double cpu = cCpu >= 0 && !f[cCpu].isBlank() ? Double.parseDouble(f[cCpu]) : Double.NaN;
            out.put(f[cSystem], new Point(Double.parseDouble(f[cThr]), Double.parseDouble(f[cP50]), Double.parseDouble(f[cP99]), cpu));
        }
        return out;
    }
}
