// Runs simbench rows in parallel threads of one JVM (each SimBench.run is an independent, deterministic model: the
// same numbers as `tandem simbench` gives for the row) and prints one CSV line per row. Used when the machine is too
// contended for rows run one after another (session 15, docs/perfsim.md §7):
//   java -cp kvstore/target/tandem.jar[:protocols/target/tandem-protocols-*-tests.jar] simbench/tools/ParallelRows.java \
//        [COSTS=FILE] WARMUP SETTLE MEASURE "protocol nodes clients seed healthy|slowdown" ...
import io.tandem.protocols.Protocols;
import io.tandem.sim.SimBench;
import io.tandem.sim.cost.CostModel;
import io.tandem.sim.cost.CostTable;
import io.tandem.sim.cost.Slowdown;
import io.tandem.sim.cost.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public class ParallelRows {
    public static void main(String[] args) throws Exception {
        long warmup = Units.parseNanos(args[0]), settle = Units.parseNanos(args[1]), measure = Units.parseNanos(args[2]);
        CostTable table = System.getenv("COSTS") == null ? CostTable.calibrated() : CostTable.read(java.nio.file.Path.of(System.getenv("COSTS"))); // COSTS=FILE: another table
        ExecutorService pool = Executors.newFixedThreadPool(args.length - 3);
        List<Future<String>> out = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            String[] f = args[i].trim().split("\\s+");
            out.add(pool.submit(() -> {
                List<Slowdown> slow = new ArrayList<>();
                for (int k = 4; k < f.length; k++) if (!f[k].equals("healthy")) slow.add(Slowdown.parse(f[k]));
                SimBench.Config c = new SimBench.Config(Integer.parseInt(f[1]), Integer.parseInt(f[2]), 10_000, warmup, settle, measure,
                        Long.parseLong(f[3]), CostModel.Resources.dedicated(1), slow, 0);
                SimBench.Result r = SimBench.run(Protocols.byName(f[0]), c, table);
                double busy = 0, turns = 0;
                for (var e : r.stageCores().entrySet()) if (e.getKey().startsWith(r.leader() + "/")) {
                    busy += e.getValue();
                    turns += r.stageTurnCores().getOrDefault(e.getKey(), 0.0);
                }
                String line = String.format(Locale.ROOT, "%s,%d,%d,%d,%s,%.0f,%.0f,%.0f,%.0f,%.0f,%.3f,%.3f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.1f,%d,%.1f",
                        r.protocol(), c.nodes(), c.clients(), c.seed(), r.slowText(), r.throughput(), r.meanMicros(), r.p50Micros(), r.p99Micros(), r.p999Micros(),
                        busy, busy - turns, r.leaderQueueStart(), r.leaderQueueMax(), r.leaderQueueEnd(), r.leaderOutboxStart(), r.leaderOutboxMax(), r.leaderOutboxEnd(),
                        r.leaderHeldStart().logBytes(), r.leaderHeldMax().logBytes(), r.leaderHeldEnd().logBytes(),
                        r.leaderHeldStart().inflightBytes(), r.leaderHeldMax().inflightBytes(), r.leaderHeldEnd().inflightBytes(), r.backlogEnd(),
                        r.wallNanos() / 1e9, r.leaderChanges(), r.leaderSentPerOp());
                System.out.println(line);
                System.out.flush();
                return line;
            }));
        }
        for (Future<String> f : out) f.get();
        pool.shutdown();
    }
}
