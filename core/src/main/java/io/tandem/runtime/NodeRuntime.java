package io.tandem.runtime;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.api.NodeStoppedException;
import io.tandem.api.NotLeaderException;
import io.tandem.api.OverloadedException;
import io.tandem.api.RequestTimeoutException;
import io.tandem.api.TandemException;
import io.tandem.api.UnavailableException;
import io.tandem.api.UnsupportedRequestException;
import io.tandem.engine.AdminRequest;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.Engine;
import io.tandem.engine.EngineContext;
import io.tandem.engine.EngineStatus;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.ReadPolicy;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.metrics.MicrometerMeters;
import io.tandem.statemachine.StateMachine;
import io.tandem.storage.DurableLog;
import io.tandem.storage.NodeStorage;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.SnapshotRestorer;
import io.tandem.storage.MetaStore;
import io.tandem.storage.SnapshotStore;
import io.tandem.storage.StorageEvent;
import io.tandem.transport.Transport;
import io.tandem.transport.TransportListener;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.random.RandomGenerator;
import org.jctools.queues.MpscUnboundedXaddArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real runtime of one node (DESIGN §2): one event-loop thread runs the engine from an MPSC
 * inbox fed by the transport's I/O threads, client callers, the disk thread and the execution
 * thread; timers are kept on the loop; committed commands are applied on a separate execution
 * thread. Nothing the engine does blocks the loop.
 */
