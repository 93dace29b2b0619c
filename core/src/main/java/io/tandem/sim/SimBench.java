package io.tandem.sim;

import io.tandem.engine.Engine;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.sim.cost.CostModel;
import io.tandem.sim.cost.CostTable;
import io.tandem.sim.cost.HandlerProbe;
import io.tandem.sim.cost.NodeCpu;
import io.tandem.sim.cost.Slowdown;
import io.tandem.sim.cost.Stage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The performance simulator (issue 18, DESIGN §8.5): the real engines in the deterministic
 * simulator, with time from a calibrated {@link CostModel}, under closed-loop clients; optionally a
 * slowdown ({@link Slowdown}) applied after the warm-up. One run is a pure function of the
 * protocol, the {@link Config} and the {@link CostTable}: same inputs, same numbers, on any machine.
 *
 * <p>Timeline of a run: {@code warmup} (the cluster elects and settles, clients start at 0), then the
 * slowdowns are applied to their nodes (the followers are chosen then, never the leader), then
 * {@code settle} not measured, then {@code measure} measured: operations completed in that window,
 * their latencies, the leader's queues.
 */
public final class SimBench {
    private SimBench() {}

    /**
     * @param nodes     group size
     * @param clients   closed-loop clients, one write outstanding each
     * @param keys      key space (uniform)
     * @param warmupNanos  before the slowdowns are applied
     * @param settleNanos  after they are applied, not measured
     * @param measureNanos the measured window
     * @param seed      the run's seed
     * @param resources where the nodes run (cores)
     * @param slow      slowdowns applied at the end of the warm-up (empty: a healthy run)
     * @param readShare share of operations that are linearizable reads (0 to 1; 0: write-only, the default)
     */
    public record Config(int nodes, int clients, int keys, long warmupNanos, long settleNanos, long measureNanos, long seed,
                         CostModel.Resources resources, List<Slowdown> slow, double readShare) {
        public Config {
            if (nodes < 1 || clients < 1 || keys < 1) throw new IllegalArgumentException("nodes, clients and keys must be >= 1");
            if (warmupNanos < 0 || settleNanos < 0 || measureNanos <= 0) throw new IllegalArgumentException("bad timeline");
            if (!(readShare >= 0 && readShare <= 1)) throw new IllegalArgumentException("read share must be between 0 and 1, not " + readShare);
            slow = List.copyOf(slow);
        }

        /** A write-only workload. */
        public Config(int nodes, int clients, int keys, long warmupNanos, long settleNanos, long measureNanos, long seed,
                      CostModel.Resources resources, List<Slowdown> slow) {
            this(nodes, clients, keys, warmupNanos, settleNanos, measureNanos, seed, resources, slow, 0);
        }

        public Config withReadShare(double share) {
            return new Config(nodes, clients, keys, warmupNanos, settleNanos, measureNanos, seed, resources, slow, share);
        }

        public static Config of(int nodes, int clients) {
            return new Config(nodes, clients, 10_000, SimTime.seconds(2), SimTime.seconds(1), SimTime.seconds(4), 1, CostModel.Resources.dedicated(1), List.of());
        }

        public Config withSlow(List<Slowdown> s) {
            return new Config(nodes, clients, keys, warmupNanos, settleNanos, measureNanos, seed, resources, s, readShare);
        }

        public Config withResources(CostModel.Resources r) {
            return new Config(nodes, clients, keys, warmupNanos, settleNanos, measureNanos, seed, r, slow, readShare);
        }

        public Config withTimeline(long warmup, long settle, long measure) {
            return new Config(nodes, clients, keys, warmup, settle, measure, seed, resources, slow, readShare);
        }

        public Config withSeed(long s) {
            return new Config(nodes, clients, keys, warmupNanos, settleNanos, measureNanos, s, resources, slow, readShare);
        }

        public Config withClients(int c) {
            return new Config(nodes, c, keys, warmupNanos, settleNanos, measureNanos, seed, resources, slow, readShare);
        }

        public Config withNodes(int n) {
            return new Config(n, clients, keys, warmupNanos, settleNanos, measureNanos, seed, resources, slow, readShare);
        }
    }

