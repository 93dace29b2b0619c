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
import io.tandem.engine.GroupView;
import io.tandem.engine.PushCompletion;
import io.tandem.engine.Regions;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.ReadPolicy;
import io.tandem.engine.Rejection;
import io.tandem.engine.SnapshotTag;
import io.tandem.engine.TimerKey;
import io.tandem.execution.ExecutionListener;
import io.tandem.execution.Multicast;
import io.tandem.metrics.MicrometerMeters;
import io.tandem.statemachine.StateMachine;
import io.tandem.storage.DurableLog;
import io.tandem.storage.NodeStorage;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.SnapshotRestorer;
import io.tandem.storage.MetaStore;
import io.tandem.storage.SnapshotStore;
import io.tandem.storage.StorageEvent;
import io.tandem.transport.Endpoint;
import io.tandem.transport.Transport;
import io.tandem.transport.TransportListener;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.List;
import java.util.Map;
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
 * thread; timers are kept on the loop; committed commands are applied by the node's
 * {@link io.tandem.execution.Executor} on a separate execution thread. Nothing the engine does blocks
 * the loop.
 *
 * <p>Requests and replies (DESIGN §2.1): a request submitted here with forwarding on (the default of
 * {@link #submit(byte[], ClientRequest.Session)} and {@link #query}) that the engine redirects is
 * forwarded by the runtime to a member that can order it ({@link RuntimeMessage.Forward}); that member
 * serves it under a local id and sends the outcome back ({@link RuntimeMessage.Answer},
 * {@link RuntimeMessage.Refusal}); the caller's future, which stays here, completes with it. A command
 * with a session also completes the first time that command executes here, whichever copy of it was
 * ordered. Engines never see forwarding: a forwarded request looks to them like a local one.
 */
public final class NodeRuntime implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeRuntime.class);
    private static final long MAX_PARK_NANOS = 10_000_000L;
    /** The longest a session lookup queued quietly waits for execution to wake for something else. */
    private static final long LOOKUP_WAKE_NANOS = 1_000_000L;
    /** Timeouts are checked this often, not on every loop turn: the scan is linear in pending requests. */
    private static final long EXPIRY_SCAN_INTERVAL_NANOS = 5_000_000L;
    /**
     * A forwarded request follows this many redirects in a row at once; then it waits {@link #RETRY_NANOS}
     * before the next, so that members with stale leader hints (an election) cannot bounce it around
     * in a tight loop. Its deadline bounds the whole.
     */
    private static final int FORWARDS_WITHOUT_PAUSE = 3;
    /** While no member can order a request (an election), it is offered again this often, until its deadline. */
    private static final long RETRY_NANOS = 20_000_000L;

    /** Events consumed by the loop. */
    private sealed interface LoopEvent {}

    private record Inbound(NodeId from, ProtocolMessage message) implements LoopEvent {}

    private record Request(ClientRequest request) implements LoopEvent {}

    /** Requests admitted together ({@link SubmitBatch}): one inbox entry and one wake-up for the lot. */
    private record Requests(List<ClientRequest> requests) implements LoopEvent {}

    private record Storage(StorageEvent event) implements LoopEvent {}

    /** Execution applied an entry the engine delivered with {@code deliverReportingResult}: its result. */
    private record Executed(Committed entry, byte[] result) implements LoopEvent {}

    /** Execution asks the engine, on the loop, what to store with a snapshot at {@code index}. */
    private record TagQuery(long index, CompletableFuture<SnapshotTag> answer) implements LoopEvent {}

    /** A request another member forwarded here completed; the loop sends the outcome back. */
    private record AnswerMember(PendingRequests.Pending request, byte[] result, Throwable error) implements LoopEvent {}

    /** A caller asks what the engine knows; answered on the loop, which owns the engine's state. */
    private record StatusQuery(CompletableFuture<EngineStatus> answer) implements LoopEvent {}

    /** An operator's membership or leadership request, admitted as pending request {@code requestId}. */
    private record Admin(long requestId, AdminRequest request) implements LoopEvent {}

    /** A caller waits until the group has a leader (or a view) that this member knows of. */
    private record AwaitReady(CompletableFuture<EngineStatus> answer, long deadlineNanos) implements LoopEvent {}

    /** A member's push landed in a region the engine registered with {@link Regions.Notice#EVENT}. */
    private record RegionWrite(NodeId writer, String region, int offset, int length) implements LoopEvent {}

    private final NodeId self;
    private final List<NodeId> members;
    /** Where members listen, for connecting the transport to members that join a view. */
    private final Map<NodeId, Endpoint> addresses;
    private final TransportRegions regions;
    /** Called on the execution thread with every installed view, in order (channel receivers). */
    private final List<Consumer<GroupView>> viewListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The view installed last (loop thread only); {@link #publishedView} is its copy for other threads. */
    private GroupView view;
    private volatile GroupView publishedView;
    /** Completes when the loop ends (closed, or failed): waiters for a view give up then. */
    private final CompletableFuture<Void> loopEnded = new CompletableFuture<>();
    /** Whether the engine asked to be polled, and how many loop turns in a row found nothing to do (loop thread only). */
    private boolean polling;
    private long idleTurns;
    private final Protocol protocol;
    private final Transport transport;
    private final StorageOpener storageOpener;
    private NodeStorage storage;
    private final RuntimeConfig config;
    private final Engine engine;
    private final MicrometerMeters meters;
    private final RuntimeMetrics metrics;
    private final PendingRequests pending;
    private final ExecutionThread execution;
    /** The executor's listener (execution thread). */
    private final Completions completions;
    private final Timers timers = new Timers();
    /** Forwardable requests waiting for a member that can order them (loop thread only), in retry order. */
    private final ArrayDeque<PendingRequests.Pending> retries = new ArrayDeque<>();
    /**
     * Commands with a session that reached the engine during this loop turn (loop thread only): at the
     * end of the turn they go to execution, which answers each whose command already ran here.
     */
    private final List<ClientRequest> sessionLookups = new java.util.ArrayList<>();
    /** Callers of {@link #awaitReady} (loop thread only). */
    private final List<AwaitReady> readyWaiters = new java.util.ArrayList<>();
    private final MpscUnboundedXaddArrayQueue<LoopEvent> inbox = new MpscUnboundedXaddArrayQueue<>(1024);
    private final AtomicLong clockOffsetNanos = new AtomicLong();
    /**
     * The execution thread's applied index as it last reported it (once per executed batch), for the engine's
     * {@code onApplied}. Read by the loop at the start of every turn instead of being posted to its inbox: a post
     * woke a parked loop once per batch on every replica only to tell the engine about snapshots (issue 25, one
     * hand-off per batch fewer). A parked loop learns of it within its longest park ({@value #MAX_PARK_NANOS} ns).
     */
    private volatile long appliedForLoop;
    /** Run on the execution thread after each executed batch ({@link #afterExecutedBatch}), or null. */
    private volatile Runnable afterBatch;
    /** The index last given to the engine's {@code onApplied} (loop thread only). */
    private long appliedDelivered;
    /** When execution must be woken for work queued quietly (session lookups, entries nobody here waits for; loop thread only). */
    private final ExecutionWake executionWake;
    /** Entries the engine delivered in the current loop turn (loop thread only); see {@link #handOffDelivered}. */
    private ArrayList<Committed> delivered = new ArrayList<>();
    /** Indexes whose results the engine asked for (written on the loop, read on the execution thread). */
    private final java.util.Set<Long> reportResults = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final AtomicBoolean started = new AtomicBoolean();
    private final Thread loop;
    private final RandomGenerator random = new SplittableRandom();
    private long lastExpiryScan;
    private volatile boolean running;
    private volatile boolean parked;
    /** Set by {@link #wake}; cleared by the loop before it polls, checked before it parks. */
    private volatile boolean woken;
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
        this(self, unaddressed(members), protocol, transport, storage, stateMachine, registry, config);
    }

    /**
     * @param members the initial members, in a stable order, and where each listens: the runtime
     *                connects the transport to a member that joins a later view at this address
     */
    public NodeRuntime(NodeId self, Map<NodeId, Endpoint> members, Protocol protocol, Transport transport, StorageOpener storage,
                       StateMachine stateMachine, MeterRegistry registry, RuntimeConfig config) {
        this.self = Objects.requireNonNull(self);
        this.members = List.copyOf(members.keySet());
        this.addresses = new java.util.concurrent.ConcurrentHashMap<>(members);
        this.regions = new TransportRegions(self, transport.regions());
        if (!this.members.contains(self)) throw new IllegalArgumentException(self + " is not among the members " + members);
        this.protocol = protocol;
        this.transport = transport;
        this.storageOpener = storage;
        this.config = config;
        this.meters = new MicrometerMeters(registry, self, protocol.name(), this::now);
        this.metrics = new RuntimeMetrics(registry, meters.commonTags());
        this.pending = new PendingRequests(config.maxPendingRequests());
        this.executionWake = new ExecutionWake(config.quietApply().toNanos(), System::nanoTime);
        this.completions = new Completions();
        var executor = config.executors().create(stateMachine, completions, config.executorLimits());
        this.execution = new ExecutionThread(self.value(), executor, this::onAppliedProgress, this::onExecutionFailure);
        this.engine = protocol.createEngine(self, this.members);
        this.loop = Thread.ofPlatform().name("tandem-loop-" + self).daemon(true).unstarted(this::runLoop);
        Gauge.builder("tandem.runtime.pending", pending, PendingRequests::size).tags(meters.commonTags()).register(registry);
    }

    private static Map<NodeId, Endpoint> unaddressed(List<NodeId> members) {
        Map<NodeId, Endpoint> m = new java.util.LinkedHashMap<>();
        for (NodeId n : members) m.put(n, Endpoint.UNADDRESSED);
        return m;
    }

    public NodeId self() {
        return self;
    }

    /**
     * Calls {@code listener} with every view the engine installs, in order, on the execution thread:
     * after every entry delivered before the view and before any delivered after it (so a channel
     * receiver sees views and messages in one order). Register before {@link #start} to see the first.
     */
    public void addViewListener(Consumer<GroupView> listener) {
        viewListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** Completes when the node's loop has ended: it was closed, or its engine failed ({@link #failure()}). */
    public CompletableFuture<Void> loopEnded() {
        return loopEnded;
    }

    /** The view the engine installed last (view 1 of the initial members before it starts). */
    public GroupView view() {
        GroupView v = publishedView;
        return v != null ? v : new GroupView(1, members);
    }

    /**
     * Tells the runtime where {@code member} listens, for when a view adds it (a member that was not
     * among the initial ones). In-JVM transports need no address.
     */
    public void learnAddress(NodeId member, Endpoint endpoint) {
        addresses.put(Objects.requireNonNull(member, "member"), Objects.requireNonNull(endpoint, "endpoint"));
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
        // The loop hands each turn's log and meta work to the disk at once (endTurn below): one disk wake-up per
        // turn, and with NO_FSYNC no thread hop at all (issue 25). Set before the loop thread starts, which uses the views.
        storage.handOffPerTurn();
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

            @Override
            public void onRegionWrite(NodeId writer, String region, int offset, int length) {
                // The bytes are in memory already: a polling engine sees them on its next poll; wake it.
                if (regions.noticeOf(region) == Regions.Notice.EVENT) enqueue(new RegionWrite(writer, region, offset, length));
                else wake();
            }

            @Override
            public void onPushCompleted(long pushId, String region, NodeId target, boolean applied) {
                regions.completed(new PushCompletion(pushId, region, target, applied));
                wake();
            }
        });
        return this;
    }

    /**
     * Submits a command; completes with its result once applied, or fails with a typed exception. If
     * this member cannot order it, it is forwarded to one that can and the result comes back here
     * (unless {@link RuntimeConfig#forwardRequests()} is off).
     */
    public CompletableFuture<byte[]> submit(byte[] command, ClientRequest.Session session) {
        return submit(command, session, config.forwardRequests());
    }

    /**
     * Submits a command; with {@code forward} false, a member that cannot order it fails it with
     * {@link NotLeaderException} naming who can (for servers whose own clients route themselves).
     */
    public CompletableFuture<byte[]> submit(byte[] command, ClientRequest.Session session, boolean forward) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(session, "session");
        return admit(new PendingRequests.Spec(ClientRequest.Kind.COMMAND, session, command, null), forward);
    }

    /**
     * A batch of commands for one submitting thread (a client endpoint's I/O thread): each
     * {@link SubmitBatch#submit} admits its command at once (same limits, timeouts and futures as
     * {@link #submit(byte[], ClientRequest.Session)}), and {@link SubmitBatch#flush} hands all admitted
     * since the last flush to the loop as one inbox entry, with one wake-up (issue 25: fewer hand-offs
     * per put). The engine still gets them one by one, in submission order, as if submitted singly:
     * nothing an engine sees changes, so the simulator, which submits singly, runs the same code.
     * Not thread-safe: one per submitting thread, flushed by it.
     */
    public SubmitBatch newSubmitBatch() {
        return new SubmitBatch();
    }

    /**
     * Runs {@code hook} on the execution thread after each executed batch, once the batch's requests were answered
     * (their {@link RequestAnswer}s called): a server that holds the answers one batch completes writes them there in
     * one go per connection (reply21). It must not block; a hook that throws is logged, never stops execution.
     */
    public void afterExecutedBatch(Runnable hook) {
        this.afterBatch = hook;
    }

    /** See {@link #newSubmitBatch()}. */
    public final class SubmitBatch {
        private final java.util.ArrayList<ClientRequest> requests = new java.util.ArrayList<>();

        private SubmitBatch() {}

        /** Admits {@code command} like {@link #submit(byte[], ClientRequest.Session)}; the loop sees it at the next {@link #flush}. */
        public CompletableFuture<byte[]> submit(byte[] command, ClientRequest.Session session) {
            Objects.requireNonNull(command, "command");
            Objects.requireNonNull(session, "session");
            if (!running) return CompletableFuture.failedFuture(stoppedException());
            PendingRequests.Pending p;
            try {
                p = pending.admit(System.nanoTime(), config.requestTimeout().toNanos(),
                        new PendingRequests.Spec(ClientRequest.Kind.COMMAND, session, command, null), config.forwardRequests());
            } catch (OverloadedException e) {
                metrics.rejectedOverloaded.increment();
                return CompletableFuture.failedFuture(e);
            }
            requests.add(p.request());
            return p.future();
        }

        /**
         * Admits {@code command} like {@link #submit(byte[], ClientRequest.Session)}, answered through {@code answer}
         * instead of a future (issue 25: no future stages per put; an executed command's result is handed over not
         * encoded). A command refused at once (the node stopped, too many pending) fails {@code answer} before this
         * returns, on this thread.
         */
        public void submit(byte[] command, ClientRequest.Session session, RequestAnswer answer) {
            Objects.requireNonNull(command, "command");
            Objects.requireNonNull(session, "session");
            Objects.requireNonNull(answer, "answer");
            if (!running) {
                answer.failed(stoppedException());
                return;
            }
            PendingRequests.Pending p;
            try {
                p = pending.admit(System.nanoTime(), config.requestTimeout().toNanos(),
                        new PendingRequests.Spec(ClientRequest.Kind.COMMAND, session, command, null), config.forwardRequests(), answer);
            } catch (OverloadedException e) {
                metrics.rejectedOverloaded.increment();
                answer.failed(e);
                return;
            }
            requests.add(p.request());
        }

        /** Hands the commands admitted since the last flush to the loop at once; nothing if none. */
        public void flush() {
            if (requests.isEmpty()) return;
            enqueue(requests.size() == 1 ? new Request(requests.getFirst()) : new Requests(List.copyOf(requests)));
            requests.clear();
        }

        /** Commands admitted and not yet flushed. */
        public int size() {
            return requests.size();
        }
    }

    /** Runs a read under {@code policy}, forwarded to a member that can serve it if this one cannot. */
    public CompletableFuture<byte[]> query(byte[] query, ReadPolicy policy) {
        return query(query, policy, config.forwardRequests());
    }

    /** Runs a read under {@code policy}; see {@link #submit(byte[], ClientRequest.Session, boolean)} for {@code forward}. */
    public CompletableFuture<byte[]> query(byte[] query, ReadPolicy policy, boolean forward) {
        Objects.requireNonNull(query, "query");
        Objects.requireNonNull(policy, "policy");
        return admit(new PendingRequests.Spec(ClientRequest.Kind.READ, ClientRequest.Session.NONE, query, policy), forward);
    }

    private CompletableFuture<byte[]> admit(PendingRequests.Spec spec, boolean forward) {
        if (!running) return CompletableFuture.failedFuture(stoppedException());
        PendingRequests.Pending p;
        try {
            p = pending.admit(System.nanoTime(), config.requestTimeout().toNanos(), spec, forward);
        } catch (OverloadedException e) {
            metrics.rejectedOverloaded.increment();
            return CompletableFuture.failedFuture(e);
        }
        enqueue(new Request(p.request()));
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
            // Not forwarded: an operator's change goes to the member it names, and a redirect says where the leader is.
            p = pending.admit(System.nanoTime(), config.requestTimeout().toNanos(),
                    new PendingRequests.Spec(ClientRequest.Kind.COMMAND, ClientRequest.Session.NONE, new byte[0], null), false);
        } catch (OverloadedException e) {
            metrics.rejectedOverloaded.increment();
            return CompletableFuture.failedFuture(e);
        }
        enqueue(new Admin(p.requestId(), request));
        return p.future();
    }

    /**
     * Completes once the group is ready to order requests as far as this member can tell: its
     * engine names a leader (or leads itself), so a request submitted here will not wait for an
     * election. Checked on the loop every few milliseconds while someone waits; fails with
     * {@link RequestTimeoutException} after {@code timeout}, or {@link NodeStoppedException}.
     */
    public CompletableFuture<EngineStatus> awaitReady(java.time.Duration timeout) {
        if (!running) return CompletableFuture.failedFuture(stoppedException());
        CompletableFuture<EngineStatus> ready = new CompletableFuture<>();
        enqueue(new AwaitReady(ready, System.nanoTime() + timeout.toNanos()));
        return ready;
    }

    private void checkReady(long wall) {
        if (readyWaiters.isEmpty()) return;
        EngineStatus status = engine.status();
        boolean ready = status.isLeader() || status.leader() != null;
        for (var it = readyWaiters.iterator(); it.hasNext(); ) {
            AwaitReady w = it.next();
            if (ready) w.answer().complete(status.withAppliedIndex(execution.appliedIndex()));
            else if (wall - w.deadlineNanos() >= 0) w.answer().completeExceptionally(new RequestTimeoutException(self + " saw no leader within the wait; last status " + status));
            else continue;
            it.remove();
        }
    }

    private void rejectUnsupportedAdmin(Admin a) {
        PendingRequests.Pending p = pending.take(a.requestId());
        if (p == null) return;
        metrics.rejectedUnavailable.increment();
        p.fail(new UnsupportedRequestException(protocol.name() + " does not support " + a.request().operation()));
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
        wake();
    }

    /**
     * Something arrived for the loop: unpark it, or, if it is about to park, keep it from parking
     * (a region write lands in memory without an inbox event, so the inbox check alone would miss it).
     */
    private void wake() {
        woken = true;
        if (parked) LockSupport.unpark(loop);
    }

    private void onExecutionFailure() {
        Throwable cause = execution.failure();
        pending.failAll(new TandemException("execution failed on " + self + ": " + cause, cause));
    }

    /**
     * Hands the entries delivered so far in this loop turn to the execution thread as one task (loop
     * thread only). Every other task the loop gives execution goes through {@link #toExecution}, which
     * hands these over first, so execution sees entries and tasks in the order the engine produced them.
     */
    private void handOffDelivered() {
        if (delivered.isEmpty()) return;
        List<Committed> batch = delivered;
        // The next turn's list starts at this turn's size: an engine delivering hundreds of entries per turn
        // (an SMC ring of 256 slots per sender) otherwise regrew a 10-entry list eight times per turn, which
        // was 10-17 % of the loop's samples in the vsync benchmark (vsync13). Only capacity; same entries. Capped so
        // that one huge turn (a catch-up) does not make every later turn allocate a huge array.
        delivered = new ArrayList<>(Math.clamp(batch.size(), 16, 4096));
        ExecutionThread.ApplyAll task = new ExecutionThread.ApplyAll(batch);
        // Quietly when nobody here waits for their results (raft27, ExecutionWake): a follower's execution then
        // wakes once per four hand-offs (or within the quiet delay) instead of once per AppendEntries.
        if (executionWake.entriesWakeNow(pending.size() > 0 || !reportResults.isEmpty())) {
            execution.submit(task);
            executionWake.woken(); // it drains the work queued quietly before too
        } else {
            execution.submitQuietly(task);
        }
    }

    /** Gives execution a task from the loop thread, after the entries delivered before it. */
    private void toExecution(ExecutionThread.Task task) {
        handOffDelivered();
        execution.submit(task);
        executionWake.woken();
    }

    /** Wakes execution for work queued quietly once it is due ({@link ExecutionWake}; loop thread). */
    private void wakeExecutionIfDue(long wall) {
        if (executionWake.dueAt(wall)) {
            executionWake.woken();
            execution.wake();
        }
    }

    private void onAppliedProgress(long index) {
        completions.publishMeters(); // the execution thread, once per batch
        appliedForLoop = index;
        Runnable hook = afterBatch;
        if (hook != null) {
            try {
                hook.run();
            } catch (RuntimeException e) {
                log.warn("{}: the after-batch hook threw", self, e);
            }
        }
    }

    /** Tells the engine of execution's progress since the last turn (loop thread). */
    private void deliverApplied() {
        long applied = appliedForLoop;
        if (applied != appliedDelivered) {
            appliedDelivered = applied;
            engine.onApplied(applied);
        }
    }

    private void runLoop() {
        Context ctx = new Context();
        try {
            engine.start(ctx);
            if (view == null) installView(new GroupView(1, members)); // an engine that does not manage views
            // The loop body is a method of its own (follow24): a method that never returns is compiled only by on-stack
            // replacement, which the JIT reached late or never in a benchmark's 30-40 s (a follower's runLoop ran
            // interpreted through a whole trial, ~12 % of its loop samples in the interpreter); a method called once per
            // turn is compiled after a few thousand turns like any other.
            while (running) turn();
        } catch (Throwable e) {
            failure = e;
            metrics.engineFailures.increment();
            log.error("engine {} on {} failed; the node stops serving requests", protocol.name(), self, e);
            running = false;
            pending.failAll(new TandemException("node " + self + " stopped after an engine failure: " + e, e));
        } finally {
            transport.flushBatch(); // an engine that threw mid-turn: what it queued still goes
            loopEnded.complete(null);
            for (AwaitReady w : readyWaiters) w.answer().completeExceptionally(stoppedException());
            readyWaiters.clear();
            try {
                engine.stop();
            } catch (RuntimeException e) {
                log.warn("engine stop on {} threw", self, e);
            }
        }
    }

    /** One turn of the loop (loop thread only): the inbox, the timers, the engine's pass, the hand-offs, at most one park. */
    private void turn() {
        // A polling engine sends many frames per pass (SST pushes to every member, RDMC blocks, asks): held in
        // one batch, each peer's frames of the pass go in one write and its I/O thread is woken once, not once
        // per frame (issue 23, rdmc13). Each inbox event is a batch of its own (its sends must not wait behind
        // the turn's other events: a relay's 1 MiB block copy there delayed its asks and forwards), and the
        // timers and the pass one more, flushed before the loop can wait, so nothing queued waits on a park.
        // (A local: the engine may stop polling mid-turn, and an open batch must still be flushed.)
        boolean batching = polling;
        if (batching) transport.startBatch();
        int handled = inbox.drain(batching ? this::dispatchInBatch : this::dispatch, config.loopBatch());
        deliverApplied();
        lookUpSessions();
        // One clock read for both the engine's clock and the wall clock (a read costs 65-100 ns on this VM, raft19):
        // retries and expiry below see the turn's start rather than a read after the timers ran, at most that much earlier.
        long wall = System.nanoTime();
        long now = wall + clockOffsetNanos.get();
        // Indexed, not for-each: the list is empty on almost every turn, and an iterator per turn was a
        // loop allocation of its own (a polling engine's loop turns over hundreds of thousands of times a second).
        List<TimerKey> due = timers.due(now);
        for (int i = 0; i < due.size(); i++) engine.onTimer(due.get(i));
        retryDue(wall);
        if (wall - lastExpiryScan >= EXPIRY_SCAN_INTERVAL_NANOS) {
            lastExpiryScan = wall;
            pending.expire(wall, this::expire);
            checkReady(wall);
        }
        woken = false; // a wake from here on stops the next park
        int work = polling ? engine.doWork() : 0;
        // Completions it posts land in the inbox (no wake-up needed: this is the loop), so the turn
        // after this one sees them rather than a park.
        storage.endTurn();
        handOffDelivered();
        if (executionWake.waiting()) wakeExecutionIfDue(System.nanoTime()); // the clock only when a wake is pending
        if (batching) transport.flushBatch();
        if (handled == 0 && work == 0 && inbox.isEmpty()) idle();
        else idleTurns = 0;
    }

    private void idle() {
        long parkCap = MAX_PARK_NANOS;
        if (polling) {
            // derecho.md §8.8: spin, then yield, then park ever longer; any event wakes the loop. A spinning or
            // yielding turn returns before the timers are asked: only a park needs the next deadline (the timer
            // queue's lookup was 14 % of a 3-member 1 KiB benchmark's loop samples, paid on every idle turn).
            // Returning early skips nothing else: the loop runs its due timers itself on every turn.
            IdleStrategy strategy = config.idleStrategy();
            if (strategy.spinOrYield(idleTurns++)) return;
            parkCap = strategy.parkNanos(idleTurns - 1);
        }
        long wait = Math.min(timers.nanosUntilNext(now()), Math.min(MAX_PARK_NANOS, parkCap));
        if (executionWake.waiting()) wait = executionWake.parkNanos(wait, System.nanoTime());
        if (wait <= 0) return;
        parked = true;
        try {
            if (inbox.isEmpty() && running && !woken) LockSupport.parkNanos(this, wait);
        } finally {
            parked = false;
        }
    }

    /** {@link #dispatch} with the event's sends flushed right after it (the loop's batch is open around it). */
    private void dispatchInBatch(LoopEvent e) {
        dispatch(e);
        transport.flushBatch();
        transport.startBatch();
    }

    private void dispatch(LoopEvent e) {
        switch (e) {
            case Inbound m when m.message() instanceof RuntimeMessage r -> onRuntimeMessage(m.from(), r);
            case Inbound m -> engine.onMessage(m.from(), m.message());
            case Request r -> {
                engine.onClientRequest(r.request());
                noteSessionLookup(r.request());
            }
            case Requests rs -> {
                for (ClientRequest r : rs.requests()) {
                    engine.onClientRequest(r);
                    noteSessionLookup(r);
                }
            }
            case Storage s -> {
                engine.onStorageEvent(s.event());
                if (s.event() instanceof StorageEvent.StorageFailed f) stopAfterStorageFailure(f);
            }
            case Executed x -> engine.onExecuted(x.entry(), x.result());
            case TagQuery q -> q.answer().complete(engine.snapshotTag(q.index()));
            case AnswerMember a -> answerMember(a.request(), a.result(), a.error());
            case StatusQuery q -> q.answer().complete(engine.status().withAppliedIndex(execution.appliedIndex()));
            case Admin a -> {
                if (!engine.onAdmin(a.requestId(), a.request())) rejectUnsupportedAdmin(a);
            }
            case AwaitReady w -> {
                readyWaiters.add(w);
                checkReady(System.nanoTime());
            }
            case RegionWrite w -> engine.onRegionWrite(w.writer(), w.region(), w.offset(), w.length());
        }
    }

    /**
     * Installs a view the engine decided (loop thread): receivers get it on the execution thread
     * after every entry delivered before it; the transport connects to members that joined (at the
     * address known for them) and disconnects from members that left the previous view.
     */
    private void installView(GroupView next) {
        if (view != null && next.id() <= view.id()) return; // announced again, or out of date
        GroupView previous = view;
        view = next;
        publishedView = next;
        for (NodeId m : next.members()) {
            if (m.equals(self) || transport.peers().contains(m)) continue;
            try {
                transport.addMember(m, addresses.getOrDefault(m, Endpoint.UNADDRESSED));
            } catch (IllegalArgumentException e) {
                log.warn("{} cannot connect to {}, which joined {}: {} (tell the node its address)", self, m, next, e.getMessage());
            }
        }
        if (previous != null) {
            for (NodeId m : previous.members()) if (!m.equals(self) && !next.contains(m)) transport.removeMember(m);
        }
        if (!viewListeners.isEmpty()) toExecution(new ExecutionThread.Exclusive(() -> viewListeners.forEach(l -> l.accept(next))));
    }

    // ---- forwarding (DESIGN §2.1: requests submitted on any member) ----

    private void onRuntimeMessage(NodeId from, RuntimeMessage message) {
        switch (message) {
            case RuntimeMessage.Forward f -> onForward(from, f);
            case RuntimeMessage.Answer a -> onAnswer(from, a);
            case RuntimeMessage.Refusal r -> onRefusal(from, r);
        }
    }

    /** Member {@code from} asks this one to order or read a request of its: serve it under a local id. */
    private void onForward(NodeId from, RuntimeMessage.Forward f) {
        PendingRequests.Pending p;
        try {
            p = pending.admitFor(from, f.requestId(), System.nanoTime(), config.requestTimeout().toNanos(),
                    new PendingRequests.Spec(f.kind(), f.session(), f.payload(), f.readPolicy()));
        } catch (OverloadedException e) {
            metrics.rejectedOverloaded.increment();
            transport.send(from, new RuntimeMessage.Refusal(f.requestId(), RuntimeMessage.Reason.OVERLOADED, e.getMessage(), List.of()));
            return;
        }
        metrics.forwardsServed.increment();
        // Completed on any thread (execution, loop, shutdown); the loop alone sends, in order.
        p.future().whenComplete((result, error) -> enqueue(new AnswerMember(p, result, error)));
        engine.onClientRequest(p.request());
        noteSessionLookup(p.request());
    }

    // ---- answers from the session table ----

    /**
     * A command whose (client, sequence) already executed at this node when its request arrived is
     * answered from the session table, whatever the engine does with it: a client's retry after its
     * answer was lost, or a copy of a command that a several-leader engine (Copilot) ordered through
     * another member first. Such an engine does not hand its own copy to execution (a command runs at
     * its first position only), so without this the request would wait for its timeout. Engines that
     * order the retry again still answer it the same way, later.
     *
     * <p>Not racing execution: the request is registered (by id, and by session) before the loop sees
     * it, and the lookup runs on the execution thread after the batch it is queued behind. A command
     * that executed before the lookup is found in the table; one that executes after it completes the
     * registered request as every executed command does. Only an exact cached result answers (never
     * a sequence below the session's floor), and the lookup changes nothing in the table, which every
     * replica keeps alike.
     */
    private void noteSessionLookup(ClientRequest r) {
        if (r.kind() == ClientRequest.Kind.COMMAND && !r.session().isNone()) sessionLookups.add(r);
    }

    /** One lookup task per loop turn, not per request, queued without waking execution (below). */
    private void lookUpSessions() {
        if (sessionLookups.isEmpty()) return;
        handOffDelivered();
        // Quietly (issue 25): nearly every lookup finds nothing (the command is new), and the entries that answer
        // it wake execution anyway within a round trip; waking it now cost one more hand-off per client batch on
        // the leader. A retry of a command that already ran waits at most LOOKUP_WAKE_NANOS more for its answer.
        execution.submitQuietly(new ExecutionThread.Lookup(List.copyOf(sessionLookups), this::stillPending, this::answerFromSessions));
        executionWake.queuedQuietly(LOOKUP_WAKE_NANOS);
        sessionLookups.clear();
    }

    /** On the execution thread: whether {@code r} still waits for an answer (a lookup of one that does not is skipped). */
    private boolean stillPending(ClientRequest r) {
        return pending.get(r.requestId()) != null;
    }

    /** On the execution thread: the command of {@code r} had executed here; answer with its cached result. */
    private void answerFromSessions(ClientRequest r, byte[] result) {
        PendingRequests.Pending p = pending.take(r.requestId());
        if (p == null) return; // answered meanwhile (its execution here, a remote answer), or timed out
        metrics.answeredFromSessions.increment();
        metrics.recordLatency(p);
        p.complete(result);
    }

    private void answerMember(PendingRequests.Pending p, byte[] result, Throwable error) {
        RuntimeMessage reply;
        if (error == null) {
            reply = new RuntimeMessage.Answer(p.replyToId(), result);
        } else {
            Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null ? error.getCause() : error;
            RuntimeMessage.Reason reason = switch (cause) {
                case NotLeaderException n -> RuntimeMessage.Reason.REDIRECT;
                case OverloadedException o -> RuntimeMessage.Reason.OVERLOADED;
                case UnavailableException u -> RuntimeMessage.Reason.UNAVAILABLE;
                case RequestTimeoutException t -> RuntimeMessage.Reason.TIMEOUT;
                case NodeStoppedException s -> RuntimeMessage.Reason.STOPPED;
                default -> RuntimeMessage.Reason.FAILED;
            };
            List<NodeId> targets = cause instanceof NotLeaderException n ? n.redirectTargets() : List.of();
            reply = new RuntimeMessage.Refusal(p.replyToId(), reason, String.valueOf(cause.getMessage()), targets);
        }
        if (!transport.send(p.replyTo(), reply)) metrics.sendsDropped.increment();
    }

    /** The member this node forwarded a request to answered it. */
    private void onAnswer(NodeId from, RuntimeMessage.Answer a) {
        PendingRequests.Pending p = pending.get(a.requestId());
        if (p == null || !from.equals(p.route().forwardedTo)) return; // completed meanwhile, or not asked of that member
        p = pending.take(a.requestId());
        if (p == null) return;
        metrics.recordLatency(p);
        p.complete(a.result() == null ? new byte[0] : a.result());
    }

    private void onRefusal(NodeId from, RuntimeMessage.Refusal r) {
        PendingRequests.Pending p = pending.get(r.requestId());
        if (p == null || !from.equals(p.route().forwardedTo)) return;
        p.route().forwardedTo = null;
        if (r.reason() == RuntimeMessage.Reason.REDIRECT && r.redirect() != null && redirect(p, r.redirect())) return;
        p = pending.take(r.requestId());
        if (p == null) return;
        String where = "forwarded to " + from + ": " + r.detail();
        p.fail(switch (r.reason() == null ? RuntimeMessage.Reason.FAILED : r.reason()) {
            case REDIRECT -> {
                metrics.rejectedNotLeader.increment();
                yield new NotLeaderException(self, r.redirect() == null ? List.of() : r.redirect());
            }
            case OVERLOADED -> {
                metrics.rejectedOverloaded.increment();
                yield new OverloadedException(where);
            }
            case UNAVAILABLE -> {
                metrics.rejectedUnavailable.increment();
                yield new UnavailableException(where);
            }
            case TIMEOUT -> new RequestTimeoutException(where);
            case STOPPED -> new UnavailableException(where);
            case FAILED -> new TandemException(where);
        });
    }

    /**
     * Sends a forwardable request on towards a member that can order it, or keeps it for a later
     * try while none is known. False when it may not go on (not forwardable, too many hops, past its
     * deadline): the caller then fails it with the redirect.
     */
    private boolean redirect(PendingRequests.Pending p, List<NodeId> targets) {
        if (!p.forwardable() || System.nanoTime() - p.deadlineNanos() >= 0) return false;
        NodeId target = null;
        for (NodeId t : targets) {
            if (!t.equals(self) && transport.peers().contains(t)) {
                target = t;
                break;
            }
        }
        if (target == null || p.route().forwards > 0 && p.route().forwards % FORWARDS_WITHOUT_PAUSE == 0 && p.route().pausedAt != p.route().forwards) {
            // No member known to order it (an election, or only this member was named), or it has been
            // redirected several times in a row: offer it to the local engine again shortly (which
            // redirects it to whoever it then believes leads); the request's deadline bounds the waiting.
            if (target != null) p.route().pausedAt = p.route().forwards;
            p.route().retryAtNanos = System.nanoTime() + RETRY_NANOS;
            retries.addLast(p);
            return true;
        }
        p.route().forwards++;
        p.route().forwardedTo = target;
        ClientRequest r = p.request();
        metrics.forwarded.increment();
        if (!transport.send(target, new RuntimeMessage.Forward(p.requestId(), r.kind(), r.session(), r.payload(), r.readPolicy()))) {
            p.route().forwardedTo = null;
            p.route().retryAtNanos = System.nanoTime() + RETRY_NANOS;
            retries.addLast(p);
        }
        return true;
    }

    private void retryDue(long wall) {
        for (int n = retries.size(); n > 0 && wall - retries.peekFirst().route().retryAtNanos >= 0; n--) {
            PendingRequests.Pending p = retries.pollFirst();
            if (pending.get(p.requestId()) == p) engine.onClientRequest(p.request());
        }
    }

    /** At start-up, before the engine runs: the state machine resumes from the newest local snapshot. */
    private void restoreLatestSnapshot() throws IOException {
        var latest = storage.latestSnapshot();
        if (latest.isEmpty()) return;
        try (InputStream in = storage.openSnapshot(latest.get())) {
            execution.executor().restoreSnapshot(in);
        }
        log.info("{} restored its state machine from the snapshot at index {}", self, latest.get().lastIncludedIndex());
    }

    /**
     * Called by storage on its disk thread once a snapshot from a peer is durable: restore on the
     * execution thread; the stage completes when the state machine reflects the snapshot.
     */
    private CompletionStage<?> restoreFromPeerSnapshot(SnapshotMeta snapshot, InputStream data) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        execution.submit(new ExecutionThread.Exclusive(() -> {
            try (InputStream in = data) {
                execution.executor().restoreSnapshot(in);
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }));
        return done;
    }

    /**
     * Snapshots the state machine on the execution thread, between two commands. What to store with
     * it (the engine's epoch of the applied index, opaque engine data) comes from the engine on the
     * loop; the execution thread waits for it (the loop never waits for execution).
     */
    private void captureSnapshot(long token) {
        toExecution(new ExecutionThread.Exclusive(() -> {
            long index = execution.appliedIndex();
            try {
                CompletableFuture<SnapshotTag> tag = new CompletableFuture<>();
                enqueue(new TagQuery(index, tag));
                SnapshotTag t = tag.get();
                storage.storeSnapshot(index, t.epoch(), t.engineData(), execution.executor()::writeSnapshot, token);
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
        metrics.timedOut.increment();
        String why = p.route().forwards > 0 || !retries.isEmpty() && retries.contains(p)
                ? " (forwarded " + p.route().forwards + " times; no member could order it in time)" : "";
        p.fail(new RequestTimeoutException("no answer from " + self + " within " + config.requestTimeout() + why));
    }

    private TandemException stoppedException() {
        Throwable f = failure();
        return f == null ? new NodeStoppedException(self + " is not running") : new NodeStoppedException(self + " stopped after a failure: " + f);
    }

    /** Stops the loop, the transport, execution and storage; pending requests fail with {@link NodeStoppedException}. */
    @Override
    public void close() {
        if (!started.get()) {
            transport.close();
            return;
        }
        running = false;
        LockSupport.unpark(loop);
        // The loop's last turn ends before the transport closes: an engine may read the transport's
        // memory regions in any turn (a virtual-synchrony engine reads its SST on every poll), and a
        // TCP transport frees that memory when it closes. Messages that arrive meanwhile only queue up.
        try {
            loop.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        transport.close();
        execution.close();
        storage.close();
        pending.failAll(new NodeStoppedException(self + " was closed"));
    }

    private TandemException rejectionException(Rejection reason) {
        return switch (reason) {
            case Rejection.Redirect r -> {
                metrics.rejectedNotLeader.increment();
                yield new NotLeaderException(self, r.targets());
            }
            case Rejection.Overloaded o -> {
                metrics.rejectedOverloaded.increment();
                yield new OverloadedException(o.reason());
            }
            case Rejection.Unavailable u -> {
                metrics.rejectedUnavailable.increment();
                yield new UnavailableException(u.reason());
            }
        };
    }

    /**
     * Where the executor reports outcomes, on the execution thread: a command completes the request
     * of this node that waits for it (by request id if it was submitted here, else by its session), a
     * read completes its request.
     */
    private final class Completions implements ExecutionListener {
        /**
         * Optimistic P-SMR: indexes of commands that failed their safety check here and wait for their
         * conservative copy (the executor reports the original's outcome when a copy runs, on every
         * replica, which removes them again). Only for the fail-latency meter; empty in other modes.
         */
        private final Set<Long> failedChecks = new HashSet<>();
        /**
         * Applied commands and this node's answered writes (count, nanoseconds from admission) since the last
         * {@link #publishMeters}: added to the meters once per executed batch instead of three meter updates per
         * put (issue 25; the meters lag by at most one batch). Execution thread only.
         */
        private long appliedSinceBatch, writesSinceBatch, writeNanosSinceBatch;

        void publishMeters() {
            if (appliedSinceBatch != 0) metrics.applied.increment(appliedSinceBatch);
            if (writesSinceBatch != 0) metrics.writesCompleted(writesSinceBatch, writeNanosSinceBatch);
            appliedSinceBatch = writesSinceBatch = writeNanosSinceBatch = 0;
        }

        @Override
        public void executed(Committed entry, Outcome outcome) {
            boolean afterFailedCheck = !failedChecks.isEmpty() && failedChecks.remove(entry.index());
            switch (outcome) {
                case Outcome.Applied a -> {
                    if (!entry.isNoop()) appliedSinceBatch++;
                }
                case Outcome.Duplicate d -> metrics.duplicates.increment();
                case Outcome.Stale s -> metrics.stale.increment();
            }
            // The result's bytes are made only for whoever needs them, at most once (issue 25: on a replica
            // where no client waits and the engine asks for nothing, an applied result is never encoded).
            byte[] encoded = null;
            if (!reportResults.isEmpty() && reportResults.remove(entry.index())) {
                encoded = switch (outcome) {
                    case Outcome.Applied a -> a.result();
                    case Outcome.Duplicate d -> d.result();
                    case Outcome.Stale s -> null; // nobody waits for it
                };
                if (encoded != null) enqueue(new Executed(entry, encoded));
            }
            PendingRequests.Pending p = self.equals(entry.origin()) ? pending.take(entry.requestId()) : null;
            if (p == null) p = pending.takeBySession(entry.session());
            if (p == null) return;
            if (afterFailedCheck || p.read()) {
                metrics.recordLatency(p, afterFailedCheck);
            } else {
                writesSinceBatch++;
                writeNanosSinceBatch += System.nanoTime() - p.startNanos();
            }
            switch (outcome) {
                case Outcome.Applied a -> {
                    if (encoded != null) p.complete(encoded);
                    else p.complete(a.value()); // a future gets the bytes; an answer the result, not encoded yet
                }
                case Outcome.Duplicate d -> p.complete(d.result());
                case Outcome.Stale s -> p.fail(new TandemException("command " + entry.session().sequence() + " of client "
                        + entry.session().clientId() + " is below its session's low watermark " + (s.floor() + 1)
                        + ": the client said it would not ask again; it was not applied now and may have been applied before"));
            }
        }

        /**
         * Optimistic P-SMR: the conservative copy of a command that failed its check here is ordered
         * like a command of this node (forwarded to a member that can order it). Nobody waits for the
         * copy's own answer; if it is lost, another replica's copy or the client's retry runs it.
         */
        @Override
        public void resubmit(byte[] taggedCommand) {
            Multicast.Tagged copy = Multicast.decode(taggedCommand);
            if (copy != null && copy.tag().retryOf() != 0) failedChecks.add(copy.tag().retryOf());
            if (running) submit(taggedCommand, ClientRequest.Session.NONE, true);
        }

        @Override
        public void readAnswered(long requestId, byte[] result, RuntimeException error) {
            PendingRequests.Pending p = pending.take(requestId);
            if (p == null) return; // timed out meanwhile
            if (error != null) {
                p.fail(error);
                return;
            }
            metrics.recordLatency(p);
            p.complete(result);
        }
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
        public void installView(GroupView view) {
            NodeRuntime.this.installView(Objects.requireNonNull(view, "view"));
        }

        @Override
        public GroupView view() {
            return view != null ? view : new GroupView(1, members);
        }

        @Override
        public Regions regions() {
            return regions;
        }

        @Override
        public void requestPolling(boolean poll) {
            polling = poll;
            idleTurns = 0;
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
            if (delayNanos <= 0) timers.scheduleNow(key); // no clock read: due at the next check whatever the time
            else timers.schedule(key, now() + delayNanos);
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
            // A snapshot the engine installs is restored on the execution thread after every entry delivered before it.
            handOffDelivered();
            return storage.snapshots();
        }

        @Override
        public void deliver(Committed entry) {
            delivered.add(entry);
        }

        @Override
        public void deliverReportingResult(Committed entry) {
            reportResults.add(entry.index());
            delivered.add(entry);
        }

        @Override
        public void serveRead(long requestId, long afterIndex) {
            // The query bytes stay with the pending request; the loop forwards them with the read task.
            PendingRequests.Pending p = pending.get(requestId);
            if (p == null || !p.read()) return; // already answered, rejected or timed out
            toExecution(new ExecutionThread.Read(requestId, afterIndex, p.request().payload()));
        }

        @Override
        public void complete(long requestId, byte[] result) {
            PendingRequests.Pending p = pending.take(requestId);
            if (p == null) return;
            metrics.recordLatency(p);
            p.complete(result == null ? new byte[0] : result);
        }

        @Override
        public void reject(long requestId, Rejection reason) {
            PendingRequests.Pending p = pending.get(requestId);
            if (p == null) return;
            if (reason instanceof Rejection.Redirect r && redirect(p, r.targets())) return;
            p = pending.take(requestId);
            if (p != null) p.fail(rejectionException(reason));
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