public final class NodeRuntime implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeRuntime.class);
    private static final long MAX_PARK_NANOS = 10_000_000L;
    /** Timeouts are checked this often, not on every loop turn: the scan is linear in pending requests. */
    private static final long EXPIRY_SCAN_INTERVAL_NANOS = 5_000_000L;

    /** Events consumed by the loop. */
    private sealed interface LoopEvent {}

    private record Inbound(NodeId from, ProtocolMessage message) implements LoopEvent {}

    private record Request(ClientRequest request) implements LoopEvent {}

    private record Storage(StorageEvent event) implements LoopEvent {}

    private record Applied(long index) implements LoopEvent {}

    /** Execution asks the loop for the term of an index (the log belongs to the loop). */
    private record TermQuery(long index, CompletableFuture<Long> answer) implements LoopEvent {}

    /** A caller asks what the engine knows; answered on the loop, which owns the engine's state. */
    private record StatusQuery(CompletableFuture<EngineStatus> answer) implements LoopEvent {}

    /** An operator's membership or leadership request, admitted as pending request {@code requestId}. */
    private record Admin(long requestId, AdminRequest request) implements LoopEvent {}

    private final NodeId self;
    private final List<NodeId> members;
    private final Protocol protocol;
    private final Transport transport;
    private final StorageOpener storageOpener;
    private NodeStorage storage;
    private final RuntimeConfig config;
    private final Engine engine;
    private final MicrometerMeters meters;
    private final RuntimeMetrics metrics;
    private final PendingRequests pending;
    private final ExecutionStage execution;
    private final Timers timers = new Timers();
    /** Query bytes of reads the engine has not yet served, by request id (loop thread only). */
    private final java.util.Map<Long, byte[]> readQueries = new java.util.HashMap<>();
    private final MpscUnboundedXaddArrayQueue<LoopEvent> inbox = new MpscUnboundedXaddArrayQueue<>(1024);
    private final AtomicLong clockOffsetNanos = new AtomicLong();
    private final AtomicLong lastReportedApplied = new AtomicLong();
    private final AtomicBoolean started = new AtomicBoolean();
    private final Thread loop;
    private final RandomGenerator random = new SplittableRandom();
    private long lastExpiryScan;
    private volatile boolean running;
    private volatile boolean parked;
    private volatile Throwable failure;

    /**
     * Opens the node's storage once the runtime can take its completions; e.g.
     * {@code (events, restorer) -> NodeStorage.open(dir, cluster, self, FlushPolicy.FSYNC, events, restorer)}.
     */
    @FunctionalInterface
    public interface StorageOpener {
        NodeStorage open(Consumer<StorageEvent> events, SnapshotRestorer restorer);
    }

    public NodeRuntime(NodeId self, List<NodeId> members, Protocol protocol, Transport transport, StorageOpener storage,
                       StateMachine stateMachine, MeterRegistry registry, RuntimeConfig config) {
        this.self = Objects.requireNonNull(self);
        this.members = List.copyOf(members);
        if (!this.members.contains(self)) throw new IllegalArgumentException(self + " is not among the members " + members);
        this.protocol = protocol;
        this.transport = transport;
        this.storageOpener = storage;
        this.config = config;
        this.meters = new MicrometerMeters(registry, self, protocol.name(), this::now);
        this.metrics = new RuntimeMetrics(registry, meters.commonTags());
        this.pending = new PendingRequests(config.maxPendingRequests());
        this.execution = new ExecutionStage(self, stateMachine, pending, config.maxSessions(), metrics, this::onAppliedProgress);
        this.engine = protocol.createEngine(self, this.members);
        this.loop = Thread.ofPlatform().name("tandem-loop-" + self).daemon(true).unstarted(this::runLoop);
        Gauge.builder("tandem.runtime.pending", pending, PendingRequests::size).tags(meters.commonTags()).register(registry);
    }

    public NodeId self() {
        return self;
    }

    public List<NodeId> members() {
        return members;
    }

    public Protocol protocol() {
        return protocol;
    }

    public MicrometerMeters meters() {
        return meters;
    }

    /** Starts storage, execution, the loop and the transport, in that order. */
    public NodeRuntime start() {
        if (!started.compareAndSet(false, true)) throw new IllegalStateException(self + " already started");
        running = true;
        storage = storageOpener.open(event -> enqueue(new Storage(event)), this::restoreFromPeerSnapshot);
        try {
            restoreLatestSnapshot();
        } catch (IOException | RuntimeException e) {
            storage.close();
            transport.close();
            running = false;
            throw new TandemException("cannot restore the state machine of " + self + " from its latest snapshot: " + e.getMessage(), e);
        }
        execution.start();
        loop.start();
        transport.start(new TransportListener() {
            @Override
            public void onMessage(NodeId from, ProtocolMessage message) {
                enqueue(new Inbound(from, message));
            }
        });
        return this;
    }

    /** Submits a command; completes with its result once applied, or fails with a typed exception. */
    public CompletableFuture<byte[]> submit(byte[] command, ClientRequest.Session session) {
        Objects.requireNonNull(command, "command");
        return admit(false, p -> ClientRequest.command(p.requestId(), session, command));
    }

    /** Runs a read under {@code policy}. */
    public CompletableFuture<byte[]> query(byte[] query, ReadPolicy policy) {
        Objects.requireNonNull(query, "query");
        Objects.requireNonNull(policy, "policy");
        return admit(true, p -> ClientRequest.read(p.requestId(), query, policy));
    }

    private CompletableFuture<byte[]> admit(boolean read, java.util.function.Function<PendingRequests.Pending, ClientRequest> make) {
        if (!running) return CompletableFuture.failedFuture(stoppedException());
        PendingRequests.Pending p;
        try {
            p = pending.admit(System.nanoTime(), config.requestTimeout().toNanos(), read);
        } catch (OverloadedException e) {
            metrics.rejectedOverloaded.increment();
            return CompletableFuture.failedFuture(e);
        }
        enqueue(new Request(make.apply(p)));
        return p.future();
    }

    /**
     * What the engine knows now (role, leader, epoch, configuration, commit index, peers' lag), with
     * this node's applied index. Read on the loop thread; fails with {@link NodeStoppedException} if
     * the node is not running, or with {@link java.util.concurrent.TimeoutException} if the loop does
     * not answer within the request timeout.
     */
    public CompletableFuture<EngineStatus> status() {
        if (!running) return CompletableFuture.failedFuture(stoppedException());
        CompletableFuture<EngineStatus> answer = new CompletableFuture<>();
        enqueue(new StatusQuery(answer));
        return answer.orTimeout(config.requestTimeout().toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /**
     * Hands a membership or leadership request to the engine, as a pending request with the client
     * requests' timeout; completes (with an empty result) when the engine's change took effect, or
     * fails with a typed exception: {@link UnsupportedRequestException} if the engine does not support it.
     */
    public CompletableFuture<byte[]> admin(AdminRequest request) {
        Objects.requireNonNull(request, "request");
        if (!running) return CompletableFuture.failedFuture(stoppedException());
        PendingRequests.Pending p;
        try {
            p = pending.admit(System.nanoTime(), config.requestTimeout().toNanos(), false);
        } catch (OverloadedException e) {
            metrics.rejectedOverloaded.increment();
            return CompletableFuture.failedFuture(e);
        }
        enqueue(new Admin(p.requestId(), request));
        return p.future();
    }

    private void rejectUnsupportedAdmin(Admin a) {
        PendingRequests.Pending p = pending.take(a.requestId());
        if (p == null) return;
        metrics.rejectedUnavailable.increment();
        p.future().completeExceptionally(new UnsupportedRequestException(protocol.name() + " does not support " + a.request().operation()));
    }

    /** Shifts this node's engine clock (the clock-skew nemesis); affects timers armed afterwards. */
    public void setClockOffset(long offsetNanos) {
        clockOffsetNanos.set(offsetNanos);
    }

    public long appliedIndex() {
        return execution.appliedIndex();
    }

    /** Non-null once the engine or execution failed; the node then answers every request with an error. */
    public Throwable failure() {
        Throwable f = failure;
        return f != null ? f : execution.failure();
    }

    private long now() {
        return System.nanoTime() + clockOffsetNanos.get();
    }

    private void enqueue(LoopEvent e) {
        inbox.offer(e);
        if (parked) LockSupport.unpark(loop);
    }

    private void onAppliedProgress(long index) {
        if (lastReportedApplied.getAndSet(index) != index) enqueue(new Applied(index));
    }

    private void runLoop() {
        Context ctx = new Context();
        try {
            engine.start(ctx);
            while (running) {
                int handled = inbox.drain(this::dispatch, config.loopBatch());
                long now = now();
                for (TimerKey key : timers.due(now)) engine.onTimer(key);
                long wall = System.nanoTime();
                if (wall - lastExpiryScan >= EXPIRY_SCAN_INTERVAL_NANOS) {
                    lastExpiryScan = wall;
                    pending.expire(wall, this::expire);
                }
                if (handled == 0 && inbox.isEmpty()) idle();
            }
        } catch (Throwable e) {
            failure = e;
            metrics.engineFailures.increment();
            log.error("engine {} on {} failed; the node stops serving requests", protocol.name(), self, e);
            running = false;
            pending.failAll(new TandemException("node " + self + " stopped after an engine failure: " + e, e));
        } finally {
            try {
                engine.stop();
            } catch (RuntimeException e) {
                log.warn("engine stop on {} threw", self, e);
            }
        }
    }

    private void idle() {
        long wait = Math.min(timers.nanosUntilNext(now()), MAX_PARK_NANOS);
        if (wait <= 0) return;
        parked = true;
        try {
            if (inbox.isEmpty() && running) LockSupport.parkNanos(this, wait);
        } finally {
            parked = false;
        }
    }

    private void dispatch(LoopEvent e) {
        switch (e) {
            case Inbound m -> engine.onMessage(m.from(), m.message());
            case Request r -> {
                if (r.request().kind() == ClientRequest.Kind.READ) readQueries.put(r.request().requestId(), r.request().payload());
                engine.onClientRequest(r.request());
            }
            case Storage s -> {
                engine.onStorageEvent(s.event());
                if (s.event() instanceof StorageEvent.StorageFailed f) stopAfterStorageFailure(f);
            }
            case Applied a -> engine.onApplied(a.index());
            case TermQuery q -> q.answer().complete(termAt(q.index()));
            case StatusQuery q -> q.answer().complete(engine.status().withAppliedIndex(execution.appliedIndex()));
            case Admin a -> {
                if (!engine.onAdmin(a.requestId(), a.request())) rejectUnsupportedAdmin(a);
            }
        }
    }

    private long termAt(long index) {
        DurableLog l = storage.log();
        if (index >= l.firstIndex() && index <= l.lastIndex()) return l.entry(index).term();
        return storage.latestSnapshot().filter(s -> s.lastIncludedIndex() == index).map(SnapshotMeta::lastIncludedTerm).orElse(0L);
    }

    /** At start-up, before the engine runs: the state machine resumes from the newest local snapshot. */
    private void restoreLatestSnapshot() throws IOException {
        var latest = storage.latestSnapshot();
        if (latest.isEmpty()) return;
        try (InputStream in = storage.openSnapshot(latest.get())) {
            execution.restoreSnapshot(in);
        }
        log.info("{} restored its state machine from the snapshot at index {}", self, latest.get().lastIncludedIndex());
    }

    /**
     * Called by storage on its disk thread once a snapshot from a peer is durable: restore on the
     * execution thread; the stage completes when the state machine reflects the snapshot.
     */
    private CompletionStage<?> restoreFromPeerSnapshot(SnapshotMeta snapshot, InputStream data) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        execution.submit(new ExecutionStage.Exclusive(() -> {
            try (InputStream in = data) {
                execution.restoreSnapshot(in);
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }));
        return done;
    }

    /**
     * Snapshots the state machine on the execution thread, between two commands. The term of the
     * applied index comes from the loop, which owns the log; the execution thread waits for it
     * (the loop never waits for execution).
     */
    private void captureSnapshot(long token) {
        execution.submit(new ExecutionStage.Exclusive(() -> {
            long index = execution.appliedIndex();
            try {
                CompletableFuture<Long> term = new CompletableFuture<>();
                enqueue(new TermQuery(index, term));
                storage.storeSnapshot(index, term.get(), new byte[0], execution::writeSnapshot, token);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | RuntimeException e) {
                enqueue(new Storage(new StorageEvent.SnapshotFailed(null, "the state machine could not be snapshotted at " + index + ": " + e, token)));
            }
        }));
    }

    /**
     * Storage failed (full disk, I/O error): nothing more can become durable, so the node stops
     * answering rather than acknowledge what it cannot keep. A restart recovers from what is on disk.
     */
    private void stopAfterStorageFailure(StorageEvent.StorageFailed f) {
        String reason = "storage failed during " + f.operation() + ": " + f.reason();
        log.error("{} stops: {}", self, reason);
        failure = new TandemException(reason);
        running = false;
        pending.failAll(new NodeStoppedException(self + " stopped: " + reason));
    }

    private void expire(PendingRequests.Pending p) {
        if (p.read()) readQueries.remove(p.requestId());
        metrics.timedOut.increment();
        p.future().completeExceptionally(new RequestTimeoutException("no answer from " + self + " within " + config.requestTimeout()));
    }

    private TandemException stoppedException() {
        Throwable f = failure();
        return f == null ? new NodeStoppedException(self + " is not running") : new NodeStoppedException(self + " stopped after a failure: " + f);
    }

    /** Stops the transport, the loop, execution and storage; pending requests fail with {@link NodeStoppedException}. */
    @Override
    public void close() {
        if (!started.get()) {
            transport.close();
            return;
        }
        running = false;
        LockSupport.unpark(loop);
        transport.close();
        try {
            loop.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        execution.close();
        storage.close();
        pending.failAll(new NodeStoppedException(self + " was closed"));
    }

    /** The EngineContext of the real runtime; every method runs on the loop thread. */
    private final class Context implements EngineContext {
        @Override
        public NodeId self() {
            return self;
        }

        @Override
        public List<NodeId> members() {
            return members;
        }

        @Override
        public long nowNanos() {
            return now();
        }

        @Override
        public RandomGenerator random() {
            return random;
        }

        @Override
        public void send(NodeId to, ProtocolMessage message) {
            if (!transport.send(to, message)) metrics.sendsDropped.increment();
        }

        @Override
        public TimerKey schedule(long delayNanos, TimerKey key) {
            timers.schedule(key, now() + Math.max(0, delayNanos));
            return key;
        }

        @Override
        public void cancel(TimerKey key) {
            timers.cancel(key);
        }

        @Override
        public DurableLog log() {
            return storage.log();
        }

        @Override
        public MetaStore meta() {
            return storage.meta();
        }

        @Override
        public SnapshotStore snapshots() {
            return storage.snapshots();
        }

        @Override
        public void deliver(Committed entry) {
            execution.submit(new ExecutionStage.Apply(entry));
        }

        @Override
        public void serveRead(long requestId, long afterIndex) {
            // The query bytes stay with the request; the loop forwards them with the read task.
            byte[] query = readQueries.remove(requestId);
            if (query == null) return; // already answered, rejected or timed out
            execution.submit(new ExecutionStage.Read(requestId, afterIndex, query));
        }

        @Override
        public void reject(long requestId, Rejection reason) {
            readQueries.remove(requestId);
            PendingRequests.Pending p = pending.take(requestId);
            if (p == null) return;
            p.future().completeExceptionally(switch (reason) {
                case Rejection.NotLeader n -> {
                    metrics.rejectedNotLeader.increment();
                    yield new NotLeaderException(self, n.leaderHint());
                }
                case Rejection.Overloaded o -> {
                    metrics.rejectedOverloaded.increment();
                    yield new OverloadedException(o.reason());
                }
                case Rejection.Unavailable u -> {
                    metrics.rejectedUnavailable.increment();
                    yield new UnavailableException(u.reason());
                }
            });
        }

        @Override
        public void takeSnapshot(long token) {
            captureSnapshot(token);
        }

        @Override
        public Meters meters() {
            return meters;
        }
    }
}
