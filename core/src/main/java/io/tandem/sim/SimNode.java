package io.tandem.sim;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.GroupView;
import io.tandem.engine.PushCompletion;
import io.tandem.engine.Regions;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Rejection;
import io.tandem.engine.SnapshotTag;
import io.tandem.engine.TimerKey;
import io.tandem.execution.ExecutionListener;
import io.tandem.execution.Executor;
import io.tandem.execution.ExecutorFactory;
import io.tandem.storage.DurableLog;
import io.tandem.storage.MetaStore;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.SnapshotStore;
import io.tandem.storage.StorageEvent;
import io.tandem.transport.RegionTable;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One simulated node: its engine (a fresh instance per incarnation), the {@link EngineContext} it
 * runs against, its disk (which outlives crashes), its executor (the same {@link Executor} the real
 * runtime runs, driven here on the simulator's thread), timers on a local clock with an offset, and
 * the backlog of events that queue up while it is paused.
 */
final class SimNode implements SimDisk.Host {
    /** A client request this node received and has not answered yet. */
    record ClientCall(SimCaller client, long opId, ClientRequest request) {}

    private record TimerState(long generation, long deadlineLocal) {}

    private record Deferred(String kind, Object detail, Runnable action) {}

    final NodeId id;
    private final Simulation sim;
    private final SplittableRandom randomRoot;
    final SimDisk disk;
    final SimMeters meters;

    private boolean up;
    private boolean paused;
    private long incarnation;
    private long clockOffset;
    /** This node's clock rate error in parts per million (seeded once per node, kept across restarts: it is the hardware's). */
    private long driftPpm = Long.MIN_VALUE;
    private Engine engine;
    private Executor execution;
    private KvRegisterMachine machine;
    private final LinkedHashMap<TimerKey, TimerState> timers = new LinkedHashMap<>();
    private long timerGeneration;
    private final List<Deferred> backlog = new ArrayList<>();
    private final TreeMap<Long, ClientCall> pendingCalls = new TreeMap<>();
    /** Indexes whose results the engine asked for ({@code deliverReportingResult}); lost with the process. */
    private final java.util.Set<Long> reportResults = new java.util.HashSet<>();
    private boolean appliedNotificationQueued;
    private long crashes;
    /** Volatile memory: a new, zero-filled set per incarnation. */
    private SimRegions regions;
    /** The members this node's network connects it to (run-time membership); reset on restart. */
    private final TreeSet<NodeId> peers = new TreeSet<>();
    private GroupView view;
    private final List<GroupView> views = new ArrayList<>();
    private boolean polling;
    private boolean pollScheduled;
    /** Effects (messages, replies) of the cost-model job running now, released when it finishes; null outside one. */
    private List<Runnable> capture;
    /** Under the cost model, the last index handed to the execution thread (applied later); -1: none since the last reset. */
    private long lastDelivered = -1;

    /**
     * A poll that found work is repeated this much later in virtual time (spinning, as the real
     * loop would), so other nodes' events interleave and time moves on.
     */
    static final long POLL_SPIN_NANOS = 1_000;

    SimNode(NodeId id, Simulation sim, SplittableRandom randomRoot) {
        this.id = id;
        this.sim = sim;
        this.randomRoot = randomRoot;
        this.meters = new SimMeters();
        this.disk = new SimDisk(this);
    }

    boolean isUp() {
        return up;
    }

    boolean isPaused() {
        return paused;
    }

    Engine engine() {
        return up ? engine : null;
    }

    long appliedIndex() {
        return execution == null ? 0 : execution.appliedIndex();
    }

    /** A register of this node's state machine, read directly (the exactly-once check). */
    long counter(long key) {
        return machine.valueOf(key);
    }

    long crashes() {
        return crashes;
    }

    long localNow() {
        return sim.now() + sim.now() / 1_000_000 * driftPpm + clockOffset;
    }

    /** Starts a new incarnation: fresh engine, execution restored from the durable snapshot, storage recovered. */
    void start() {
        incarnation++;
        up = true;
        paused = false;
        backlog.clear();
        timers.clear();
        pendingCalls.clear();
        reportResults.clear();
        appliedNotificationQueued = false;
        lastDelivered = -1;
        regions = new SimRegions(this, sim, incarnation);
        peers.clear();
        for (NodeId m : sim.members()) if (!m.equals(id)) peers.add(m);
        view = null;
        polling = false;
        pollScheduled = false;
        // A restarted process has a new monotonic clock origin; the first one too.
        clockOffset = randomRoot.nextLong(0, 1_000L * SimTime.SECONDS);
        int bound = sim.options().clockDriftPpm();
        if (driftPpm == Long.MIN_VALUE) driftPpm = bound == 0 ? 0 : randomRoot.nextLong(-bound, bound + 1);
        if (incarnation > 1) disk.recover();
        machine = sim.newStateMachine();
        execution = sim.executors().create(machine, new Completions(), sim.executorLimits());
        disk.durableSnapshot().ifPresent(s -> restore(s.data()));
        engine = sim.protocol() instanceof SimulatedProtocol sp ? sp.createSimulatedEngine(id, sim.members()) : sim.protocol().createEngine(id, sim.members());
        Context context = new Context(incarnation, randomRoot.split());
        dispatch("start", null, () -> {
            engine.start(context);
            if (view == null) installView(new GroupView(1, sim.members())); // an engine that does not manage views
        });
    }

    void crash() {
        if (!up) return;
        crashes++;
        up = false;
        paused = false;
        incarnation++; // every event addressed to the old incarnation is now stale
        backlog.clear();
        timers.clear();
        pendingCalls.clear();
        reportResults.clear();
        engine = null;
        execution = null;
        machine = null;
        regions = null; // volatile memory: lost with the process
        polling = false;
        disk.crash(sim.diskRandom(), sim.options().tornWrites(), sim.options().unsyncedSurvival());
    }

    void pause() {
        if (up) paused = true;
    }

    void resume() {
        if (!up || !paused) return;
        paused = false;
        List<Deferred> queued = new ArrayList<>(backlog);
        backlog.clear();
        long inc = incarnation;
        for (Deferred d : queued) sim.at(sim.now(), () -> runIfCurrent(inc, d.kind(), d.detail(), d.action()));
    }

    /**
     * Sets this node's clock rate error from now on (scripted scenarios), keeping the local clock
     * continuous: only its rate changes, never its reading.
     */
    void setDriftPpm(long ppm) {
        long before = localNow();
        driftPpm = ppm;
        if (!up) return; // a start sets a new clock origin anyway
        clockOffset += before - localNow();
        for (Map.Entry<TimerKey, TimerState> e : new ArrayList<>(timers.entrySet())) {
            arm(e.getKey(), Math.max(0, e.getValue().deadlineLocal() - localNow()), e.getValue().deadlineLocal());
        }
    }

    /** Moves the local clock forward; armed timers keep their local deadlines and so fire earlier in virtual time. */
    void jumpClock(long deltaNanos) {
        if (!up) return;
        clockOffset += deltaNanos;
        for (Map.Entry<TimerKey, TimerState> e : new ArrayList<>(timers.entrySet())) {
            arm(e.getKey(), Math.max(0, e.getValue().deadlineLocal() - localNow()), e.getValue().deadlineLocal());
        }
    }

    /** Schedules {@code action} on this node's loop after {@code delay}, for the current incarnation only. */
    void post(long delayNanos, String kind, Object detail, Runnable action) {
        long inc = incarnation;
        sim.at(sim.now() + delayNanos, () -> runIfCurrent(inc, kind, detail, action));
    }

    /** Same, for an event already stamped with the incarnation it was meant for (a message in flight). */
    void postFor(long incarnation, long atNanos, String kind, Object detail, Runnable action) {
        sim.at(atNanos, () -> runIfCurrent(incarnation, kind, detail, action));
    }

    long incarnation() {
        return incarnation;
    }

    /** Runs {@code action} now if the node is still in incarnation {@code inc} (queued while paused). */
    void runFor(long inc, String kind, Object detail, Runnable action) {
        runIfCurrent(inc, kind, detail, action);
    }

    private void runIfCurrent(long inc, String kind, Object detail, Runnable action) {
        if (inc != incarnation || !up) {
            sim.traceDrop(kind, id, detail);
            return;
        }
        dispatch(kind, detail, action);
    }

    private void dispatch(String kind, Object detail, Runnable action) {
        if (sim.costs() != null) {
            // A timer is costed by its key's name when the table has one for it (loop.timer.<name>.ns).
            runCosted(incarnation, kind, detail, detail instanceof io.tandem.engine.TimerKey k ? k.costName() : null, 0, action);
            return;
        }
        if (paused) {
            backlog.add(new Deferred(kind, detail, action));
            return;
        }
        sim.trace(kind, id, detail);
        action.run();
        if (polling && up && !paused) poll();
    }

    // ---- the cost model (issue 18) ----

    /**
     * Under the cost model: the event queues on this node's I/O thread (receiving and decoding a
     * message or a client request), then on its protocol loop, where the handler runs when the job
     * gets a core; what the handler sends leaves when the job's service time is over. Dropped if the
     * node crashed or restarted meanwhile; queued in the backlog while the node is paused by a fault
     * of the schedule.
     */
    void runCosted(long inc, String kind, Object detail, String type, long bytes, Runnable action) {
        runCosted(inc, kind, detail, type, bytes, null, action);
    }

    /** The same; {@code read} (or null) runs when the I/O thread takes the event off its connection (a window update). */
    void runCosted(long inc, String kind, Object detail, String type, long bytes, Runnable read, Runnable action) {
        if (inc != incarnation || !up) {
            sim.traceDrop(kind, id, detail);
            if (read != null) read.run();
            return;
        }
        io.tandem.sim.cost.CostModel costs = sim.costs();
        if (costs == null) { // the correctness simulator: no time, as dispatch always did
            dispatch(kind, detail, action);
            return;
        }
        io.tandem.sim.cost.CostTable table = costs.table();
        io.tandem.sim.cost.NodeCpu cpu = costs.cpu(id.value());
        long ioCost = switch (kind) {
            case "message" -> table.receiveCost(bytes) + table.decodeCost(type, bytes);
            case "client-request" -> table.clientRequestCost();
            default -> 0;
        };
        if ("message".equals(kind) && table.coalescesFrames() && detail instanceof Object[] d && d.length > 0 && d[0] instanceof NodeId from) {
            // A frame joins the read of its connection that is already queued on this I/O thread, or opens (and pays) one.
            String self = id.value();
            if (costs.frames().frameArrived(from.value(), self)) {
                ioCost += table.readCost();
                Runnable onRead = read;
                read = () -> {
                    costs.frames().readStarted(from.value(), self);
                    if (onRead != null) onRead.run();
                };
            }
        }
        long loop = table.loopCost(kind, type, bytes);
        if (costs.profile().on()) costs.profile().record(id.value(), "recv " + kind, type, ioCost + loop);
        // A storage completion's hand-off to the loop is in the calibrated fsync (append to durable, waiter woken).
        boolean handoff = !"storage".equals(kind);
        Runnable onLoop = () -> job(cpu, io.tandem.sim.cost.Stage.LOOP, loop, inc, handoff, () -> {
            if (paused) {
                backlog.add(new Deferred(kind, detail, action));
                return;
            }
            sim.trace(kind, id, detail);
            io.tandem.sim.cost.HandlerProbe probe = sim.probe();
            if (probe == null) {
                action.run();
            } else {
                long t0 = System.nanoTime(); // calibration only: wall time is reported, never fed back
                action.run();
                probe.handled(kind, type, bytes, System.nanoTime() - t0);
            }
            if (polling && up && !paused) poll();
        });
        if (ioCost > 0) {
            cpu.submit(io.tandem.sim.cost.Stage.IO, ioCost, read, () -> { if (inc == incarnation && up) onLoop.run(); });
        } else {
            if (read != null) read.run();
            onLoop.run();
        }
    }

    /** Queues {@code body} on {@code stage} with service time {@code cost}; its effects leave when it finishes. */
    private void job(io.tandem.sim.cost.NodeCpu cpu, io.tandem.sim.cost.Stage stage, long cost, long inc, Runnable body) {
        job(cpu, stage, cost, inc, true, body);
    }

    /** The same; {@code handoff} false when a measured latency already holds the wake-up of the job's thread. */
    private void job(io.tandem.sim.cost.NodeCpu cpu, io.tandem.sim.cost.Stage stage, long cost, long inc, boolean handoff, Runnable body) {
        List<Runnable> effects = new ArrayList<>();
        cpu.submit(stage, cost, () -> {
            if (inc != incarnation || !up) return;
            capture = effects;
            try {
                body.run();
            } finally {
                capture = null;
            }
        }, () -> {
            for (Runnable effect : effects) effect.run();
        }, handoff);
    }

    /** Holds {@code effect} until the cost-model job running now finishes; false if no job runs (then the caller does it now). */
    boolean capture(Runnable effect) {
        if (capture == null) return false;
        capture.add(effect);
        return true;
    }

    /** Under the cost model, execution work runs on the node's execution thread, in order, with its calibrated cost. */
    private boolean onExecutionThread(long cost, Runnable body) {
        io.tandem.sim.cost.CostModel costs = sim.costs();
        if (costs == null) return false;
        costs.profile().record(id.value(), "exec", null, cost);
        job(costs.cpu(id.value()), io.tandem.sim.cost.Stage.EXEC, cost, incarnation, body);
        return true;
    }

    // ---- polling, regions and views ----

    /**
     * Polls the engine after an event of this node. Memory and engine state change only at events
     * here, so a poll that found nothing is not repeated until the next event (a parked poller that
     * every event wakes); one that found work is repeated {@link #POLL_SPIN_NANOS} later.
     */
    private void poll() {
        if (engine.doWork() > 0 && !pollScheduled) {
            pollScheduled = true;
            post(POLL_SPIN_NANOS, "poll", null, () -> pollScheduled = false);
        }
    }

    boolean isConnectedTo(NodeId member) {
        return peers.contains(member);
    }

    /** A member's push arrives (on this node's loop): applied unless frozen or malformed; an EVENT region tells the engine. */
    boolean applyRegionWrite(NodeId writer, String region, int offset, long[] words) {
        RegionTable.Outcome outcome = regions.apply(writer, region, offset, words);
        if (outcome != RegionTable.Outcome.APPLIED) return false;
        if (regions.noticeOf(region) == Regions.Notice.EVENT) engine.onRegionWrite(writer, region, offset, words.length * 8);
        return true;
    }

    void pushCompleted(PushCompletion completion) {
        regions.completed(completion);
    }

    List<GroupView> views() {
        return List.copyOf(views);
    }

    /** As the real runtime: ids only grow; the network connects members that joined and disconnects those that left. */
    private void installView(GroupView next) {
        if (view != null && next.id() <= view.id()) return;
        GroupView previous = view;
        view = next;
        views.add(next);
        sim.trace("view", id, new Object[] {next.id(), next.members().toString()});
        sim.checkViewAgreement(id, next);
        for (NodeId m : next.members()) {
            if (!m.equals(id) && sim.members().contains(m) && peers.add(m)) regions.resetPeer(m);
        }
        if (previous != null) {
            for (NodeId m : previous.members()) if (!next.contains(m)) peers.remove(m);
        }
    }

    // ---- client traffic ----

    void clientRequest(ClientCall call) {
        pendingCalls.put(call.request().requestId(), call);
        engine.onClientRequest(call.request());
        lookUpSession(call.request());
    }

    /**
     * As the real runtime ({@code NodeRuntime}): a command whose (client, sequence) already executed
     * here when its request arrived is answered from the session table, after execution caught up
     * with what the engine delivered so far; it changes nothing in the table.
     */
    private void lookUpSession(ClientRequest r) {
        if (r.kind() != ClientRequest.Kind.COMMAND || r.session().isNone()) return;
        Runnable lookup = () -> {
            if (!pendingCalls.containsKey(r.requestId())) return;
            byte[] result = execution.executedResult(r.session());
            if (result != null) answer(r.requestId(), new SimClient.Outcome.Result(result));
        };
        if (!onExecutionThread(0, lookup)) lookup.run();
    }

    private void answer(long requestId, SimClient.Outcome outcome) {
        ClientCall call = pendingCalls.remove(requestId);
        if (call == null) return;
        sim.replyToClient(this, call, outcome);
    }

    /** Where the executor reports outcomes; it runs on the simulator's thread, inside a delivery of this node. */
    private final class Completions implements ExecutionListener {
        @Override
        public void executed(Committed entry, Outcome outcome) {
            if (outcome instanceof Outcome.Stale) { // its client said it would not ask again: nobody waits for it
                if (!reportResults.isEmpty()) reportResults.remove(entry.index());
                return;
            }
            boolean report = !reportResults.isEmpty() && reportResults.remove(entry.index());
            Long requestId = id.equals(entry.origin()) && pendingCalls.containsKey(entry.requestId()) ? Long.valueOf(entry.requestId()) : callFor(entry.session());
            if (!report && requestId == null) return; // as the runtime: nobody needs the bytes, so they are never made
            byte[] result = switch (outcome) {
                case Outcome.Applied a -> a.result();
                case Outcome.Duplicate d -> d.result();
                case Outcome.Stale s -> throw new IllegalStateException("unreachable");
            };
            // The engine hears of it as its own event, never inside the delivery that executed it.
            if (report) post(0, "executed", entry.index(), () -> engine.onExecuted(entry, result));
            if (requestId != null) answer(requestId, new SimClient.Outcome.Result(result));
        }

        @Override
        public void readAnswered(long requestId, byte[] result, RuntimeException error) {
            if (error != null) throw error; // the simulator's state machine never fails a query: a bug
            answer(requestId, new SimClient.Outcome.Result(result));
        }

        /**
         * Optimistic P-SMR re-sends a command that failed its check: ordered like a client's command
         * of this node, as its own event (never inside the engine's delivery that reported it). Nobody
         * waits for its own answer; a redirect drops it (another member's copy gets ordered).
         */
        @Override
        public void resubmit(byte[] taggedCommand) {
            sim.countResubmit();
            post(0, "resubmit", null, () -> engine.onClientRequest(ClientRequest.command(sim.nextRequestId(), ClientRequest.Session.NONE, taggedCommand)));
        }
    }

    /** The command of this node waiting for {@code session}: it completes the first time that command executes here. */
    private Long callFor(ClientRequest.Session session) {
        if (session.isNone()) return null;
        for (Map.Entry<Long, ClientCall> e : pendingCalls.entrySet()) {
            if (e.getValue().request().session().equals(session)) return e.getKey();
        }
        return null;
    }

    private void restore(byte[] snapshot) {
        try {
            execution.restoreSnapshot(new ByteArrayInputStream(snapshot));
        } catch (IOException e) {
            throw new UncheckedIOException(id + " cannot restore its snapshot", e);
        }
    }

    private void notifyApplied() {
        sim.noteApplied(execution.appliedIndex()); // before any answer it produced can reach a client
        if (appliedNotificationQueued) return;
        appliedNotificationQueued = true;
        post(0, "applied", null, () -> {
            appliedNotificationQueued = false;
            engine.onApplied(execution.appliedIndex());
        });
    }

    // ---- SimDisk.Host ----

    @Override
    public void scheduleDisk(long delayNanos, String what, Runnable completion) {
        long inc = incarnation;
        // The disk works while the process is paused; only the notification waits for the process.
        sim.at(sim.now() + delayNanos, () -> {
            if (inc == incarnation && up) completion.run();
        });
    }

    @Override
    public void storageEvent(StorageEvent event) {
        dispatch("storage", event, () -> engine.onStorageEvent(event));
    }

    @Override
    public long diskLatency() {
        if (sim.costs() != null) return sim.costs().disk(id.value()).transfer(0) + sim.costs().table().disk().sample(sim.diskRandom());
        return sim.options().diskLatency().sample(sim.diskRandom()) * sim.network().slowFactor(id);
    }

    @Override
    public long flushLatency(int entries, long bytes) {
        io.tandem.sim.cost.CostModel costs = sim.costs();
        if (costs == null) return diskLatency();
        // The benchmark's commands are the size of a real KV put in the log, not the simulator's register commands.
        long real = costs.table().commandBytes() > 0 ? Math.max(bytes, entries * (costs.table().commandBytes() + SimDisk.RECORD_HEADER_BYTES)) : bytes;
        long cpu = costs.table().diskFlushCpuCost() + entries * costs.table().diskEntryCpuCost();
        if (cpu == 0) return costs.disk(id.value()).flush(entries, real);
        // The storage thread's CPU for this sync competes for the node's cores (and its quota); the sync
        // completes after that work and the disk's latency, which do not overlap in the real thread either.
        costs.cpu(id.value()).submit(io.tandem.sim.cost.Stage.DISK, cpu, null, null);
        return cpu + costs.disk(id.value()).flush(entries, real);
    }

    @Override
    public int syncsInFlight() {
        return sim.costs() == null ? 1 : sim.costs().table().diskSyncsInFlight();
    }

    /** When this node's last sync through the shared device returned (virtual nanoseconds; -1: none yet). */
    private long lastSyncDone = -1;

    @Override
    public void flush(int entries, long bytes, Runnable completion) {
        io.tandem.sim.cost.CostModel costs = sim.costs();
        if (costs == null || costs.disk(id.value()).device() == null) {
            scheduleDisk(flushLatency(entries, bytes), "flush", completion);
            return;
        }
        long inc = incarnation;
        long real = costs.table().commandBytes() > 0 ? Math.max(bytes, entries * (costs.table().commandBytes() + SimDisk.RECORD_HEADER_BYTES)) : bytes;
        long cpu = costs.table().diskFlushCpuCost() + entries * costs.table().diskEntryCpuCost();
        // The storage thread writes (its CPU, on the node's cores and quota), then asks the machine's one device to sync;
        // the device works while the process is paused, only the notification waits for the process.
        // disk.record.ns: the batch's records beyond the first take the storage thread longer than a lone sync (session 17).
        Runnable sync = () -> costs.disk(id.value()).flush(entries, real, () -> {
            lastSyncDone = sim.now();
            if (inc == incarnation && up) completion.run();
        });
        // A flush asked for at the instant the previous sync returned found its batch queued: the real storage thread went on
        // from the sync to the next batch without parking, so it pays no wake-up (wakeup.DISK.ns) for it (session 14).
        boolean parked = sim.now() != lastSyncDone;
        if (cpu == 0) sync.run();
        else costs.cpu(id.value()).submit(io.tandem.sim.cost.Stage.DISK, cpu, null, sync, true, parked);
    }

    @Override
    public void installSnapshot(SnapshotMeta meta, byte[] data) {
        restore(data);
        execution.flush();
        lastDelivered = -1;
        notifyApplied();
    }


    /** The context of one incarnation: a crashed engine's context goes dead with it. */
    private final class Context implements EngineContext {
        private final long inc;
        private final SplittableRandom random;

        Context(long inc, SplittableRandom random) {
            this.inc = inc;
            this.random = random;
        }

        private void checkLive() {
            if (inc != incarnation || !up) throw new IllegalStateException(id + ": engine of a crashed incarnation is still running");
        }

        @Override
        public NodeId self() {
            return id;
        }

        @Override
        public List<NodeId> members() {
            return sim.members();
        }

        @Override
        public void installView(GroupView next) {
            checkLive();
            SimNode.this.installView(java.util.Objects.requireNonNull(next, "view"));
        }

        @Override
        public GroupView view() {
            return view != null ? view : new GroupView(1, sim.members());
        }

        @Override
        public Regions regions() {
            checkLive();
            return regions;
        }

        @Override
        public void requestPolling(boolean poll) {
            checkLive();
            polling = poll;
        }

        @Override
        public long nowNanos() {
            return localNow();
        }

        @Override
        public SplittableRandom random() {
            return random;
        }

        @Override
        public void send(NodeId to, ProtocolMessage message) {
            checkLive();
            sim.send(id, to, message);
        }

        @Override
        public TimerKey schedule(long delayNanos, TimerKey key) {
            checkLive();
            long delay = Math.max(0, delayNanos);
            arm(key, delay, localNow() + delay);
            return key;
        }

        @Override
        public void cancel(TimerKey key) {
            checkLive();
            timers.remove(key);
        }

        @Override
        public DurableLog log() {
            return disk.log();
        }

        @Override
        public MetaStore meta() {
            return disk.meta();
        }

        @Override
        public SnapshotStore snapshots() {
            return disk.snapshots();
        }

        @Override
        public void deliver(Committed entry) {
            checkLive();
            long expected = (lastDelivered >= 0 ? lastDelivered : execution.appliedIndex()) + 1;
            if (sim.costs() != null) lastDelivered = entry.index();
            if (entry.index() != expected) {
                sim.violation("in-order-execution", id + " delivered index " + entry.index() + " but its next index to apply is " + expected
                        + (entry.index() > expected ? " (a gap)" : " (a duplicate or a step back)"));
            }
            sim.checkStateMachineSafety(id, entry);
            long bytes = entry.command() == null ? 0 : Math.max(entry.command().length, sim.costs() == null ? 0 : sim.costs().table().commandBytes());
            if (sim.costs() != null && onExecutionThread(sim.costs().table().applyCost(bytes), () -> {
                execution.apply(entry);
                execution.flush();
                notifyApplied();
            })) return;
            execution.apply(entry);
            execution.flush();
            notifyApplied();
        }

        @Override
        public void deliverReportingResult(Committed entry) {
            checkLive();
            reportResults.add(entry.index());
            deliver(entry);
        }

        @Override
        public void serveRead(long requestId, long afterIndex) {
            checkLive();
            ClientCall call = pendingCalls.get(requestId);
            if (call == null) return;
            if (call.request().kind() != ClientRequest.Kind.READ) {
                sim.violation("serve-read", id + " served request " + requestId + " as a read but it is a command");
            }
            if (sim.costs() != null && onExecutionThread(sim.costs().table().applyCost(call.request().payload().length), () -> {
                execution.read(requestId, afterIndex, call.request().payload());
                execution.flush();
            })) return;
            execution.read(requestId, afterIndex, call.request().payload());
            execution.flush();
        }

        @Override
        public void complete(long requestId, byte[] result) {
            checkLive();
            answer(requestId, new SimClient.Outcome.Result(result == null ? new byte[0] : result));
        }

        @Override
        public void reject(long requestId, Rejection reason) {
            checkLive();
            answer(requestId, new SimClient.Outcome.Rejected(reason));
        }

        @Override
        public void takeSnapshot(long token) {
            checkLive();
            if (sim.costs() != null && onExecutionThread(0, () -> snapshotNow(token))) return;
            snapshotNow(token);
        }

        private void snapshotNow(long token) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try {
                execution.writeSnapshot(bytes);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            byte[] data = bytes.toByteArray();
            long index = execution.appliedIndex();
            SnapshotTag tag = engine.snapshotTag(index);
            SnapshotMeta meta = new SnapshotMeta(index, tag.epoch(), data.length, SimDisk.crc32c(data), tag.engineData());
            disk.storeTakenSnapshot(meta, data, token);
        }

        @Override
        public Meters meters() {
            return meters;
        }
    }

    /** Arms {@code key} to fire when this node's clock has advanced {@code delayNanos} (local time, which runs at its own rate). */
    private void arm(TimerKey key, long delayNanos, long deadlineLocal) {
        long generation = ++timerGeneration;
        timers.put(key, new TimerState(generation, deadlineLocal));
        long inc = incarnation;
        long virtualDelay = driftPpm == 0 ? delayNanos : Math.max(0, delayNanos - delayNanos / (1_000_000 + driftPpm) * driftPpm);
        sim.at(sim.now() + virtualDelay, () -> {
            if (!isArmed(key, generation)) return; // cancelled or re-armed: nothing happens, nothing to trace
            runIfCurrent(inc, "timer", key, () -> {
                if (!isArmed(key, generation)) return; // cancelled while it waited in a pause
                timers.remove(key);
                engine.onTimer(key);
            });
        });
    }

    private boolean isArmed(TimerKey key, long generation) {
        TimerState state = timers.get(key);
        return state != null && state.generation() == generation;
    }

    String status() {
        if (!up) return id + " crashed";
        String engineState = engine instanceof Inspectable i ? i.inspect() : engine.getClass().getSimpleName();
        return id + (paused ? " paused" : " up") +  " applied=" + execution.appliedIndex() + " log=[" + disk.log().firstIndex() + ".." + disk.log().lastIndex()
                + "] durable=" + disk.log().durableIndex() + " clock+" + SimTime.clock(clockOffset) + " | " + engineState;
    }
}