    /**
     * One machine's share of the measured window.
     *
     * @param node       the member
     * @param cpu        its core time per second of window (1.0 = one core busy)
     * @param queueMax   most jobs queued on its CPU at once, sampled every 10 ms of the window
     * @param sent       messages it put on its links to other members in the window (client replies not counted)
     * @param disk       share of the window its disk spent flushing or transferring (1.0 = always busy: the disk limits it)
     * @param received   messages that arrived on its links from other members in the window (client requests not counted)
     */
    public record NodeStat(String node, double cpu, int queueMax, long sent, double disk, long received) {}

    /** One second (or shorter bucket) of the run: operations completed in it and their latencies. */
    public record Bucket(long startNanos, long ops, double meanMicros, double p99Micros, int leaderQueued, long leaderOutboxBytes) {}

    /**
     * What a run measured in its window. Latencies in microseconds of virtual time.
     *
     * @param leader          the node that led when the slowdowns were applied (null if none did)
     * @param slowNodes       the nodes slowed
     * @param leaderQueueMax  most jobs queued on the leader's CPU at once in the window (its memory, in the model)
     * @param leaderQueueEnd  jobs queued on the leader at the end of the window
     * @param leaderQueueStart jobs queued on the leader at the start of the window
     * @param leaderInFlightMax most messages the leader had on its links to the slow nodes at once in the window
     * @param backlogStart    work waiting for the slow nodes at the start of the window: messages on the leader's links to
     *                        them plus the jobs queued on their CPUs (with TCP flow control, what a real leader
     *                        would end up buffering once the slow nodes' socket buffers are full)
     * @param backlogEnd      the same at the end of the window (growth = an unbounded queue somewhere)
     * @param leaderCpu       the leader's core time in the window per second of window (1.0 = one core busy)
     * @param cpuMicrosPerOp  core time of every node and the load generator in the window, per completed operation
     * @param nodeStats       every member's CPU, queue and messages sent in the window, in member order
     * @param leaderChanges   how often the leader sampled every 10 ms changed in the window
     * @param p90Micros       the 90th percentile latency (after the others: added later, the CSV keeps its column order)
     * @param leaderOutboxStart bytes waiting in the leader's per-peer outboxes at the start of the window (its transport's
     *                        heap: frames the connections' windows had no room for; 0 without a window in the table)
     * @param leaderOutboxMax the most of it in the window (sampled every 10 ms)
     * @param leaderOutboxEnd the same at the end of the window (growth = the leader's memory growing)
     * @param leaderOutboxDropped frames the leader's outboxes dropped at their bound in the window
     * @param stageMicrosPerOp core time per completed operation in the window of every machine's stage ("n1/IO", "client/IO",
     *                        ...; the per-thread comparison with a real run's profile), in member order, the load generator last;
     *                        then every member's log syncs per thousand operations ("n1/syncs-per-1000-ops"), then every
     *                        stage's turns (jobs that found its thread parked) per thousand operations ("n1/LOOP-turns-per-1000-ops")
     * @param stageCores      core time per second of window of every machine's stage, same keys as {@code stageMicrosPerOp}
     *                        without the syncs (1.0 = one core busy: with one core per node, the node's utilisation is their sum)
     * @param stageTurnCores  the part of {@code stageCores} that was wake-up turns (a thread's cost of having been idle, which
     *                        falls per operation as the load grows); the rest is the jobs' own work
     * @param leaderHeldStart what the leader's engine held for replication at the start of the window, by its own accounting
     *                        ({@link MemoryAccounting}; {@link MemoryAccounting.Held#NONE} for an engine that does not account)
     * @param leaderHeldMax   the most of each part, sampled every 250 ms of the window
     * @param leaderHeldEnd   the same at the end of the window
     */
    public record Result(String protocol, Config config, String leader, List<String> slowNodes, long ops, double throughput,
                         double meanMicros, double p50Micros, double p99Micros, double p999Micros, double maxMicros,
                         int leaderQueueStart, int leaderQueueMax, int leaderQueueEnd, int leaderInFlightMax, int backlogStart, int backlogEnd, double leaderCpu,
                         int leaderChanges, long retries, long events, long wallNanos, List<Bucket> timeline, double cpuMicrosPerOp, List<NodeStat> nodeStats, double p90Micros,
                         long leaderOutboxStart, long leaderOutboxMax, long leaderOutboxEnd, long leaderOutboxDropped,
                         java.util.Map<String, Double> stageMicrosPerOp, java.util.Map<String, Double> stageCores,
                         java.util.Map<String, Double> stageTurnCores, MemoryAccounting.Held leaderHeldStart, MemoryAccounting.Held leaderHeldMax,
                         MemoryAccounting.Held leaderHeldEnd) {
        /** The busiest machine of the window (highest CPU), or null if none ran. */
        public NodeStat busiest() {
            NodeStat best = null;
            for (NodeStat n : nodeStats) if (best == null || n.cpu() > best.cpu()) best = n;
            return best;
        }

        /** Messages the leader sent to other members per completed operation in the window (NaN without a leader or operations). */
        public double leaderSentPerOp() {
            if (leader == null || ops == 0) return Double.NaN;
            for (NodeStat n : nodeStats) if (n.node().equals(leader)) return n.sent() / (double) ops;
            return Double.NaN;
        }

        /** Messages that arrived at the leader from other members per completed operation in the window (NaN without a leader or operations). */
        public double leaderReceivedPerOp() {
            if (leader == null || ops == 0) return Double.NaN;
            for (NodeStat n : nodeStats) if (n.node().equals(leader)) return n.received() / (double) ops;
            return Double.NaN;
        }

        public String slowText() {
            if (config.slow().isEmpty()) return "healthy";
            return String.join(" ", config.slow().stream().map(Slowdown::format).toList());
        }
    }

