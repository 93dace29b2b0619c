package io.tandem.sim;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Everything that shapes one simulated run besides the protocol. Together with the seed it fixes
 * the run bit for bit; a failing run prints {@link #describe()} and {@link #toCliArgs()} so it can be
 * replayed exactly.
 *
 * @param seed                the seed every random choice of the run derives from
 * @param nodes               group size; members are n1..nN
 * @param clients             concurrent client threads (Jepsen's concurrency)
 * @param ops                 client operations in the fault phase
 * @param keys                keys in use at a time; each key takes at most {@code opsPerKey} operations, then a fresh key replaces it
 * @param opsPerKey           bound on the operations per key, so each key's history stays small enough to check
 * @param durationNanos       length of the fault phase; faults are scheduled in it and client operations spread over it
 * @param opTimeoutNanos      a client operation with no answer after this long completes as {@code :info}
 * @param livenessNanos       after the fault phase everything is healed; every client must then complete
 *                            {@code livenessOps} operations with a definite answer within this bound
 * @param livenessOps         definite completions each client needs after the heal
 * @param faults              fault kinds the generator may schedule
 * @param faultsPerSecond     rate at which fault episodes start (virtual time)
 * @param meanFaultNanos      mean length of a fault episode
 * @param networkLatency      one-way latency of every message (also client to node)
 * @param lossRate            base probability that a message is lost
 * @param duplicateRate       probability that a message is delivered twice
 * @param reorderRate         probability that a message may overtake earlier ones on its link (links are FIFO otherwise)
 * @param codec               pass every engine message through the protocol's Kryo codec (by reference otherwise)
 * @param diskLatency         latency of one group-committed disk flush
 * @param tornWrites          a crash may leave the first unsynced log record torn (detected and dropped on restart)
 * @param unsyncedSurvival    probability that a crash keeps a random prefix of the unsynced writes (the OS flushed them)
 * @param maxEvents           a run that needs more events is failed (a message storm or a livelock)
 * @param invariants          check the built-in and protocol invariants after every step; without them
 *                            only the client history is judged (linearizability, liveness), as Jepsen would
 * @param schedule            an explicit fault schedule (replay of a minimized run), or null to generate one from the seed
 * @param clockDriftPpm       bound on each node's clock rate error, in parts per million: a node's clock runs
 *                            at a seeded rate in [1 - ppm, 1 + ppm] of virtual time, so two clocks drift apart
 *                            (leases must allow for it through the engine's configured drift bound)
 * @param leaseReadShare      share of the clients' reads asked with {@code ReadPolicy.LEASE} (the rest linearizable)
 * @param staleReadShare      share of the clients' reads asked with {@code ReadPolicy.stale(minIndex)}, sent to any member, for
 *                            engines that serve them ({@link SimulatedProtocol#staleReads()}); minIndex is the highest index
 *                            any member had applied when the read was invoked, which makes the read linearizable, so the
 *                            history check judges it like the others. At most {@code 1 - leaseReadShare}
 * @param pipelinedCommands   0, or the number of commands one extra client keeps in flight at once on one session,
 *                            retrying each across failures until answered; every replica must apply each exactly once
 * @param execution           how each node executes the ordered commands: the sequential executor, or the same
 *                            parallel executor the runtime ships (P-SMR, opt-P-SMR) with its workers' steps
 *                            interleaved deterministically from the seed
 * @param executionThreads    workers of a parallel executor (1 for the sequential one)
 * @param randomConfig        each seed runs the engine with a configuration drawn from the seed within its valid
 *                            ranges ({@link SimulatedProtocol#withRandomConfig}); false: the protocol's own
 * @param profile             the shape of the fault phase ({@link FaultProfile}); {@code MIXED} picks one per seed
 * @param admin               an operator issues the protocol's admin commands now and then in the fault phase
 *                            ({@link SimulatedProtocol#adminWorkload}: leader transfers, membership changes)
 */
public record SimOptions(
        long seed,
        int nodes,
        int clients,
        int ops,
        int keys,
        int opsPerKey,
        long durationNanos,
        long opTimeoutNanos,
        long livenessNanos,
        int livenessOps,
        Set<FaultKind> faults,
        double faultsPerSecond,
        long meanFaultNanos,
        Latency networkLatency,
        double lossRate,
        double duplicateRate,
        double reorderRate,
        boolean codec,
        Latency diskLatency,
        boolean tornWrites,
        double unsyncedSurvival,
        long maxEvents,
        boolean invariants,
        FaultSchedule schedule,
        int pipelinedCommands,
        int clockDriftPpm,
        double leaseReadShare,
        double staleReadShare,
        io.tandem.execution.ExecutionMode execution,
        int executionThreads,
        boolean randomConfig,
        FaultProfile profile,
        boolean admin) {

    public SimOptions {
        // An EnumSet keeps a fixed iteration order (Set.copyOf would not, between JVM runs).
        faults = java.util.Collections.unmodifiableSet(faults.isEmpty() ? EnumSet.noneOf(FaultKind.class) : EnumSet.copyOf(faults));
        positive("nodes", nodes);
        if (clockDriftPpm < 0 || clockDriftPpm > 100_000) throw new IllegalArgumentException("clockDriftPpm must be in [0, 100000], was " + clockDriftPpm);
        rate("leaseReadShare", leaseReadShare);
        rate("staleReadShare", staleReadShare);
        if (leaseReadShare + staleReadShare > 1) throw new IllegalArgumentException("leaseReadShare + staleReadShare must be <= 1, was " + (leaseReadShare + staleReadShare));
        positive("clients", clients);
        if (ops < 0) throw new IllegalArgumentException("ops must be >= 0");
        positive("keys", keys);
        positive("opsPerKey", opsPerKey);
        positive("durationNanos", durationNanos);
        positive("opTimeoutNanos", opTimeoutNanos);
        positive("livenessNanos", livenessNanos);
        if (livenessOps < 0) throw new IllegalArgumentException("livenessOps must be >= 0");
        if (faultsPerSecond < 0) throw new IllegalArgumentException("faultsPerSecond must be >= 0");
        positive("meanFaultNanos", meanFaultNanos);
        if (pipelinedCommands < 0) throw new IllegalArgumentException("pipelinedCommands must be >= 0");
        java.util.Objects.requireNonNull(execution, "execution");
        java.util.Objects.requireNonNull(profile, "profile");
        if (executionThreads < 1 || executionThreads > 64) throw new IllegalArgumentException("executionThreads must be in [1, 64], was " + executionThreads);
        if (execution == io.tandem.execution.ExecutionMode.SEQUENTIAL && executionThreads != 1) {
            throw new IllegalArgumentException("the sequential execution runs one thread; executionThreads must be 1");
        }
        rate("lossRate", lossRate);
        rate("duplicateRate", duplicateRate);
        rate("reorderRate", reorderRate);
        rate("unsyncedSurvival", unsyncedSurvival);
        if (lossRate >= 1) throw new IllegalArgumentException("lossRate must be < 1 or nothing ever arrives");
        positive("maxEvents", maxEvents);
        java.util.Objects.requireNonNull(networkLatency, "networkLatency");
        java.util.Objects.requireNonNull(diskLatency, "diskLatency");
    }

    private static void positive(String name, long value) {
        if (value <= 0) throw new IllegalArgumentException(name + " must be > 0, was " + value);
    }

    private static void rate(String name, double value) {
        if (!(value >= 0 && value <= 1)) throw new IllegalArgumentException(name + " must be in [0, 1], was " + value);
    }

    /** Defaults sized so one run takes milliseconds of wall time: 3 nodes, 5 clients, 200 ops, all faults over 5 s. */
    public static SimOptions defaults() {
        return new SimOptions(
                1, 3, 5, 200, 3, 40,
                SimTime.seconds(5), SimTime.seconds(1), SimTime.seconds(10), 2,
                EnumSet.allOf(FaultKind.class), 1.0, SimTime.millis(800),
                new Latency.Uniform(SimTime.micros(200), SimTime.millis(2)), 0.01, 0.01, 0.05, false,
                new Latency.Uniform(SimTime.micros(100), SimTime.millis(1)), true, 0.0,
                5_000_000, true, null, 0, 1000, 0.3, 0.2, io.tandem.execution.ExecutionMode.SEQUENTIAL, 1, false, FaultProfile.STANDARD, false);
    }

    /**
     * The seed mix of {@code tandem sim} (issue 16): the defaults with a configuration drawn per seed
     * and crash-heavy and slow-disk seeds among the standard ones (the operator's admin commands are
     * opt-in: {@link Builder#admin}).
     */
    public static SimOptions mix() {
        return defaults().toBuilder().randomConfig(true).profile(FaultProfile.MIXED).build();
    }

    public SimOptions withSeed(long seed) {
        return toBuilder().seed(seed).build();
    }

    public SimOptions withSchedule(FaultSchedule schedule) {
        return toBuilder().schedule(schedule).build();
    }

    public SimOptions withFaults(Set<FaultKind> faults) {
        return toBuilder().faults(faults).build();
    }

    public SimOptions withWorkload(int nodes, int clients, int ops) {
        return toBuilder().nodes(nodes).clients(clients).ops(ops).build();
    }

    public SimOptions withNetwork(Latency latency, double loss, double duplicate, double reorder, boolean codec) {
        return toBuilder().networkLatency(latency).lossRate(loss).duplicateRate(duplicate).reorderRate(reorder).codec(codec).build();
    }

    public SimOptions withDisk(Latency latency, boolean tornWrites, double unsyncedSurvival) {
        return toBuilder().diskLatency(latency).tornWrites(tornWrites).unsyncedSurvival(unsyncedSurvival).build();
    }

    public SimOptions withTiming(long durationNanos, long opTimeoutNanos, long livenessNanos, int livenessOps) {
        return toBuilder().durationNanos(durationNanos).opTimeoutNanos(opTimeoutNanos).livenessNanos(livenessNanos).livenessOps(livenessOps).build();
    }

    public SimOptions withFaultRate(double faultsPerSecond, long meanFaultNanos) {
        return toBuilder().faultsPerSecond(faultsPerSecond).meanFaultNanos(meanFaultNanos).build();
    }

    public SimOptions withKeys(int keys, int opsPerKey) {
        return toBuilder().keys(keys).opsPerKey(opsPerKey).build();
    }

    public SimOptions withMaxEvents(long maxEvents) {
        return toBuilder().maxEvents(maxEvents).build();
    }

    /** Without the invariants (built-in and protocol): only the client history is judged, as Jepsen would. */
    public SimOptions withInvariants(boolean invariants) {
        return toBuilder().invariants(invariants).build();
    }

    /** Adds a client with {@code commands} commands in flight at once on one session (0: none). */
    /** Nodes execute with {@code mode} on {@code threads} workers (stepped deterministically from the seed). */
    public SimOptions withExecution(io.tandem.execution.ExecutionMode mode, int threads) {
        return toBuilder().execution(mode, threads).build();
    }

    public SimOptions withPipelinedCommands(int commands) {
        return toBuilder().pipelinedCommands(commands).build();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Changes some options of an existing set. */
    public static final class Builder {
        private long seed;
        private int nodes;
        private int clients;
        private int ops;
        private int keys;
        private int opsPerKey;
        private long durationNanos;
        private long opTimeoutNanos;
        private long livenessNanos;
        private int livenessOps;
        private Set<FaultKind> faults;
        private double faultsPerSecond;
        private long meanFaultNanos;
        private Latency networkLatency;
        private double lossRate;
        private double duplicateRate;
        private double reorderRate;
        private boolean codec;
        private Latency diskLatency;
        private boolean tornWrites;
        private double unsyncedSurvival;
        private long maxEvents;
        private boolean invariants;
        private FaultSchedule schedule;
        private int pipelinedCommands;
        private int clockDriftPpm;
        private double leaseReadShare;
        private double staleReadShare;
        private io.tandem.execution.ExecutionMode execution = io.tandem.execution.ExecutionMode.SEQUENTIAL;
        private int executionThreads = 1;
        private boolean randomConfig;
        private FaultProfile profile = FaultProfile.STANDARD;
        private boolean admin;

        private Builder(SimOptions o) {
            seed = o.seed;
            nodes = o.nodes;
            clients = o.clients;
            ops = o.ops;
            keys = o.keys;
            opsPerKey = o.opsPerKey;
            durationNanos = o.durationNanos;
            opTimeoutNanos = o.opTimeoutNanos;
            livenessNanos = o.livenessNanos;
            livenessOps = o.livenessOps;
            faults = o.faults;
            faultsPerSecond = o.faultsPerSecond;
            meanFaultNanos = o.meanFaultNanos;
            networkLatency = o.networkLatency;
            lossRate = o.lossRate;
            duplicateRate = o.duplicateRate;
            reorderRate = o.reorderRate;
            codec = o.codec;
            diskLatency = o.diskLatency;
            tornWrites = o.tornWrites;
            unsyncedSurvival = o.unsyncedSurvival;
            maxEvents = o.maxEvents;
            invariants = o.invariants;
            schedule = o.schedule;
            pipelinedCommands = o.pipelinedCommands;
            clockDriftPpm = o.clockDriftPpm;
            leaseReadShare = o.leaseReadShare;
            staleReadShare = o.staleReadShare;
            execution = o.execution;
            executionThreads = o.executionThreads;
            randomConfig = o.randomConfig;
            profile = o.profile;
            admin = o.admin;
        }

        public Builder seed(long v) { seed = v; return this; }
        public Builder nodes(int v) { nodes = v; return this; }
        public Builder clients(int v) { clients = v; return this; }
        public Builder ops(int v) { ops = v; return this; }
        public Builder keys(int v) { keys = v; return this; }
        public Builder opsPerKey(int v) { opsPerKey = v; return this; }
        public Builder durationNanos(long v) { durationNanos = v; return this; }
        public Builder opTimeoutNanos(long v) { opTimeoutNanos = v; return this; }
        public Builder livenessNanos(long v) { livenessNanos = v; return this; }
        public Builder livenessOps(int v) { livenessOps = v; return this; }
        public Builder faults(Set<FaultKind> v) { faults = v; return this; }
        public Builder faultsPerSecond(double v) { faultsPerSecond = v; return this; }
        public Builder meanFaultNanos(long v) { meanFaultNanos = v; return this; }
        public Builder networkLatency(Latency v) { networkLatency = v; return this; }
        public Builder lossRate(double v) { lossRate = v; return this; }
        public Builder duplicateRate(double v) { duplicateRate = v; return this; }
        public Builder reorderRate(double v) { reorderRate = v; return this; }
        public Builder codec(boolean v) { codec = v; return this; }
        public Builder diskLatency(Latency v) { diskLatency = v; return this; }
        public Builder tornWrites(boolean v) { tornWrites = v; return this; }
        public Builder unsyncedSurvival(double v) { unsyncedSurvival = v; return this; }
        public Builder maxEvents(long v) { maxEvents = v; return this; }
        public Builder invariants(boolean v) { invariants = v; return this; }
        public Builder schedule(FaultSchedule v) { schedule = v; return this; }
        public Builder pipelinedCommands(int v) { pipelinedCommands = v; return this; }
        public Builder clockDriftPpm(int v) { clockDriftPpm = v; return this; }
        public Builder leaseReadShare(double v) { leaseReadShare = v; return this; }
        public Builder staleReadShare(double v) { staleReadShare = v; return this; }
        public Builder execution(io.tandem.execution.ExecutionMode mode, int threads) { execution = mode; executionThreads = threads; return this; }

        public Builder randomConfig(boolean v) { randomConfig = v; return this; }
        public Builder profile(FaultProfile v) { profile = v; return this; }
        public Builder admin(boolean v) { admin = v; return this; }

        public SimOptions build() {
            return new SimOptions(seed, nodes, clients, ops, keys, opsPerKey, durationNanos, opTimeoutNanos, livenessNanos, livenessOps,
                    faults, faultsPerSecond, meanFaultNanos, networkLatency, lossRate, duplicateRate, reorderRate, codec,
                    diskLatency, tornWrites, unsyncedSurvival, maxEvents, invariants, schedule, pipelinedCommands, clockDriftPpm, leaseReadShare, staleReadShare, execution, executionThreads, randomConfig, profile, admin);
        }
    }

    /** Every option as {@code key=value}, for the report of a failing seed. */
    public String describe() {
        return String.join(" ", pairs(false));
    }

    /** The {@code tandem sim} flags that reproduce this run exactly (together with the protocol). */
    public List<String> toCliArgs() {
        return pairs(true);
    }

    private List<String> pairs(boolean cli) {
        List<String> out = new ArrayList<>();
        add(out, cli, "seed", Long.toString(seed));
        add(out, cli, "nodes", Integer.toString(nodes));
        add(out, cli, "clients", Integer.toString(clients));
        add(out, cli, "ops", Integer.toString(ops));
        add(out, cli, "keys", Integer.toString(keys));
        add(out, cli, "ops-per-key", Integer.toString(opsPerKey));
        add(out, cli, "duration", SimTime.format(durationNanos));
        add(out, cli, "op-timeout", SimTime.format(opTimeoutNanos));
        add(out, cli, "liveness", SimTime.format(livenessNanos));
        add(out, cli, "liveness-ops", Integer.toString(livenessOps));
        add(out, cli, "faults", FaultKind.formatList(faults));
        add(out, cli, "fault-rate", number(faultsPerSecond));
        add(out, cli, "fault-length", SimTime.format(meanFaultNanos));
        add(out, cli, "latency", networkLatency.format());
        add(out, cli, "loss", number(lossRate));
        add(out, cli, "dup", number(duplicateRate));
        add(out, cli, "reorder", number(reorderRate));
        add(out, cli, "codec", Boolean.toString(codec));
        add(out, cli, "disk-latency", diskLatency.format());
        add(out, cli, "torn-writes", Boolean.toString(tornWrites));
        add(out, cli, "unsynced-survival", number(unsyncedSurvival));
        add(out, cli, "max-events", Long.toString(maxEvents));
        add(out, cli, "invariants", Boolean.toString(invariants));
        add(out, cli, "clock-drift-ppm", Integer.toString(clockDriftPpm));
        add(out, cli, "lease-reads", number(leaseReadShare));
        add(out, cli, "stale-reads", number(staleReadShare));
        if (pipelinedCommands > 0) add(out, cli, "pipelined", Integer.toString(pipelinedCommands));
        if (execution != io.tandem.execution.ExecutionMode.SEQUENTIAL) {
            add(out, cli, "execution", execution.text());
            add(out, cli, "threads", Integer.toString(executionThreads));
        }
        add(out, cli, "engine-config", randomConfig ? "random" : "default");
        add(out, cli, "profile", profile.flag());
        add(out, cli, "admin", Boolean.toString(admin));
        if (schedule != null) add(out, cli, "schedule", schedule.format());
        return out;
    }

    private static void add(List<String> out, boolean cli, String key, String value) {
        if (cli) {
            out.add("--" + key);
            out.add(value);
        } else {
            out.add(key + "=" + value);
        }
    }

    private static String number(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : String.format(Locale.ROOT, "%s", value);
    }

    /**
     * The seeds a test should run: {@code [first, first + count)}, or only the seed named by the
     * system property {@code tandem.sim.seed} when it is set (to replay one failing seed).
     */
    public static List<Long> seeds(long first, int count) {
        String replay = System.getProperty("tandem.sim.seed");
        if (replay != null && !replay.isBlank()) return List.of(Long.parseLong(replay.trim()));
        List<Long> seeds = new ArrayList<>(count);
        for (int i = 0; i < count; i++) seeds.add(first + i);
        return seeds;
    }
}
