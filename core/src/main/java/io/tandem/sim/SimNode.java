package io.tandem.sim;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.storage.DurableLog;
import io.tandem.storage.MetaStore;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.SnapshotStore;
import io.tandem.storage.StorageEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * One simulated node: its engine (a fresh instance per incarnation), the {@link EngineContext} it
 * runs against, its disk (which outlives crashes), its execution layer, timers on a local clock with
 * an offset, and the backlog of events that queue up while it is paused.
 */
final class SimNode implements SimDisk.Host {
    /** A client request this node received and has not answered yet. */
    record ClientCall(SimClient client, long opId, ClientRequest request) {}

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
    private Engine engine;
    private SimExecution execution;
    private final LinkedHashMap<TimerKey, TimerState> timers = new LinkedHashMap<>();
    private long timerGeneration;
    private final List<Deferred> backlog = new ArrayList<>();
    private final TreeMap<Long, ClientCall> pendingCalls = new TreeMap<>();
    private final TreeMap<Long, Long> pendingReads = new TreeMap<>(); // request id -> after index
    private boolean appliedNotificationQueued;
    private long crashes;

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
        return execution == null ? 0 : execution.applied();
    }

    long crashes() {
        return crashes;
    }

    long localNow() {
        return sim.now() + clockOffset;
    }

    /** Starts a new incarnation: fresh engine, execution restored from the durable snapshot, storage recovered. */
    void start() {
        incarnation++;
        up = true;
        paused = false;
        backlog.clear();
        timers.clear();
        pendingCalls.clear();
        pendingReads.clear();
        appliedNotificationQueued = false;
        // A restarted process has a new monotonic clock origin; the first one too.
        clockOffset = randomRoot.nextLong(0, 1_000L * SimTime.SECONDS);
        if (incarnation > 1) disk.recover();
        execution = new SimExecution();
        disk.durableSnapshot().ifPresent(s -> execution.restore(s.data(), s.meta().lastIncludedIndex()));
        engine = sim.protocol().createEngine(id, sim.members());
        Context context = new Context(incarnation, randomRoot.split());
        dispatch("start", null, () -> engine.start(context));
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
        pendingReads.clear();
        engine = null;
        execution = null;
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
        if (paused) {
            backlog.add(new Deferred(kind, detail, action));
            return;
        }
        sim.trace(kind, id, detail);
        action.run();
    }

    // ---- client traffic ----

    void clientRequest(ClientCall call) {
        pendingCalls.put(call.request().requestId(), call);
        engine.onClientRequest(call.request());
    }

    private void answer(long requestId, SimClient.Outcome outcome) {
        ClientCall call = pendingCalls.remove(requestId);
        if (call == null) return;
        sim.replyToClient(this, call, outcome);
    }

    private void serveReadyReads() {
        while (!pendingReads.isEmpty()) {
            Long ready = null;
            for (Map.Entry<Long, Long> e : pendingReads.entrySet()) {
                if (e.getValue() <= execution.applied()) {
                    ready = e.getKey();
                    break;
                }
            }
            if (ready == null) return;
            pendingReads.remove(ready);
            ClientCall call = pendingCalls.get(ready);
            if (call != null) answer(ready, new SimClient.Outcome.Result(execution.query(call.request().payload())));
        }
    }

    private void notifyApplied() {
        if (appliedNotificationQueued) return;
        appliedNotificationQueued = true;
        post(0, "applied", null, () -> {
            appliedNotificationQueued = false;
            engine.onApplied(execution.applied());
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
        return sim.options().diskLatency().sample(sim.diskRandom()) * sim.network().slowFactor(id);
    }

    @Override
    public void installSnapshot(SnapshotMeta meta, byte[] data) {
        execution.restore(data, meta.lastIncludedIndex());
        serveReadyReads();
        notifyApplied();
    }

    private long termAt(long index) {
        DurableLog log = disk.log();
        if (index >= log.firstIndex() && index <= log.lastIndex()) return log.entry(index).term();
        return disk.durableSnapshot().filter(s -> s.meta().lastIncludedIndex() == index).map(s -> s.meta().lastIncludedTerm()).orElse(0L);
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
            long expected = execution.applied() + 1;
            if (entry.index() != expected) {
                sim.violation("in-order-execution", id + " delivered index " + entry.index() + " but its next index to apply is " + expected
                        + (entry.index() > expected ? " (a gap)" : " (a duplicate or a step back)"));
            }
            sim.checkStateMachineSafety(id, entry);
            byte[] result = execution.apply(entry);
            if (id.equals(entry.origin()) && result != null) answer(entry.requestId(), new SimClient.Outcome.Result(result));
            serveReadyReads();
            notifyApplied();
        }

        @Override
        public void serveRead(long requestId, long afterIndex) {
            checkLive();
            ClientCall call = pendingCalls.get(requestId);
            if (call == null) return;
            if (call.request().kind() != ClientRequest.Kind.READ) {
                sim.violation("serve-read", id + " served request " + requestId + " as a read but it is a command");
            }
            pendingReads.put(requestId, afterIndex);
            serveReadyReads();
        }

        @Override
        public void reject(long requestId, Rejection reason) {
            checkLive();
            pendingReads.remove(requestId);
            answer(requestId, new SimClient.Outcome.Rejected(reason));
        }

        @Override
        public void takeSnapshot(long token) {
            checkLive();
            byte[] data = execution.snapshot();
            long index = execution.applied();
            SnapshotMeta meta = new SnapshotMeta(index, termAt(index), data.length, SimDisk.crc32c(data), new byte[0]);
            disk.storeTakenSnapshot(meta, data, token);
        }

        @Override
        public Meters meters() {
            return meters;
        }
    }

    private void arm(TimerKey key, long delayNanos, long deadlineLocal) {
        long generation = ++timerGeneration;
        timers.put(key, new TimerState(generation, deadlineLocal));
        long inc = incarnation;
        sim.at(sim.now() + delayNanos, () -> {
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
        return id + (paused ? " paused" : " up") + " applied=" + execution.applied() + " log=[" + disk.log().firstIndex() + ".." + disk.log().lastIndex()
                + "] durable=" + disk.log().durableIndex() + " clock+" + SimTime.clock(clockOffset) + " | " + engineState;
    }
}