    public static Result run(Protocol protocol, Config config, CostTable table) {
        return run(protocol, config, table, null);
    }

    /** Same, with every handler timed in wall-clock time by {@code probe} (calibration). */
    public static Result run(Protocol protocol, Config config, CostTable table, HandlerProbe probe) {
        long wallStart = System.nanoTime(); // for the report only
        SimOptions options = SimOptions.defaults().toBuilder()
                .seed(config.seed()).nodes(config.nodes()).clients(config.clients()).ops(0)
                .faults(java.util.EnumSet.noneOf(FaultKind.class)).faultsPerSecond(0)
                .lossRate(0).duplicateRate(0).reorderRate(0).codec(true).invariants(false).clockDriftPpm(0)
                .maxEvents(Long.MAX_VALUE / 2).build();
        CostModel costs = new CostModel(table, config.resources(), config.seed());
        Simulation sim = new Simulation(protocol, options, null, costs);
        if (probe != null) sim.setHandlerProbe(probe);
        LatencyLog log = new LatencyLog();
        List<SimBenchClient> clients = new ArrayList<>();
        sim.begin();
        for (int t = 0; t < config.clients(); t++) {
            SimBenchClient c = new SimBenchClient(sim, t, config.keys(), config.readShare(), SimTime.seconds(2), config.seed(), log);
            clients.add(c);
            sim.at(0, c::start);
        }
        // Warm-up, then until a leader is known (at most 10 s more): the slowdowns are applied to a settled cluster.
        sim.runUntil(config.warmupNanos());
        long giveUp = config.warmupNanos() + SimTime.seconds(10);
        while (leaderOf(sim).isEmpty() && sim.nowNanos() < giveUp) sim.runUntil(sim.nowNanos() + SimTime.millis(10));
        String[] leader = {leaderOf(sim).map(NodeId::value).orElse(null)};
        List<String> slowNodes = applySlowdowns(sim, costs, config.slow(), leader[0]);
        long windowStart = sim.nowNanos() + config.settleNanos();
        long windowEnd = windowStart + config.measureNanos();
        log.window(windowStart, windowEnd);
        Sampler sampler = new Sampler(sim, costs, leader, slowNodes, windowStart, windowEnd);
        sim.at(windowStart, sampler::tick);
        sim.runUntil(windowStart);
        long droppedStart = leader[0] == null ? 0 : costs.network().outboxDropped(leader[0]);
        String profileFile = System.getProperty("tandem.simbench.profile");
        if (profileFile != null && !profileFile.isEmpty()) costs.profile().start();
        long busyStart = totalBusy(costs);
        List<NodeId> members = sim.members();
        java.util.Map<String, Long> stageBusyStart = stageBusy(costs, members);
        java.util.Map<String, Long> stageTurnStart = stageTurns(costs, members);
        long[] nodeBusyStart = new long[members.size()];
        long[] sentStart = new long[members.size()];
        long[] diskBusyStart = new long[members.size()];
        long[] receivedStart = new long[members.size()];
        for (int i = 0; i < members.size(); i++) {
            nodeBusyStart[i] = Sampler.busy(costs.cpu(members.get(i).value()));
            diskBusyStart[i] = costs.disk(members.get(i).value()).busyNanos();
            sentStart[i] = costs.network().sentBy(members.get(i).value());
            receivedStart[i] = costs.network().receivedBy(members.get(i).value());
        }
        sim.runUntil(windowEnd);
        long busyWindow = totalBusy(costs) - busyStart;
        java.util.Map<String, Double> stagePerOp = new java.util.LinkedHashMap<>();
        int completed = log.latencies().length;
        stageBusy(costs, members).forEach((k, v) -> stagePerOp.put(k, completed == 0 ? Double.NaN : (v - stageBusyStart.get(k)) / 1e3 / completed));
        java.util.Map<String, Double> stageCores = new java.util.LinkedHashMap<>();
        // Core time only: the counters that stageBusy carries for the per-operation map (syncs and turns "per-1000-ops") are not
        // core time, and summed into a machine's busy cores they made the leader's utilisation 14-23 (session 16).
        stageBusy(costs, members).forEach((k, v) -> { if (!k.endsWith("-per-1000-ops")) stageCores.put(k, (v - stageBusyStart.get(k)) / (double) config.measureNanos()); });
        java.util.Map<String, Double> stageTurnCores = new java.util.LinkedHashMap<>();
        stageTurns(costs, members).forEach((k, v) -> stageTurnCores.put(k, (v - stageTurnStart.get(k)) / (double) config.measureNanos()));
        sampler.sampleHeld();
        List<NodeStat> nodeStats = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            String n = members.get(i).value();
            nodeStats.add(new NodeStat(n, (Sampler.busy(costs.cpu(n)) - nodeBusyStart[i]) / (double) config.measureNanos(),
                    sampler.nodeQueueMax.getOrDefault(n, 0), costs.network().sentBy(n) - sentStart[i],
                    (costs.disk(n).busyNanos() - diskBusyStart[i]) / (double) config.measureNanos(), costs.network().receivedBy(n) - receivedStart[i]));
        }
        for (SimBenchClient c : clients) c.stop();
        writeProfile(costs, log.latencies().length);

