package io.tandem.sim;

import io.tandem.checker.CheckOptions;
import io.tandem.checker.CheckResult;
import io.tandem.checker.LinearizabilityChecker;
import io.tandem.checker.Model;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.Committed;
import io.tandem.engine.Engine;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.ProtocolMessage;
import io.tandem.execution.ExecutorFactory;
import io.tandem.history.History;
import io.tandem.history.Op;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * One deterministic simulated run of a protocol (DESIGN §2, verification.md §4.8): one thread, a
 * virtual clock, one seeded random source from which every choice derives, and an event queue
 * ordered by (time, sequence) so that ties resolve the same way every time. The nodes run real
 * {@link Engine}s through the same {@link io.tandem.engine.EngineContext} contract as the real runtime,
 * over a simulated network and disk, while simulated clients run a register workload and faults
 * are injected from a schedule.
 *
 * <p>A run has two phases. In the fault phase ({@code durationNanos}) faults happen and clients work.
 * Then everything is healed (crashed nodes restarted, paused ones resumed, the network repaired) and
 * every client must get {@code livenessOps} definite answers within {@code livenessNanos}. Safety
 * invariants are checked after every event; the client history is checked for linearizability at
 * the end. Same protocol, options and seed: same run, bit for bit ({@link SimResult#traceHash()}).
 */
public final class Simulation implements SimCluster {
    private static final class Event {
        final long time;
        final long seq;
        final Runnable action;

        Event(long time, long seq, Runnable action) {
            this.time = time;
            this.seq = seq;
            this.action = action;
        }
    }

    /** Unwinds the event loop once a failure is recorded. */
    private static final class StopRun extends RuntimeException {
        StopRun() {
            super(null, null, false, false);
        }
    }

    private record AppliedCommand(NodeId node, Committed entry) {}

    private final Protocol protocol;
    private final SimOptions options;
    /** The options as given (a profile may change some for the run): what a replay command repeats. */
    private final SimOptions givenOptions;
    private final List<NodeId> members;
    private final List<SimInvariant> invariants;
    private final KryoCodec codec;
    private final Consumer<String> traceSink;

    private final PriorityQueue<Event> queue = new PriorityQueue<>((a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
    private long now;
    private long sequence;
    private long eventsRun;
    private final TraceDigest trace = new TraceDigest();

    private final SplittableRandom faultRandom;
    private final SplittableRandom diskRandom;
    private final SplittableRandom clientRandom;
    private final SimNetwork network;
    private final SimWorkload workload;
    private final LinkedHashMap<NodeId, SimNode> nodes = new LinkedHashMap<>();
    private final List<SimClient> clients = new ArrayList<>();
    private SimPipelinedClient pipelined;
    private long highestApplied;
    private final SimHistory history = new SimHistory(() -> now);
    private final FaultSchedule schedule;
    private final HashMap<Long, AppliedCommand> appliedByIndex = new HashMap<>(); // keyed lookups only
    private final HashMap<Long, io.tandem.engine.GroupView> viewsById = new HashMap<>(); // keyed lookups only

    private long nextRequestId;
    private final SplittableRandom executionRandom;
    private long nextOpId;
    private int issued;
    private int clientsDone;
    private boolean healed;
    private long healTime = Long.MAX_VALUE;
    private boolean finished;
    private SimFailure failure;
    private final TreeMap<String, Long> stats = new TreeMap<>();
    /** Scripted scenarios only ({@link SimScenario}): drops a message when it arrives, and watches every message sent. */
    private SimScenario.MessageRule scenarioDrop;
    private SimScenario.MessageRule scenarioSendWatch;
    /** Time for the run (issue 18), or null: then every handler costs nothing, as in the correctness simulator. */
    private final io.tandem.sim.cost.CostModel costs;
    private io.tandem.sim.cost.HandlerProbe probe;

    public Simulation(Protocol protocol, SimOptions options) {
        this(protocol, options, null);
    }

    /**
     * @param traceSink receives one human-readable line per event (slow; for debugging a seed), or null
     */
    /**
     * Fails with the protocol's own message if it refuses a group of {@code options.nodes()} members
     * (the unreplicated engine given three): a usage error, found before any event runs, rather than
     * a failing seed.
     */
    public static void checkConfiguration(Protocol protocol, SimOptions options) {
        List<NodeId> ids = new ArrayList<>();
        for (int i = 1; i <= options.nodes(); i++) ids.add(NodeId.of("n" + i));
        checkConfiguration(protocol, ids);
    }

    private static void checkConfiguration(Protocol protocol, List<NodeId> members) {
        for (NodeId m : members) protocol.createEngine(m, members); // engines do no I/O until started
    }

    public Simulation(Protocol protocol, SimOptions options, Consumer<String> traceSink) {
        this(protocol, options, traceSink, null);
    }

    /**
     * A run whose nodes spend time: with a {@link io.tandem.sim.cost.CostModel}, every event a node
     * handles queues on its CPU and costs what the model's calibrated table says, messages and disk
     * flushes take the model's latencies and bandwidths (see {@link SimBench}). Without one ({@code
     * null}), exactly the run of {@link #Simulation(Protocol, SimOptions, Consumer)}.
     */
    public Simulation(Protocol protocol, SimOptions options, Consumer<String> traceSink, io.tandem.sim.cost.CostModel costs) {
        this.costs = costs;
        this.givenOptions = options;
        // The profile and the engine configuration derive from the seed alone (not from the split
        // streams below), so that every other random choice stays as it was without them.
        options = options.profile().apply(options);
        if (options.randomConfig() && protocol instanceof SimulatedProtocol sp) {
            protocol = sp.withRandomConfig(new SplittableRandom(options.seed() * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L), options.nodes());
            // Issue 16: the mix reaches sessions with several commands in flight (low watermarks, retries
            // across leader changes) in three seeds of four, for the engines that keep such sessions.
            if (options.pipelinedCommands() == 0 && sp.pipelinedSessions()) {
                var draw = new SplittableRandom(options.seed() * 0xBF58476D1CE4E5B9L + 0x94D049BB133111EBL);
                if (draw.nextInt(4) != 0) options = options.toBuilder().pipelinedCommands(2 + draw.nextInt(15)).build();
            }
        }
        this.protocol = protocol;
        this.options = options;
        this.traceSink = traceSink;
        List<NodeId> ids = new ArrayList<>();
        for (int i = 1; i <= options.nodes(); i++) ids.add(NodeId.of("n" + i));
        this.members = List.copyOf(ids);
        checkConfiguration(protocol, members);
        this.invariants = protocol instanceof SimulatedProtocol sp && options.invariants() ? List.copyOf(sp.invariants()) : List.of();
        if (options.codec()) {
            KryoCodec.Builder builder = KryoCodec.builder();
            protocol.registerMessages(builder);
            this.codec = builder.build();
        } else {
            this.codec = null;
        }
        // Every random choice derives from the seed, split in a fixed order, one stream per concern, so
        // that e.g. a different fault schedule does not shift the network's random choices.
        SplittableRandom root = new SplittableRandom(options.seed());
        this.faultRandom = root.split();
        SplittableRandom networkRandom = root.split();
        this.diskRandom = root.split();
        this.clientRandom = root.split();
        SplittableRandom workloadRandom = root.split();
        this.executionRandom = new SplittableRandom(options.seed() ^ 0x5DEECE66DL); // not split from root: existing streams stay as they were
        this.network = new SimNetwork(options, networkRandom);
        // Stale reads go only to engines that serve them at any member once it applied the minimum index.
        double staleShare = protocol instanceof SimulatedProtocol sp && sp.staleReads() ? options.staleReadShare() : 0;
        this.workload = new SimWorkload(workloadRandom, options.keys(), options.opsPerKey(), options.leaseReadShare(), staleShare);
        for (NodeId id : members) nodes.put(id, new SimNode(id, this, root.split()));
        this.schedule = options.schedule() != null ? options.schedule()
                : protocol instanceof SimulatedProtocol sp ? sp.faultSchedule(faultRandom, options, members) : FaultSchedule.generate(faultRandom, options, members);
        validate(schedule);
        if (costs != null) {
            costs.attach(new io.tandem.sim.cost.Scheduler() {
                @Override
                public long now() {
                    return now;
                }

                @Override
                public void at(long atNanos, Runnable action) {
                    Simulation.this.at(atNanos, action);
                }
            }, members.stream().map(NodeId::value).toList());
        }
    }

    public static SimResult run(Protocol protocol, SimOptions options) {
        return new Simulation(protocol, options).run();
    }

    private void validate(FaultSchedule schedule) {
        for (Fault.Scheduled s : schedule.events()) {
            List<NodeId> named = switch (s.fault()) {
                case Fault.Crash c -> List.of(c.node());
                case Fault.Restart r -> List.of(r.node());
                case Fault.Pause p -> List.of(p.node());
                case Fault.Resume r -> List.of(r.node());
                case Fault.ClockJump c -> List.of(c.node());
                case Fault.Slow sl -> List.of(sl.node());
                case Fault.Unslow u -> List.of(u.node());
                case Fault.SlowLink sl -> List.of(sl.link().from(), sl.link().to());
                case Fault.UnslowLink u -> List.of(u.link().from(), u.link().to());
                case Fault.Partition p -> p.blocked().stream().flatMap(l -> java.util.stream.Stream.of(l.from(), l.to())).toList();
                default -> List.of();
            };
            for (NodeId n : named) {
                if (!nodes.containsKey(n)) throw new IllegalArgumentException("fault " + s.format() + " names " + n + ", which is not one of " + members);
            }
        }
    }

    // ---- the run ----

    public SimResult run() {
        for (SimNode node : nodes.values()) at(0, node::start);
        for (Fault.Scheduled s : schedule.events()) at(s.atNanos(), () -> applyFault(s.fault()));
        at(options.durationNanos(), this::healEverything);
        for (int t = 0; t < options.clients(); t++) {
            SimClient client = new SimClient(this, t, members.get(t % members.size()));
            clients.add(client);
            client.scheduleNext(thinkTime());
        }
        if (options.pipelinedCommands() > 0) {
            pipelined = new SimPipelinedClient(this, options.clients(), options.pipelinedCommands(), members.get(0));
            // In the middle of the fault phase, so that leaders change while the commands are in flight.
            at(options.durationNanos() / 3, pipelined::start);
        }
        if (options.admin() && protocol instanceof SimulatedProtocol sp) sp.adminWorkload().ifPresent(this::startAdmin);
        loop();
        if (failure == null && !finished) fail(SimFailure.Kind.LIVENESS, "liveness", "the event queue drained before the clients finished");
        if (failure == null) checkInvariants();
        if (failure == null && pipelined != null) checkExactlyOnce();
        History recorded = history.build();
        if (failure == null) checkLinearizability(recorded);
        for (Op op : recorded.ops()) trace.addObject(op.toMap());
        stat("events", eventsRun);
        stat("ops.invoked", recorded.ops().stream().filter(o -> o.isClient() && o.type() == Op.Type.INVOKE).count());
        long crashes = 0;
        long torn = 0;
        long tornDropped = 0;
        long flushes = 0;
        for (SimNode n : nodes.values()) {
            crashes += n.crashes();
            torn += n.disk.tornRecordsWritten();
            tornDropped += n.disk.tornRecordsDropped();
            flushes += n.disk.flushes();
        }
        stat("nodes.crashes", crashes);
        stat("disk.torn-written", torn);
        stat("disk.torn-dropped", tornDropped);
        stat("disk.flushes", flushes);
        stat("client.retries", clients.stream().mapToLong(SimClient::retries).sum());
        if (pipelined != null) stat("pipelined.retries", pipelined.retries());
        if (options.randomConfig() && protocol instanceof SimulatedProtocol sp && !sp.describeConfig().isEmpty()) trace("engine-config", null, sp.describeConfig());
        return new SimResult(givenOptions, protocol.name(), Optional.ofNullable(failure), trace.value(), eventsRun, now, schedule, recorded,
                Collections.unmodifiableSortedMap(new TreeMap<>(stats)));
    }

    /**
     * The operator: every 500 ms on average in the fault phase, the workload's next admin command to a
     * random member, without a session; its outcome goes back to the workload. Its own random stream
     * (not split from the root), so runs without it are unchanged.
     */
    private void startAdmin(SimAdminWorkload workload) {
        Operator operator = new Operator(workload, new SplittableRandom(options.seed() ^ 0xAD31_5EEDL));
        at(operator.pause(), operator::next);
    }

    private final class Operator implements SimCaller {
        private final SimAdminWorkload workload;
        private final SplittableRandom random;
        private long waitingFor = -1;

        Operator(SimAdminWorkload workload, SplittableRandom random) {
            this.workload = workload;
            this.random = random;
        }

        long pause() {
            return (long) (random.nextExponential() * 500 * SimTime.MILLIS);
        }

        @Override
        public int thread() {
            return -2;
        }

        @Override
        public void onReply(long opId, NodeId from, SimClient.Outcome outcome) {
            if (opId != waitingFor) return;
            waitingFor = -1;
            boolean ok = outcome instanceof SimClient.Outcome.Result;
            count(ok ? "admin.ok" : "admin.rejected");
            workload.outcome(ok);
        }

        void next() {
            if (healed || finished) return;
            if (waitingFor >= 0) { // no answer since the last one: it counts as failed
                count("admin.unanswered");
                workload.outcome(false);
            }
            byte[] payload = workload.next(random, members);
            NodeId target = members.get(random.nextInt(members.size()));
            waitingFor = nextOpId();
            count("admin.sent");
            sendToNode(target, new SimNode.ClientCall(this, waitingFor,
                    io.tandem.engine.ClientRequest.command(nextRequestId(), io.tandem.engine.ClientRequest.Session.NONE, payload)));
            at(now + pause(), this::next);
        }
    }

    /** The cost model of this run, or null. */
    io.tandem.sim.cost.CostModel costs() {
        return costs;
    }

    io.tandem.sim.cost.HandlerProbe probe() {
        return probe;
    }

    /** Times every engine handler of this run in wall-clock time (calibration only; needs a cost model). */
    public void setHandlerProbe(io.tandem.sim.cost.HandlerProbe probe) {
        if (costs == null) throw new IllegalStateException("the handler probe needs a cost model");
        this.probe = probe;
    }

    /**
     * Runs events until virtual time {@code endNanos} (for {@link SimBench}: no fault schedule, no
     * healing, no history check); the caller starts the nodes and clients first. Engine errors propagate.
     */
    void runUntil(long endNanos) {
        while (!queue.isEmpty() && queue.peek().time <= endNanos) {
            Event e = queue.poll();
            now = e.time;
            eventsRun++;
            if (eventsRun > options.maxEvents()) throw new IllegalStateException("more than " + options.maxEvents() + " events by " + SimTime.clock(now));
            try {
                e.action.run();
            } catch (StopRun stop) {
                // recorded in failure, reported below
            }
            if (failure != null) throw new IllegalStateException("the run failed: " + failure.summary());
        }
        now = Math.max(now, endNanos);
    }

    long eventsRun() {
        return eventsRun;
    }

    /** For tests that drive the nodes themselves: starts the nodes only (no clients, faults or healing); then {@link #step}. */
    void begin() {
        for (SimNode node : nodes.values()) at(0, node::start);
    }

    /** Runs the next event; false if there is none. Exceptions reach the caller. */
    boolean step() {
        Event e = queue.poll();
        if (e == null) return false;
        now = e.time;
        eventsRun++;
        trace.event();
        e.action.run();
        return true;
    }

    /**
     * One event of a scripted scenario ({@link SimScenario}): runs it like the main loop does, with the
     * invariants after it; false if there was no event or the run has failed.
     */
    boolean scenarioStep() {
        if (failure != null) return false;
        Event e = queue.poll();
        if (e == null) return false;
        now = e.time;
        eventsRun++;
        trace.event();
        try {
            e.action.run();
        } catch (StopRun stop) {
            return false;
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable t) {
            fail(SimFailure.Kind.ENGINE_ERROR, "engine-error", stackTrace(t));
            return false;
        }
        if (!invariants.isEmpty()) checkInvariants();
        return failure == null;
    }

    /** The time of the next event, or {@link Long#MAX_VALUE} if there is none. */
    long nextEventTime() {
        Event e = queue.peek();
        return e == null ? Long.MAX_VALUE : e.time;
    }

    /** Moves the clock to {@code time} when no event comes before it (scripted scenarios). */
    void advanceTo(long time) {
        now = Math.max(now, time);
    }

    Optional<SimFailure> failure() {
        return Optional.ofNullable(failure);
    }

    void scenarioRules(SimScenario.MessageRule drop, SimScenario.MessageRule sendWatch) {
        this.scenarioDrop = drop;
        this.scenarioSendWatch = sendWatch;
    }

    private void loop() {
        while (!queue.isEmpty() && !finished && failure == null) {
            Event e = queue.poll();
            now = e.time;
            eventsRun++;
            trace.event();
            if (eventsRun > options.maxEvents()) {
                fail(SimFailure.Kind.EVENT_BUDGET, "event-budget", "more than " + options.maxEvents() + " events");
                break;
            }
            try {
                e.action.run();
            } catch (StopRun stop) {
                break;
            } catch (VirtualMachineError fatal) {
                throw fatal;
            } catch (Throwable t) {
                fail(SimFailure.Kind.ENGINE_ERROR, "engine-error", stackTrace(t));
                break;
            }
            if (!invariants.isEmpty()) checkInvariants();
        }
    }

    private void checkInvariants() {
        for (SimInvariant invariant : invariants) {
            Optional<String> violation;
            try {
                violation = invariant.check(this);
            } catch (RuntimeException e) {
                violation = Optional.of("the check threw " + stackTrace(e));
            }
            if (violation.isPresent()) {
                fail(SimFailure.Kind.SAFETY, invariant.name(), violation.get());
                return;
            }
        }
    }

    /**
     * The client history must be linearizable against independent cas registers (Jepsen's kv model),
     * with nil reads strict: a read of nil means the register was never written. The search budget is
     * counted in steps, not wall time, so a seed always gets the same verdict.
     */
    private void checkLinearizability(History recorded) {
        CheckResult result = LinearizabilityChecker.check(recorded, Model.kv(), CheckOptions.defaults());
        switch (result) {
            case CheckResult.Valid v -> stat("linearizability.keys", v.keys());
            case CheckResult.Invalid invalid -> fail(SimFailure.Kind.LINEARIZABILITY, "linearizability", invalid.summary() + "\n" + invalid.report());
            case CheckResult.Unknown unknown -> fail(SimFailure.Kind.LINEARIZABILITY, "linearizability-unknown", "the check was inconclusive: " + unknown.reason());
        }
    }

    private static String stackTrace(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        String[] lines = out.toString().split("\n");
        return String.join("\n", Arrays.copyOf(lines, Math.min(lines.length, 12)));
    }

    /**
     * The highest log index any member has applied so far (never decreasing, whatever crashes since):
     * a stale read asked with it as its minimum index sees every write answered before it was invoked
     * and every state an earlier answered read saw, so it is linearizable.
     */
    long highestApplied() {
        return highestApplied;
    }

    /** A member applied up to {@code index} (noted as it happens: the member may crash before anyone asks). */
    void noteApplied(long index) {
        highestApplied = Math.max(highestApplied, index);
    }

    private void fail(SimFailure.Kind kind, String check, String message) {
        if (failure != null) return;
        List<String> status = new ArrayList<>();
        for (SimNode n : nodes.values()) status.add(n.status());
        for (SimClient c : clients) if (!c.isDone()) status.add(c.status());
        if (pipelined != null && !pipelined.isDone()) status.add(pipelined.status());
        if (protocol instanceof SimulatedProtocol sp && options.randomConfig()) status.add("engine config: " + sp.describeConfig());
        if (options.pipelinedCommands() > 0 && givenOptions.pipelinedCommands() == 0) status.add("pipelined client (drawn for the seed): " + options.pipelinedCommands() + " commands");
        if (givenOptions.profile() != FaultProfile.STANDARD) status.add("fault profile: " + givenOptions.profile().forSeed(options.seed()).flag());
        if (protocol instanceof SimulatedProtocol sp && !sp.describeFaultModel().isEmpty()) status.add("fault model: " + sp.describeFaultModel());
        failure = new SimFailure(kind, check, message, now, List.copyOf(status));
    }

    /** Records a safety violation found while an engine runs and stops the run. */
    void violation(String check, String message) {
        fail(SimFailure.Kind.SAFETY, check, message);
        throw new StopRun();
    }

    // ---- scheduling and tracing, for the pieces of the simulation ----

    void at(long time, Runnable action) {
        queue.add(new Event(Math.max(time, now), sequence++, action));
    }

    long now() {
        return now;
    }

    void trace(String kind, NodeId node, Object detail) {
        trace.add(now);
        trace.add(kind);
        trace.add(node == null ? "" : node.value());
        trace.addObject(detail);
        if (traceSink != null) traceSink.accept(SimTime.clock(now) + " " + (node == null ? "-" : node) + " " + kind + (detail == null ? "" : " " + render(detail)));
    }

    void traceDrop(String kind, NodeId node, Object detail) {
        trace("dropped-" + kind, node, detail);
    }

    /**
     * A message that never leaves the sender (the loss model or a partition at sending), written to the
     * human-readable trace only: it is not an event of any node, so it stays out of the determinism digest.
     * Without it a lost message and one never sent look the same in a trace.
     */
    private void traceLoss(NodeId from, NodeId to, String why, ProtocolMessage message) {
        if (traceSink != null) traceSink.accept(SimTime.clock(now) + " " + from + " " + why + "-to " + to + " " + render(message));
    }

    private static String render(Object detail) {
        return TraceDigest.render(detail);
    }

    private void stat(String name, long value) {
        stats.put(name, value);
    }

    private void count(String name) {
        stats.merge(name, 1L, Long::sum);
    }

    /** The run's count of {@code name} so far (tests of the simulator itself). */
    long counter(String name) {
        return stats.getOrDefault(name, 0L);
    }

    /** A node's parallel executor re-sent a command that failed its safety check (optimistic P-SMR). */
    void countResubmit() {
        count("execution-resubmits");
    }

    Protocol protocol() {
        return protocol;
    }

    SimOptions options() {
        return options;
    }

    SimNetwork network() {
        return network;
    }

    SplittableRandom diskRandom() {
        return diskRandom;
    }

    SimWorkload workload() {
        return workload;
    }

    SimHistory history() {
        return history;
    }

    boolean healed() {
        return healed;
    }

    long healTime() {
        return healTime;
    }

    // ---- network ----

    void send(NodeId from, NodeId to, ProtocolMessage message) {
        // With a cost model, a message leaves when the handler that sent it has finished, then takes the sender's I/O thread.
        if (costs != null && nodes.get(from).capture(() -> costedSend(from, to, message))) return;
        SimNode dest = nodes.get(to);
        if (dest == null) throw new IllegalArgumentException(from + " sent " + message.getClass().getSimpleName() + " to " + to + ", which is not a member");
        if (scenarioSendWatch != null) scenarioSendWatch.test(from, to, message);
        Object wire = codec == null ? message : codec.encode(message);
        count("messages.sent");
        boolean contact = message instanceof io.tandem.engine.ContactMessage; // a join request crosses a removal (Derecho's bootstrap socket)
        if (!from.equals(to) && !contact && !nodes.get(from).isConnectedTo(to)) { // removed from this node's network at run time
            count("messages.refused");
            traceLoss(from, to, "refused", message);
            return;
        }
        long[] arrivals = from.equals(to) ? new long[] {now} : network.plan(from, to, now);
        if (arrivals.length == 0) {
            count("messages.lost");
            traceLoss(from, to, network.blocked(from, to) ? "partitioned" : "lost", message);
            return;
        }
        if (arrivals.length > 1) count("messages.duplicated");
        long incarnation = dest.incarnation();
        for (long arrival : arrivals) at(arrival, () -> arrive(from, dest, incarnation, wire));
    }

    /** A message leaving {@code from} under the cost model: encode and send on its I/O thread, then the link. */
    private void costedSend(NodeId from, NodeId to, ProtocolMessage message) {
        SimNode dest = nodes.get(to);
        if (dest == null) throw new IllegalArgumentException(from + " sent " + message.getClass().getSimpleName() + " to " + to + ", which is not a member");
        Object wire = codec == null ? message : codec.encode(message);
        long bytes = wire instanceof byte[] b ? b.length : 0;
        count("messages.sent");
        if (!from.equals(to) && !nodes.get(from).isConnectedTo(to)) {
            count("messages.refused");
            return;
        }
        if (from.equals(to)) {
            long incarnation = dest.incarnation();
            at(now, () -> arrive(from, dest, incarnation, wire, bytes));
            return;
        }
        SimNode source = nodes.get(from);
        long sourceIncarnation = source.incarnation();
        String type = message.getClass().getSimpleName();
        io.tandem.sim.cost.CostTable table = costs.table();
        io.tandem.sim.cost.NetworkModel net = costs.network();
        if (!net.windowed()) {
            long sendCost = table.encodeCost(type, bytes) + table.sendCost(bytes) + flush(from, to);
            costs.profile().record(from.value(), "send", type, sendCost);
            costs.cpu(from.value()).submit(io.tandem.sim.cost.Stage.IO, sendCost, flushStarts(from, to), () -> {
                if (source.incarnation() != sourceIncarnation || !source.isUp()) { // its process died with the send buffer
                    count("messages.lost");
                    return;
                }
                if (network.blocked(from, to)) {
                    count("messages.lost");
                    return;
                }
                onWire(from, dest, wire, bytes, null);
            });
            return;
        }
        // With a window: the I/O thread encodes, and writes the frame to the socket too if the window has room now;
        // otherwise the frame waits in the sender's outbox for this peer, and its write is paid when a window update
        // lets it (and everything queued with it) go, as PeerLink's drain does.
        io.tandem.sim.cost.PeerOutbox outbox = net.outbox(from.value(), to.value());
        boolean prepaid = outbox.writable(bytes);
        long cost = table.encodeCost(type, bytes) + (prepaid ? table.sendCost(bytes) + flush(from, to) : 0);
        costs.profile().record(from.value(), "send", type, cost);
        costs.cpu(from.value()).submit(io.tandem.sim.cost.Stage.IO, cost, prepaid ? flushStarts(from, to) : null, () -> {
            if (source.incarnation() != sourceIncarnation || !source.isUp()) {
                count("messages.lost");
                return;
            }
            io.tandem.sim.cost.PeerOutbox.Frame frame = new io.tandem.sim.cost.PeerOutbox.Frame(bytes, prepaid, () -> {
                if (network.blocked(from, to)) {
                    count("messages.lost");
                    windowUpdate(from, dest.id, outbox, bytes);
                    return;
                }
                onWire(from, dest, wire, bytes, outbox);
            });
            switch (outbox.offer(frame)) {
                case WRITTEN -> write(from, java.util.List.of(frame));
                case QUEUED -> count("messages.queued");
                case DROPPED -> count("messages.dropped-outbox");
            }
        });
    }

    /** Frames that left {@code from}'s outbox into the socket: the write not yet paid is one I/O job for all of them, then the link, in order. */
    private void write(NodeId from, java.util.List<io.tandem.sim.cost.PeerOutbox.Frame> frames) {
        if (frames.isEmpty()) return;
        long unpaid = 0;
        for (io.tandem.sim.cost.PeerOutbox.Frame f : frames) if (!f.prepaid()) unpaid += f.bytes();
        if (unpaid == 0) {
            for (io.tandem.sim.cost.PeerOutbox.Frame f : frames) f.onWire().run();
            return;
        }
        // Frames a window update lets go leave in one drain: one flush for all of them (with per-syscall costs in the table).
        costs.cpu(from.value()).submit(io.tandem.sim.cost.Stage.IO, costs.table().sendCost(unpaid) + costs.table().flushCost(), null, () -> {
            for (io.tandem.sim.cost.PeerOutbox.Frame f : frames) f.onWire().run();
        });
    }

    /**
     * The flush a send of {@code from -> to} pays: {@code transport.flush.ns} if it opens one (none of that link queued on
     * {@code from}'s I/O thread), else 0; 0 without per-syscall costs in the table (see {@link io.tandem.sim.cost.FrameCoalescing}).
     */
    private long flush(NodeId from, NodeId to) {
        if (!costs.table().coalescesFrames()) return 0;
        pendingFlush = costs.frames().sendQueued(from.value(), to.value());
        return pendingFlush ? costs.table().flushCost() : 0;
    }

    /** The start action of the send job {@link #flush} just priced: closes the flush it opened, if it opened one. */
    private Runnable flushStarts(NodeId from, NodeId to) {
        if (!pendingFlush) return null;
        pendingFlush = false;
        return () -> costs.frames().flushStarted(from.value(), to.value());
    }

    private boolean pendingFlush;

    /** A frame on the link {@code from -> dest}; with a window, its bytes are freed when {@code dest}'s transport reads it. */
    private void onWire(NodeId from, SimNode dest, Object wire, long bytes, io.tandem.sim.cost.PeerOutbox outbox) {
        long arrival = costs.network().arrival(from.value(), dest.id.value(), now, bytes);
        long incarnation = dest.incarnation();
        costs.network().sent(from.value(), dest.id.value());
        at(arrival, () -> {
            costs.network().arrived(from.value(), dest.id.value());
            Runnable read = outbox == null ? null : () -> windowUpdate(from, dest.id, outbox, bytes);
            arrive(from, dest, incarnation, wire, bytes, read);
        });
    }

    /** {@code reader} read {@code bytes} of the connection from {@code from}: the window update reaches the sender after a one-way trip (and the reader's egress delay). */
    private void windowUpdate(NodeId from, NodeId reader, io.tandem.sim.cost.PeerOutbox outbox, long bytes) {
        at(now + costs.network().windowUpdateDelay(reader.value()), () -> write(from, outbox.acknowledged(bytes)));
    }

    private void arrive(NodeId from, SimNode dest, long incarnation, Object wire, long bytes) {
        arrive(from, dest, incarnation, wire, bytes, null);
    }

    /** A message reaching {@code dest}; {@code read} (or null) runs when its transport reads it off the connection. */
    private void arrive(NodeId from, SimNode dest, long incarnation, Object wire, long bytes, Runnable read) {
        ProtocolMessage message = codec == null ? (ProtocolMessage) wire : (ProtocolMessage) codec.decode((byte[]) wire);
        if (network.blocked(from, dest.id) || (!from.equals(dest.id) && !dest.isConnectedTo(from))) {
            count(network.blocked(from, dest.id) ? "messages.partitioned" : "messages.refused");
            traceDrop("message", dest.id, new Object[] {from, message});
            if (read != null) read.run();
            return;
        }
        dest.runCosted(incarnation, "message", new Object[] {from, message}, message.getClass().getSimpleName(), bytes, read, () -> {
            count("messages.delivered");
            dest.engine().onMessage(from, message);
        });
    }

    private void arrive(NodeId from, SimNode dest, long incarnation, Object wire) {
        ProtocolMessage message = codec == null ? (ProtocolMessage) wire : (ProtocolMessage) codec.decode((byte[]) wire);
        if (network.blocked(from, dest.id)) {
            count("messages.partitioned");
            traceDrop("message", dest.id, new Object[] {from, message});
            return;
        }
        if (!from.equals(dest.id) && !(message instanceof io.tandem.engine.ContactMessage) && !dest.isConnectedTo(from)) { // a removed member's messages are refused
            count("messages.refused");
            traceDrop("message", dest.id, new Object[] {from, message});
            return;
        }
        if (scenarioDrop != null && dest.isUp() && scenarioDrop.test(from, dest.id, message)) {
            count("messages.dropped-by-scenario");
            traceDrop("message", dest.id, new Object[] {from, message});
            return;
        }
        dest.runFor(incarnation, "message", new Object[] {from, message}, () -> {
            count("messages.delivered");
            dest.engine().onMessage(from, message);
        });
    }

    // ---- memory regions ----

    /**
     * How long a cut link holds region writes before its connection breaks. A reliable connection
     * retransmits across a short cut and delivers everything once the link heals (TCP for minutes,
     * an RDMA RC queue pair until its retry count runs out: about half a second at the reference
     * code's settings); a longer cut breaks it and what it held is lost. The simulator uses the
     * shorter limit, so that schedules see both outcomes.
     */
    static final long REGION_LINK_TIMEOUT = 500 * SimTime.MILLIS;

    /** A region write that reached a cut link, waiting for the link to heal or its connection to break. */
    private record HeldRegionWrite(SimNode writer, long writerIncarnation, SimNode dest, long destIncarnation,
                                   String region, int offset, long[] words, long pushId, Object detail) {}

    /** Region writes held per cut link, in push order (insertion-ordered, so released deterministically). */
    private final Map<Fault.Link, java.util.ArrayDeque<HeldRegionWrite>> heldRegionWrites = new LinkedHashMap<>();

    /**
     * One target's share of a push by {@code writer} (incarnation {@code writerIncarnation}):
     * travels like a message on a reliable connection (FIFO per writer and target, never lost or
     * duplicated on a working link). A cut link holds it and delivers it, in order, when the link
     * heals, unless the cut outlasts {@link #REGION_LINK_TIMEOUT}: then the connection breaks and
     * everything it held is lost. It does not land at a crashed or restarted target, or at a member
     * that disconnected the writer; with a push id, the outcome travels back as a completion.
     */
    void regionWrite(SimNode writer, long writerIncarnation, NodeId to, String region, int offset, long[] words, long pushId) {
        SimNode dest = nodes.get(to);
        if (dest == null) throw new IllegalArgumentException(writer.id + " pushed region '" + region + "' to " + to + ", which is not a member");
        count("region.writes.sent");
        Object detail = new Object[] {writer.id, region, offset, words.length};
        long arrival = network.regionArrival(writer.id, to, now);
        if (!writer.isConnectedTo(to)) {
            at(arrival, () -> lostRegionWrite(writer, writerIncarnation, dest, detail, region, pushId));
            return;
        }
        HeldRegionWrite write = new HeldRegionWrite(writer, writerIncarnation, dest, dest.incarnation(), region, offset, words, pushId, detail);
        at(arrival, () -> regionWriteArrived(write));
    }

    /** A region write reaches the end of its link: it lands, or waits behind the cut (and behind writes already waiting). */
    private void regionWriteArrived(HeldRegionWrite write) {
        Fault.Link link = new Fault.Link(write.writer().id, write.dest().id);
        java.util.ArrayDeque<HeldRegionWrite> held = heldRegionWrites.get(link);
        if (held == null && !network.blocked(link.from(), link.to())) {
            landRegionWrite(write);
            return;
        }
        if (held == null) {
            java.util.ArrayDeque<HeldRegionWrite> queue = new java.util.ArrayDeque<>();
            heldRegionWrites.put(link, queue);
            held = queue;
            at(now + REGION_LINK_TIMEOUT, () -> regionLinkTimedOut(link, queue));
        }
        count("region.writes.held");
        held.add(write);
    }

    /** The cut outlasted the connection: it breaks, and what it held is lost (with false completions). */
    private void regionLinkTimedOut(Fault.Link link, java.util.ArrayDeque<HeldRegionWrite> queue) {
        if (heldRegionWrites.get(link) != queue) return; // released when the link healed
        heldRegionWrites.remove(link);
        trace("region-link-broken", link.from(), link.to());
        for (HeldRegionWrite w : queue) lostRegionWrite(w.writer(), w.writerIncarnation(), w.dest(), w.detail(), w.region(), w.pushId());
    }

    /** After a change of the network's faults: every link that no longer is cut delivers what it held, in order. */
    private void releaseHeldRegionWrites() {
        if (heldRegionWrites.isEmpty()) return;
        for (Fault.Link link : List.copyOf(heldRegionWrites.keySet())) {
            if (network.blocked(link.from(), link.to())) continue;
            for (HeldRegionWrite w : heldRegionWrites.remove(link)) {
                count("region.writes.released");
                landRegionWrite(w);
            }
        }
    }

    private void landRegionWrite(HeldRegionWrite w) {
        SimNode dest = w.dest();
        if (!dest.isUp() || dest.incarnation() != w.destIncarnation() || !dest.isConnectedTo(w.writer().id)) {
            lostRegionWrite(w.writer(), w.writerIncarnation(), dest, w.detail(), w.region(), w.pushId());
            return;
        }
        dest.runFor(w.destIncarnation(), "region-write", w.detail(), () -> {
            boolean applied = dest.applyRegionWrite(w.writer().id, w.region(), w.offset(), w.words());
            count(applied ? "region.writes.applied" : "region.writes.rejected");
            // It reached the target: a frozen row drops it there, by the target's rule, as with the real transports.
            if (w.pushId() > 0) completePush(w.writer(), w.writerIncarnation(), dest.id, w.region(), w.pushId(), true);
        });
    }

    private void lostRegionWrite(SimNode writer, long writerIncarnation, SimNode dest, Object detail, String region, long pushId) {
        count("region.writes.lost");
        traceDrop("region-write", dest.id, detail);
        if (pushId > 0) completePush(writer, writerIncarnation, dest.id, region, pushId, false);
    }

    /** The outcome of a push at {@code target} reaches the writer, unless the writer crashed meanwhile. */
    private void completePush(SimNode writer, long writerIncarnation, NodeId target, String region, long pushId, boolean applied) {
        io.tandem.engine.PushCompletion c = new io.tandem.engine.PushCompletion(pushId, region, target, applied);
        at(network.regionArrival(target, writer.id, now), () -> writer.runFor(writerIncarnation, "push-completion", new Object[] {pushId, target, applied},
                () -> writer.pushCompleted(c)));
    }

    // ---- clients ----

    void sendToNode(NodeId target, SimNode.ClientCall call) {
        SimNode node = nodes.get(target);
        if (costs != null) {
            // The load generator's I/O thread sends the request, the link carries it, the node's I/O thread reads it.
            long bytes = call.request().payload().length + CLIENT_FRAME_BYTES + Math.max(0, costs.table().commandBytes() - call.request().payload().length);
            costs.cpu(io.tandem.sim.cost.CostModel.CLIENT).submit(io.tandem.sim.cost.Stage.IO, costs.table().clientOpCost() / 2, null, () ->
                    at(costs.network().arrival(io.tandem.sim.cost.CostModel.CLIENT, target.value(), now, bytes), () -> {
                        if (!node.isUp()) {
                            traceDrop("client-request", target, call.request());
                            return;
                        }
                        node.runCosted(node.incarnation(), "client-request", call.request(), null, bytes, () -> node.clientRequest(call));
                    }));
            return;
        }
        at(now + network.clientDelay(target), () -> {
            if (!node.isUp()) {
                traceDrop("client-request", target, call.request());
                return;
            }
            node.runFor(node.incarnation(), "client-request", call.request(), () -> node.clientRequest(call));
        });
    }

    void replyToClient(SimNode node, SimNode.ClientCall call, SimClient.Outcome outcome) {
        if (costs != null) {
            costs.profile().record(node.id.value(), "client-reply", null, costs.table().clientReplyCost());
            Runnable reply = () -> costs.cpu(node.id.value()).submit(io.tandem.sim.cost.Stage.IO, costs.table().clientReplyCost(), null, () ->
                    at(costs.network().arrival(node.id.value(), io.tandem.sim.cost.CostModel.CLIENT, now, CLIENT_FRAME_BYTES + 16), () ->
                            costs.cpu(io.tandem.sim.cost.CostModel.CLIENT).submit(io.tandem.sim.cost.Stage.IO, costs.table().clientOpCost() - costs.table().clientOpCost() / 2, null, () -> {
                                trace("client-reply", node.id, new Object[] {call.client().thread(), call.opId(), outcome});
                                call.client().onReply(call.opId(), node.id, outcome);
                            })));
            if (!node.capture(reply)) reply.run();
            return;
        }
        at(now + network.clientDelay(node.id), () -> {
            trace("client-reply", node.id, new Object[] {call.client().thread(), call.opId(), outcome});
            call.client().onReply(call.opId(), node.id, outcome);
        });
    }

    /** Framing and request header of a client request on the wire, beside its payload. */
    static final int CLIENT_FRAME_BYTES = 32;

    long nextRequestId() {
        return ++nextRequestId;
    }

    long nextOpId() {
        return ++nextOpId;
    }

    void countIssued() {
        issued++;
    }

    boolean faultPhaseBudgetUsed() {
        return issued >= options.ops();
    }

    void countCompleted(String type) {
        count("ops." + type);
    }

    void clientDone() {
        if (++clientsDone == clients.size() + (pipelined == null ? 0 : 1)) finished = true;
    }

    /**
     * The pipelined client got an answer for each of its commands, each adding 1 to one counter: a
     * replica that applied up to the highest index any replica applied must hold exactly their number,
     * and none may hold more (a command applied twice).
     */
    private void checkExactlyOnce() {
        long highest = 0;
        for (SimNode n : nodes.values()) if (n.isUp()) highest = Math.max(highest, n.appliedIndex());
        for (SimNode n : nodes.values()) {
            if (!n.isUp()) continue;
            long counter = n.counter(SimPipelinedClient.COUNTER_KEY);
            if (counter > pipelined.commands() || n.appliedIndex() == highest && counter != pipelined.commands()) {
                fail(SimFailure.Kind.SAFETY, "exactly-once", n.id + " applied " + counter + " of the pipelined client's " + pipelined.commands()
                        + " commands (applied index " + n.appliedIndex() + ", highest " + highest + "): "
                        + (counter > pipelined.commands() ? "a command was applied more than once" : "an acknowledged command is missing"));
                return;
            }
        }
        stat("pipelined.commands", pipelined.commands());
    }

    /** Think time between a client's operations: spreads the fault-phase operations over the fault phase. */
    long thinkTime() {
        if (healed) return clientRandom.nextLong(0, 2 * SimTime.MILLIS + 1);
        if (options.ops() == 0) return 0; // no fault-phase operations: idle at once, woken by the heal (else the first think time averages the whole run)
        double mean = (double) options.durationNanos() * options.clients() / Math.max(1, options.ops());
        return (long) (clientRandom.nextExponential() * mean);
    }

    long retryBackoff() {
        return clientRandom.nextLong(SimTime.MILLIS, 10 * SimTime.MILLIS + 1);
    }

    // ---- execution: the shipped executor, driven on this thread ----

    /**
     * The executor every node runs: the sequential one, or the runtime's parallel executor with its
     * workers' steps interleaved in an order drawn from the seed (each node and incarnation its own
     * stream, so runs replay bit for bit while schedules vary across nodes and seeds).
     */
    ExecutorFactory executors() {
        if (options.execution() == io.tandem.execution.ExecutionMode.SEQUENTIAL) return ExecutorFactory.sequential();
        long stepSeed = executionRandom.nextLong();
        return io.tandem.execution.ParallelExecutors.of(
                io.tandem.execution.ParallelOptions.of(options.execution(), options.executionThreads()).stepped(stepSeed), null);
    }

    ExecutorFactory.Limits executorLimits() {
        return ExecutorFactory.Limits.DEFAULTS;
    }

    KvRegisterMachine newStateMachine() {
        return new KvRegisterMachine();
    }

    // ---- faults ----

    void applyFault(Fault fault) {
        if (healed) return; // the liveness phase has begun; late faults of the schedule no longer apply
        trace("fault", null, fault);
        String text = Fault.format(fault);
        int colon = text.indexOf(':');
        history.nemesis(colon < 0 ? text : text.substring(0, colon), text);
        switch (fault) {
            case Fault.Partition p -> {
                network.partition(p.blocked());
                releaseHeldRegionWrites(); // a new partition may leave some cut links whole again
            }
            case Fault.Heal h -> {
                network.heal();
                releaseHeldRegionWrites();
            }
            case Fault.Crash c -> nodes.get(c.node()).crash();
            case Fault.Restart r -> {
                SimNode n = nodes.get(r.node());
                if (!n.isUp()) n.start();
            }
            case Fault.Pause p -> nodes.get(p.node()).pause();
            case Fault.Resume r -> nodes.get(r.node()).resume();
            case Fault.ClockJump c -> nodes.get(c.node()).jumpClock(c.deltaNanos());
            case Fault.Slow s -> network.setSlow(s.node(), s.factor());
            case Fault.Unslow u -> network.clearSlow(u.node());
            case Fault.SlowLink s -> network.setSlowLink(s.link(), s.factor());
            case Fault.UnslowLink u -> network.clearSlowLink(u.link());
            case Fault.LossBurst l -> network.lossBurst(l.rate());
            case Fault.LossEnd l -> network.endLossBurst();
            case Fault.Supervise v -> {
                for (SimNode n : nodes.values()) {
                    if (!n.isUp() || n.isPaused() || n.engine().status().role() != io.tandem.engine.EngineStatus.Role.NOT_MEMBER) continue;
                    trace("supervisor-restart", n.id, null);
                    n.crash();
                    at(now + SimTime.MILLIS, () -> {
                        if (!n.isUp() && !healed) n.start(); // after the heal, the heal started it
                    });
                }
            }
        }
    }

    private void healEverything() {
        trace("heal-all", null, null);
        history.nemesis("heal-all", "liveness phase");
        network.healAll();
        releaseHeldRegionWrites();
        for (SimNode n : nodes.values()) {
            if (!n.isUp()) n.start();
            else n.resume();
        }
        healed = true;
        healTime = now;
        for (SimClient c : clients) c.wake();
        at(now + options.livenessNanos(), () -> {
            if (finished) return;
            List<String> short_ = new ArrayList<>();
            for (SimClient c : clients) if (!c.answeredAfterHeal()) short_.add("client " + clients.indexOf(c));
            if (pipelined != null && !pipelined.isDone()) short_.add("the pipelined client");
            if (short_.isEmpty()) {
                // Every client got its liveness answers; what is left is fault-phase budget that a slow
                // system (a slow-disk profile) had not used by the heal. The clients stop here, as they
                // would have after using it: the run is live, and its history is checked as it stands (an
                // operation still in flight is indeterminate to the checker, like one lost in a crash).
                trace("liveness-met", null, "fault-phase budget left at the deadline: " + (options.ops() - issued) + " operations");
                finished = true;
                return;
            }
            fail(SimFailure.Kind.LIVENESS, "liveness", "after everything was healed at " + SimTime.clock(healTime) + ", " + String.join(", ", short_)
                    + " did not get " + options.livenessOps() + " definite answers within " + SimTime.format(options.livenessNanos()));
        });
    }

    // ---- built-in invariants ----

    /**
     * View agreement (derecho.md §9.2 P1): a view id names the same members on every node that
     * installs it, in every incarnation.
     */
    void checkViewAgreement(NodeId node, io.tandem.engine.GroupView view) {
        if (!options.invariants()) return;
        io.tandem.engine.GroupView first = viewsById.putIfAbsent(view.id(), view);
        if (first != null && !first.equals(view)) {
            violation("view-agreement", node + " installed " + view + " but another member installed " + first);
        }
    }

    /** State machine safety: no two nodes apply different commands at the same index. */
    void checkStateMachineSafety(NodeId node, Committed entry) {
        if (!options.invariants()) return;
        AppliedCommand first = appliedByIndex.putIfAbsent(entry.index(), new AppliedCommand(node, entry));
        if (first == null || sameCommand(first.entry(), entry)) return;
        violation("state-machine-safety", "index " + entry.index() + " was applied as " + describe(first.entry()) + " on " + first.node()
                + " but as " + describe(entry) + " on " + node);
    }

    private static boolean sameCommand(Committed a, Committed b) {
        return a.isNoop() == b.isNoop() && java.util.Objects.equals(a.origin(), b.origin()) && a.requestId() == b.requestId()
                && a.session().equals(b.session()) && Arrays.equals(a.command(), b.command());
    }

    private static String describe(Committed c) {
        if (c.isNoop()) return "no-op";
        return KvRegisterMachine.describe(c.command()) + " (request " + c.origin() + "#" + c.requestId() + ", session " + c.session().clientId() + "/" + c.session().sequence() + ")";
    }

    // ---- SimCluster ----

    @Override
    public List<NodeId> members() {
        return members;
    }

    @Override
    public long nowNanos() {
        return now;
    }

    @Override
    public boolean isUp(NodeId node) {
        return node(node).isUp();
    }

    @Override
    public boolean isPaused(NodeId node) {
        return node(node).isPaused();
    }

    @Override
    public Optional<Engine> engine(NodeId node) {
        return Optional.ofNullable(node(node).engine());
    }

    @Override
    public long appliedIndex(NodeId node) {
        return node(node).appliedIndex();
    }

    @Override
    public List<io.tandem.engine.GroupView> views(NodeId node) {
        return node(node).views();
    }

    private SimNode node(NodeId id) {
        SimNode n = nodes.get(id);
        if (n == null) throw new IllegalArgumentException(id + " is not a member");
        return n;
    }

    /** For tests of the simulator's pieces. */
    SimNode simNode(NodeId id) {
        return node(id);
    }

    Map<NodeId, SimNode> nodes() {
        return Collections.unmodifiableMap(nodes);
    }
}