        long[] lat = log.latencies();
        Arrays.sort(lat);
        double seconds = config.measureNanos() / 1e9;
        double mean = lat.length == 0 ? Double.NaN : Arrays.stream(lat).average().orElse(Double.NaN) / 1e3;
        long retries = clients.stream().mapToLong(SimBenchClient::retries).sum();
        List<Bucket> buckets = log.buckets(sampler);
        return new Result(protocol.name(), config, leader[0], List.copyOf(slowNodes), lat.length, lat.length / seconds,
                mean, q(lat, 0.5), q(lat, 0.99), q(lat, 0.999), lat.length == 0 ? Double.NaN : lat[lat.length - 1] / 1e3,
                sampler.queueStart, sampler.queueMax, sampler.queueEnd, sampler.inFlightMax, Math.max(0, sampler.backlogStart), sampler.backlogEnd,
                sampler.leaderBusy(windowEnd) / (double) config.measureNanos(), sampler.leaderChanges,
                retries, sim.eventsRun(), System.nanoTime() - wallStart, buckets, lat.length == 0 ? Double.NaN : busyWindow / 1e3 / lat.length, List.copyOf(nodeStats), q(lat, 0.9),
                Math.max(0, sampler.outboxStart), sampler.outboxMax, sampler.outboxEnd, leader[0] == null ? 0 : costs.network().outboxDropped(leader[0]) - droppedStart,
                java.util.Collections.unmodifiableMap(stagePerOp), java.util.Collections.unmodifiableMap(stageCores),
                java.util.Collections.unmodifiableMap(stageTurnCores), sampler.heldStart == null ? MemoryAccounting.Held.NONE : sampler.heldStart,
                sampler.heldMax, sampler.heldEnd);
    }

    /**
     * With the system property {@code tandem.simbench.profile=FILE}: the measured window's {@link io.tandem.sim.cost.CostProfile}
     * as CSV lines (machine, what, type, count, µs, count and µs per completed operation), appended to FILE; a diagnostic.
     */
    private static void writeProfile(CostModel costs, long completed) {
        String file = System.getProperty("tandem.simbench.profile");
        if (file == null || file.isEmpty()) return;
        List<String> lines = new ArrayList<>();
        java.nio.file.Path path = java.nio.file.Path.of(file);
        if (!java.nio.file.Files.exists(path)) lines.add("node,what,type,count,micros,count_per_op,micros_per_op");
        List<io.tandem.sim.cost.CostProfile.Entry> entries = costs.profile().entries();
        entries.sort(java.util.Comparator.comparing((io.tandem.sim.cost.CostProfile.Entry e) -> e.key().node()).thenComparing(e -> -e.nanos()));
        for (io.tandem.sim.cost.CostProfile.Entry e : entries) {
            double ops = Math.max(1, completed);
            lines.add(String.format(java.util.Locale.ROOT, "%s,%s,%s,%d,%.1f,%.5f,%.5f", e.key().node(), e.key().what(), e.key().type(), e.count(),
                    e.nanos() / 1e3, e.count() / ops, e.nanos() / 1e3 / ops));
        }
        try {
            java.nio.file.Files.write(path, lines, java.nio.charset.StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The wake-up turns' part of {@link #stageBusy}, same keys (without the syncs). */
    private static java.util.Map<String, Long> stageTurns(CostModel costs, List<NodeId> members) {
        return perStage(costs, members, (cpu, s) -> cpu.turnNanos(s));
    }

    /** One number of every member's and the load generator's stages, keyed "node/STAGE". */
    private static java.util.Map<String, Long> perStage(CostModel costs, List<NodeId> members,
                                                        java.util.function.ToLongBiFunction<NodeCpu, Stage> value) {
        java.util.Map<String, Long> out = new java.util.LinkedHashMap<>();
        for (String n : stageOwners(members)) for (Stage s : Stage.values()) out.put(n + "/" + s.name(), value.applyAsLong(costs.cpu(n), s));
        return out;
    }

    private static List<String> stageOwners(List<NodeId> members) {
        List<String> names = new ArrayList<>();
        for (NodeId m : members) names.add(m.value());
        names.add(CostModel.CLIENT);
        return names;
    }

    /** Core time so far of every member's and the load generator's stages, keyed "node/STAGE". */
    private static java.util.Map<String, Long> stageBusy(CostModel costs, List<NodeId> members) {
        java.util.Map<String, Long> out = perStage(costs, members, (cpu, s) -> cpu.busyNanos(s));
        List<String> names = stageOwners(members);
        // Log syncs, in thousandths so that the per-operation division gives syncs per thousand operations.
        for (NodeId m : members) out.put(m.value() + "/syncs-per-1000-ops", costs.disk(m.value()).flushes() * 1_000_000L);
        // Turns (a job that found its thread parked: the wake-ups the real threads' voluntary context switches count), per thousand ops.
        for (String n : names) for (Stage s : Stage.values()) out.put(n + "/" + s.name() + "-turns-per-1000-ops", costs.cpu(n).wakeups(s) * 1_000_000L);
        return out;
    }

    private static long totalBusy(CostModel costs) {
        long b = 0;
        for (io.tandem.sim.cost.CpuHost h : costs.hosts().values()) b += h.busyNanos();
        return b;
    }

    private static double q(long[] sorted, double quantile) {
        if (sorted.length == 0) return Double.NaN;
        int i = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e3;
    }

    /** The node whose engine says it leads (the highest epoch if several do), if any. */
    static Optional<NodeId> leaderOf(Simulation sim) {
        NodeId best = null;
        long epoch = -1;
        for (NodeId n : sim.members()) {
            Optional<Engine> e = sim.engine(n);
            if (e.isEmpty()) continue;
            EngineStatus s = e.get().status();
            if (s.role() == EngineStatus.Role.LEADER && s.epoch() > epoch) {
                best = n;
                epoch = s.epoch();
            }
        }
        return Optional.ofNullable(best);
    }

    private static List<String> applySlowdowns(Simulation sim, CostModel costs, List<Slowdown> slow, String leader) {
        List<String> slowed = new ArrayList<>();
        for (Slowdown s : slow) {
            List<String> targets = new ArrayList<>();
            switch (s.target()) {
                case "leader" -> {
                    if (leader == null) throw new IllegalStateException("no leader at the end of the warm-up to slow down");
                    targets.add(leader);
                }
                case "follower" -> {
                    // The last members that are not the leader (and not already slowed), as the real harness picks them.
                    List<NodeId> members = new ArrayList<>(sim.members());
                    java.util.Collections.reverse(members);
                    for (NodeId m : members) {
                        if (targets.size() == s.count()) break;
                        if (!m.value().equals(leader) && !slowed.contains(m.value())) targets.add(m.value());
                    }
                    if (targets.size() < s.count()) throw new IllegalArgumentException(s.format() + ": only " + targets.size() + " followers to slow");
                }
                default -> {
                    if (!sim.members().contains(NodeId.of(s.target()))) throw new IllegalArgumentException(s.format() + ": no member " + s.target());
                    targets.add(s.target());
                }
            }
            for (String t : targets) {
                s.apply(costs, t);
                slowed.add(t);
            }
        }
        return slowed;
    }

    /** Latencies of the operations completed in the window, and per-bucket counts. */
    private static final class LatencyLog implements SimBenchClient.Recorder {
        static final long BUCKET = SimTime.millis(250);
        private long start = Long.MAX_VALUE;
        private long end;
        private long[] values = new long[1024];
        private int size;
        private final List<List<Long>> perBucket = new ArrayList<>();

        void window(long start, long end) {
            this.start = start;
            this.end = end;
            for (long t = start; t < end; t += BUCKET) perBucket.add(new ArrayList<>());
        }

        @Override
        public void completed(long atNanos, long latencyNanos) {
            if (atNanos < start || atNanos > end) return;
            if (size == values.length) values = Arrays.copyOf(values, size * 2);
            values[size++] = latencyNanos;
            int b = (int) Math.min(perBucket.size() - 1, (atNanos - start) / BUCKET);
            perBucket.get(b).add(latencyNanos);
        }

        long[] latencies() {
            return Arrays.copyOf(values, size);
        }

        List<Bucket> buckets(Sampler sampler) {
            List<Bucket> out = new ArrayList<>();
            for (int i = 0; i < perBucket.size(); i++) {
                long[] l = perBucket.get(i).stream().mapToLong(Long::longValue).sorted().toArray();
                double mean = l.length == 0 ? Double.NaN : Arrays.stream(l).average().orElse(Double.NaN) / 1e3;
                out.add(new Bucket(start + i * BUCKET - start, l.length, mean, q(l, 0.99), sampler.queueAt(i), sampler.outboxAt(i)));
            }
            return out;
        }
    }

    /** Samples the leader's queues every 10 ms of the window (reads only: it changes nothing in the run). */
    private static final class Sampler {
        static final long EVERY = SimTime.millis(10);
        private final Simulation sim;
        private final CostModel costs;
        private final String[] leader;
        private final List<String> slowNodes;
        private final long start;
        private final long end;
        int queueStart = -1;
        int queueMax;
        int queueEnd;
        int inFlightMax;
        int backlogStart = -1;
        int backlogEnd;
        int leaderChanges;
        long outboxStart = -1;
        long outboxMax;
        long outboxEnd;
        private final List<Long> outboxByBucket = new ArrayList<>();
        MemoryAccounting.Held heldStart;
        MemoryAccounting.Held heldMax = MemoryAccounting.Held.NONE;
        MemoryAccounting.Held heldEnd = MemoryAccounting.Held.NONE;
        private int ticks;
        private String lastLeader;
        private long busyAtStart = -1;
        private final List<Integer> queueByBucket = new ArrayList<>();
        final java.util.Map<String, Integer> nodeQueueMax = new java.util.HashMap<>(); // keyed lookups only, never iterated

        Sampler(Simulation sim, CostModel costs, String[] leader, List<String> slowNodes, long start, long end) {
            this.sim = sim;
            this.costs = costs;
            this.leader = leader;
            this.slowNodes = slowNodes;
            this.start = start;
            this.end = end;
        }

        void tick() {
            String now = leaderOf(sim).map(NodeId::value).orElse(null);
            if (lastLeader != null && now != null && !now.equals(lastLeader)) leaderChanges++;
            if (now != null) lastLeader = now;
            if (leader[0] != null) {
                NodeCpu cpu = costs.cpu(leader[0]);
                if (busyAtStart < 0) busyAtStart = busy(cpu);
                int q = cpu.queued();
                if (queueStart < 0) queueStart = q;
                queueMax = Math.max(queueMax, q);
                queueEnd = q;
                int inFlight = 0;
                for (String s : slowNodes) inFlight += costs.network().inFlight(leader[0], s);
                inFlightMax = Math.max(inFlightMax, inFlight);
                int backlog = inFlight;
                for (String s : slowNodes) backlog += costs.cpu(s).queued();
                if (backlogStart < 0) backlogStart = backlog;
                backlogEnd = backlog;
                int bucket = (int) ((sim.nowNanos() - start) / LatencyLog.BUCKET);
                while (queueByBucket.size() <= bucket) queueByBucket.add(0);
                queueByBucket.set(bucket, Math.max(queueByBucket.get(bucket), q));
                long outbox = costs.network().outboxBytes(leader[0]);
                if (outboxStart < 0) outboxStart = outbox;
                outboxMax = Math.max(outboxMax, outbox);
                outboxEnd = outbox;
                while (outboxByBucket.size() <= bucket) outboxByBucket.add(0L);
                outboxByBucket.set(bucket, Math.max(outboxByBucket.get(bucket), outbox));
                if (ticks % 25 == 0) sampleHeld(); // every 250 ms: the engine's accounting scans its retained log
            }
            ticks++;
            for (NodeId m : sim.members()) nodeQueueMax.merge(m.value(), costs.cpu(m.value()).queued(), Math::max);
            if (sim.nowNanos() + EVERY <= end) sim.at(sim.nowNanos() + EVERY, this::tick);
        }

        /** What the leader's engine holds for replication now, into start, max and end (nothing for an engine that does not account). */
        void sampleHeld() {
            if (leader[0] == null) return;
            Optional<Engine> e = sim.engine(NodeId.of(leader[0]));
            if (e.isEmpty() || !(e.get() instanceof MemoryAccounting m)) return;
            MemoryAccounting.Held h = m.heldForReplication();
            if (heldStart == null) heldStart = h;
            heldMax = heldMax.max(h);
            heldEnd = h;
        }

        static long busy(NodeCpu cpu) {
            long b = 0;
            for (Stage s : Stage.values()) b += cpu.busyNanos(s);
            return b;
        }

        long leaderBusy(long endNanos) {
            if (leader[0] == null || busyAtStart < 0) return 0;
            return busy(costs.cpu(leader[0])) - busyAtStart;
        }

        long outboxAt(int bucket) {
            return bucket < outboxByBucket.size() ? outboxByBucket.get(bucket) : 0;
        }

        int queueAt(int bucket) {
            return bucket < queueByBucket.size() ? queueByBucket.get(bucket) : 0;
        }
    }
}
