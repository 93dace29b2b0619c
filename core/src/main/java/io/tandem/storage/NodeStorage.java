package io.tandem.storage;

import io.tandem.engine.NodeId;
import io.tandem.storage.StorageEvent.LogSynced;
import io.tandem.storage.StorageEvent.MetaSaved;
import io.tandem.storage.StorageEvent.SnapshotChunkRead;
import io.tandem.storage.StorageEvent.SnapshotChunkWritten;
import io.tandem.storage.StorageEvent.SnapshotFailed;
import io.tandem.storage.StorageEvent.SnapshotInstalled;
import io.tandem.storage.StorageEvent.SnapshotTaken;
import io.tandem.storage.StorageEvent.StorageFailed;
import io.tandem.storage.file.FileStorage;
import io.tandem.storage.memory.MemoryDisk;
import io.tandem.storage.memory.MemoryStorage;
import io.tandem.storage.stable.SnapshotInstall;
import io.tandem.storage.stable.SnapshotRejectedException;
import io.tandem.storage.stable.StableLog;
import io.tandem.storage.stable.StableMetaStore;
import io.tandem.storage.stable.StableStorage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jctools.queues.MpscUnboundedXaddArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's storage as the runtime uses it: a disk thread with group commit behind the
 * non-blocking views an engine gets from its context ({@link #log()}, {@link #meta()},
 * {@link #snapshots()}).
 *
 * <h2>How it works</h2>
 * The views update their in-memory state at once, on the caller's thread, and queue the work
 * for the disk thread; an engine reads its log from memory and never waits. The disk thread
 * takes everything queued since its last round as one batch, applies it in call order and makes
 * it durable with one {@code fsync} (group commit), then posts completions to the
 * {@code Consumer<StorageEvent>} given at open: {@link LogSynced}, {@link MetaSaved},
 * {@link SnapshotChunkRead}, {@link SnapshotChunkWritten}, {@link SnapshotInstalled},
 * {@link SnapshotTaken}, {@link SnapshotFailed}, {@link StorageFailed}. The runtime forwards them
 * into the engine's inbox. Events are posted by the thread that runs the round of work that caused
 * them (the disk thread, or the loop in {@link #endTurn()}; one round at a time), in the order of that work.
 *
 * <h2>Hand-off per loop turn (issue 25)</h2>
 * After {@link #handOffPerTurn()} the log and meta views queue their work without waking the disk
 * thread, and the loop calls {@link #endTurn()} once per turn: with {@link FlushPolicy#FSYNC} that
 * wakes the disk thread once for the whole turn; with {@link FlushPolicy#NO_FSYNC} the loop runs the
 * round itself (the write to the page cache that the disk thread would do, then the completions),
 * unless snapshot chunks are queued, so a batch costs no thread hop. Either
 * way a completion is still posted only after the work is as durable as the policy promises.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>Durability follows call order: after a crash the storage reflects every log and meta call
 *       up to some point, never a later call without an earlier one, and at least every call
 *       whose completion was posted.</li>
 *   <li>{@link DurableLog#durableIndex()} is exact on the engine's loop: it never exceeds what was
 *       synced, and a truncation or reset lowers it at once, before the disk has seen it.</li>
 *   <li>On any I/O error (a full disk included) the storage fails for good: one
 *       {@link StorageFailed} is posted, the durable index stops where the last successful sync
 *       left it, later work is dropped, and every later write through the views throws
 *       {@link StorageFailedException}. The node must stop; a restart recovers from disk.</li>
 * </ul>
 *
 * <h2>Threads</h2>
 * The views belong to the engine's loop (one thread). {@link #storeSnapshot} is for the execution
 * thread, which owns the state machine. {@link #latestSnapshot()}, {@link #openSnapshot} and
 * {@link #close()} may be called from any thread.
 *
 * <h2>Typical use by the runtime</h2>
 * <pre>{@code
 * NodeStorage storage = NodeStorage.open(dataDir, "cluster-a", self, FlushPolicy.FSYNC,
 *         event -> inbox.offer(event),                                  // to engine.onStorageEvent
 *         SnapshotRestorer.using(stateMachine, executionExecutor));
 * storage.latestSnapshot().ifPresent(s -> {                            // at start-up, before the engine
 *     try (InputStream in = storage.openSnapshot(s)) { stateMachine.restore(in); }
 * });
 * // EngineContext.log()/meta()/snapshots() return storage.log()/meta()/snapshots().
 * // On EngineContext.takeSnapshot(token), on the execution thread between two commands:
 * storage.storeSnapshot(appliedIndex, termOfAppliedIndex, engineData, stateMachine::snapshot, token);
 * }</pre>
 */
public final class NodeStorage implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(NodeStorage.class);

    private final NodeId node;
    private final StableStorage stable;
    private final StorageMetrics metrics;
    private final Consumer<StorageEvent> events;
    private final SnapshotRestorer restorer;
    private final OpQueue queue = new OpQueue();
    private final LogView logView;
    private final MetaView metaView;
    private final SnapshotView snapshotView = new SnapshotView();
    private final Thread diskThread;
    /**
     * Held while a round of work runs (drain, process, sync, post), by the disk thread or by the loop in
     * {@link #endTurn()}: the queue keeps one consumer at a time and the disk-thread state below is
     * touched by one thread at a time (the lock orders their accesses).
     */
    private final ReentrantLock round = new ReentrantLock();
    /** With NO_FSYNC, whether {@link #endTurn()} may run rounds on the loop. */
    private final boolean inlineRounds;
    /** Set by {@link #handOffPerTurn()}; views then queue quietly and the loop calls {@link #endTurn()}. */
    private boolean perTurn;
    /** The loop queued work since its last {@link #endTurn()} without waking the disk thread. */
    private boolean quietWork;
    /** Snapshot chunk reads and writes queued and not yet processed: {@link #endTurn()} leaves those rounds to the disk thread. */
    private final AtomicInteger snapshotOpsQueued = new AtomicInteger();
    /** With NO_FSYNC, when a slow round the loop ran sends its work to the disk thread, and for how long (loop only). */
    final InlineBackoff inlineBackoff = new InlineBackoff();
    /** The stable storage was closed (at the disk thread's end); under {@link #round}. */
    private boolean stableClosed;
    private final AtomicReference<Failure> failure = new AtomicReference<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** What the disk has made durable, published by the disk thread after each sync. */
    private volatile Progress progress;
    private volatile SnapshotMeta latestSnapshot;

    // Disk-thread state.
    private final LinkedHashMap<String, byte[]> pendingMeta = new LinkedHashMap<>();
    private final List<MetaSaved> pendingMetaAcks = new ArrayList<>();
    private boolean logDirty;
    private long processedLogSeq;
    private long lastPostedDurable;
    private boolean failureReported;
    private SnapshotInstall install;

    /** The disk had processed every log call up to {@code seq} and made the log durable up to {@code durableIndex}. */
    private record Progress(long seq, long durableIndex) {}

    private record Failure(String operation, StorageException error) {}

    private NodeStorage(NodeId node, StableStorage stable, StorageMetrics metrics, Consumer<StorageEvent> events, SnapshotRestorer restorer,
                        boolean inlineRounds) {
        this.node = node;
        this.inlineRounds = inlineRounds;
        this.metrics = metrics;
        this.stable = stable;
        this.events = events;
        this.restorer = restorer;
        StableLog log = stable.log();
        EntryWindow window = new EntryWindow(log.firstIndex());
        log.forEach(log.firstIndex(), window::add);
        this.logView = new LogView(window);
        this.metaView = new MetaView(new HashMap<>(stable.meta().all()));
        this.progress = new Progress(0, log.syncedIndex());
        this.lastPostedDurable = log.syncedIndex();
        this.latestSnapshot = stable.snapshots().latest().orElse(null);
        this.diskThread = Thread.ofPlatform().name("tandem-disk-" + node).daemon(true).unstarted(this::runDiskThread);
    }

    /**
     * Opens (creating it if needed) the data directory of {@code node} in cluster {@code clusterId},
     * recovers it, and starts the disk thread.
     *
     * @param events   receives every completion, on the disk thread; must not block for long
     * @param restorer restores the state machine from snapshots installed from peers
     * @throws DataDirectoryMismatchException if the directory belongs to another cluster or node,
     *         has another format version, or is not a Tandem data directory
     * @throws CorruptStorageException        if stored data is damaged beyond a torn log tail
     */
    public static NodeStorage open(Path dataDir, String clusterId, NodeId node, FlushPolicy flushPolicy,
                                   Consumer<StorageEvent> events, SnapshotRestorer restorer) {
        return open(dataDir, clusterId, node, StorageOptions.of(flushPolicy), events, restorer);
    }

    /** {@link #open(Path, String, NodeId, FlushPolicy, Consumer, SnapshotRestorer)} with all options. */
    public static NodeStorage open(Path dataDir, String clusterId, NodeId node, StorageOptions options,
                                   Consumer<StorageEvent> events, SnapshotRestorer restorer) {
        if (!options.flushPolicy().fsync()) {
            logger.warn("storage of {} runs with NO_FSYNC: acknowledged writes survive a process crash but not power loss", node);
        }
        return start(node, FileStorage.open(dataDir, clusterId, node, options), StorageMetrics.of(options.metrics(), node, options.flushPolicy().fsync()), events, restorer,
                !options.flushPolicy().fsync());
    }

    /**
     * Storage of {@code node} on an in-memory {@code disk}, with the contract of the file storage.
     * To simulate a crash: {@link MemoryDisk#crash()} (the old instance's writes then fail), then
     * open a new instance on the same disk.
     */
    public static NodeStorage inMemory(MemoryDisk disk, String clusterId, NodeId node,
                                       Consumer<StorageEvent> events, SnapshotRestorer restorer) {
        return inMemory(disk, clusterId, node, StorageOptions.defaults(), events, restorer);
    }

    /** {@link #inMemory(MemoryDisk, String, NodeId, Consumer, SnapshotRestorer)} with options (only {@code snapshotsToKeep} applies). */
    public static NodeStorage inMemory(MemoryDisk disk, String clusterId, NodeId node, StorageOptions options,
                                       Consumer<StorageEvent> events, SnapshotRestorer restorer) {
        return start(node, MemoryStorage.open(disk, clusterId, node, options), StorageMetrics.of(options.metrics(), node, options.flushPolicy().fsync()), events, restorer, false);
    }

    private static NodeStorage start(NodeId node, StableStorage stable, StorageMetrics metrics, Consumer<StorageEvent> events, SnapshotRestorer restorer,
                                     boolean inlineRounds) {
        Objects.requireNonNull(events, "events");
        Objects.requireNonNull(restorer, "restorer");
        NodeStorage storage;
        try {
            storage = new NodeStorage(node, stable, metrics, events, restorer, inlineRounds);
        } catch (RuntimeException e) {
            stable.close();
            throw e;
        }
        storage.diskThread.start();
        logger.info("storage of {} opened: {}, log [{}, {}], latest snapshot {}", node, stable.description(),
                storage.logView.firstIndex(), storage.logView.lastIndex(), storage.latestSnapshot);
        return storage;
    }

    /**
     * From now on the log and meta views queue their work without waking the disk thread, and the
     * loop must call {@link #endTurn()} at the end of every turn in which it used them (calling it in
     * every turn is cheap). Engine loop only, before its first use of the views.
     */
    public void handOffPerTurn() {
        perTurn = true;
    }

    /**
     * Hands the work the views queued in this turn to the disk (engine loop only, after
     * {@link #handOffPerTurn()}; harmless otherwise). With FSYNC: one wake-up of the disk thread for
     * the turn. With NO_FSYNC: runs the round on this thread (after a round the disk thread may be
     * running), unless snapshot chunks are queued (their I/O stays on the disk thread, which is woken)
     * or a recent round on this thread was slow (then the disk thread takes the work for a while, so a
     * stalled file system does not stall the loop); completions are posted here, before this method returns.
     *
     * <p>Why this keeps "nothing acknowledged is ever lost": the round is the disk thread's own code
     * ({@link #runRound}) under the same lock, so work is still made durable in call order, and a
     * {@link LogSynced} is still posted only after the batch's {@code sync()}: with NO_FSYNC that is
     * the write into the page cache, which is all the policy ever promised (a process crash keeps it).
     */
    public void endTurn() {
        if (!quietWork) return;
        quietWork = false;
        if (!inlineRounds || snapshotOpsQueued.get() != 0 || backingOff()) {
            queue.wakeConsumer();
            return;
        }
        // With no snapshot chunk queued or in progress, a round the disk thread may be running is log and meta
        // work of the same short kind (a write into the page cache), so waiting for it costs about as much as it
        // would to hand this turn's work over. (Chunks come from this loop only, counted before they are queued.)
        long start = System.nanoTime();
        round.lock();
        try {
            if (stableClosed) return;
            ArrayList<Op> batch = queue.drainNow();
            if (!batch.isEmpty()) runRound(batch);
        } finally {
            round.unlock();
        }
        long end = System.nanoTime();
        long backoff = inlineBackoff.ran(start, end);
        if (backoff != 0 && logger.isDebugEnabled()) {
            logger.debug("storage of {}: a round on the loop took {} us; the disk thread takes the loop's work for {} us", node,
                    (end - start) / 1000, backoff / 1000);
        }
    }

    /** Whether a slow round on the loop sent its work back to the disk thread for a while (loop only). */
    private boolean backingOff() {
        return inlineBackoff.backingOff && inlineBackoff.active(System.nanoTime()); // the clock only while backing off
    }

    /** The engine's log view; engine loop only. */
    public DurableLog log() {
        return logView;
    }

    /** The engine's meta view; engine loop only. */
    public MetaStore meta() {
        return metaView;
    }

    /** The engine's snapshot view; engine loop only. */
    public SnapshotStore snapshots() {
        return snapshotView;
    }

    /** The newest retained snapshot; at start-up the runtime restores the state machine from it. */
    public Optional<SnapshotMeta> latestSnapshot() {
        return Optional.ofNullable(latestSnapshot);
    }

    /**
     * Opens a retained snapshot's data, for restoring the state machine at start-up. The stream
     * throws {@link CorruptStorageException} when it reaches the end (or is closed) if the data
     * does not match its checksum.
     */
    public InputStream openSnapshot(SnapshotMeta snapshot) {
        return stable.snapshots().open(snapshot);
    }

    /**
     * Writes a snapshot of the local state machine; call it on the execution thread, between two
     * commands, when the engine asked for one ({@link io.tandem.engine.EngineContext#takeSnapshot}).
     * Blocks the calling thread while {@code writer} streams the state out and the snapshot is made
     * durable (the protocol loop is not blocked), then posts {@link SnapshotTaken} with {@code token}.
     * The engine then typically compacts its log up to {@code lastIncludedIndex}.
     *
     * @param lastIncludedIndex the last applied index, whose effect the snapshot contains
     * @param lastIncludedTerm  the term (or ballot) of that entry
     * @param engineData        engine state to keep with the snapshot (e.g. the configuration)
     * @param writer            writes the state, typically {@code stateMachine::snapshot}
     * @throws StorageException if the storage failed (then {@link StorageFailed} is posted as well);
     *         an {@link java.io.UncheckedIOException} of the writer itself leaves the storage usable
     */
    public SnapshotMeta storeSnapshot(long lastIncludedIndex, long lastIncludedTerm, byte[] engineData, SnapshotWriter writer, long token) {
        checkWritable();
        SnapshotMeta stored;
        try {
            stored = stable.snapshots().write(lastIncludedIndex, lastIncludedTerm, engineData, writer);
        } catch (StorageException e) {
            raiseFailure("writing snapshot " + lastIncludedIndex, e);
            throw e;
        }
        refreshLatestSnapshot();
        enqueueQuietly(new Op.Post(new SnapshotTaken(stored, token)));
        return stored;
    }

    /** The failure that stopped this storage, if any. */
    public Optional<StorageException> failure() {
        Failure f = failure.get();
        return f == null ? Optional.empty() : Optional.of(f.error());
    }

    /** Where the data lives and how it is flushed, for logs and reports. */
    public String description() {
        return stable.description();
    }

    /**
     * Finishes the queued work (syncing it and posting its completions), stops the disk thread and
     * releases the data directory, then returns; later calls through the views throw
     * {@link IllegalStateException}. Idempotent. Called from an event consumer (on the disk
     * thread) it only stops new work and returns at once; the rest happens when the batch ends.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        queue.close();
        // The disk thread drains the queue, then closes the stable storage itself; joining it is
        // skipped when an event consumer closes the storage from the disk thread.
        if (Thread.currentThread() == diskThread || round.isHeldByCurrentThread()) return; // inside a round: it would wait for itself
        boolean interrupted = false;
        while (diskThread.isAlive()) {
            try {
                diskThread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    // ---- engine-facing views -------------------------------------------------------------------

    private void checkWritable() {
        Failure f = failure.get();
        if (f != null) {
            throw new StorageFailedException("storage of node " + node + " failed while " + f.operation() + " (" + f.error().getMessage()
                    + "); refusing further writes until the node restarts", f.error());
        }
    }

    private record Clip(long seq, long limit) {}

    private final class LogView implements DurableLog {
        private final EntryWindow window;
        private long nextSeq;
        /** Truncations and resets the disk may not have applied yet: they cap the durable index. */
        private final ArrayDeque<Clip> clips = new ArrayDeque<>();

        LogView(EntryWindow window) {
            this.window = window;
        }

        @Override
        public long firstIndex() {
            return window.firstIndex();
        }

        @Override
        public long lastIndex() {
            return window.lastIndex();
        }

        @Override
        public long durableIndex() {
            Progress p = progress;
            while (!clips.isEmpty() && clips.peekFirst().seq() <= p.seq()) clips.pollFirst();
            long durable = p.durableIndex();
            for (Clip clip : clips) durable = Math.min(durable, clip.limit());
            return Math.min(durable, window.lastIndex());
        }

        @Override
        public LogEntry entry(long index) {
            return window.get(index);
        }

        @Override
        public void append(LogEntry entry) {
            checkWritable();
            if (entry.index() != window.lastIndex() + 1) {
                throw new IllegalArgumentException("append of index " + entry.index() + " to a log ending at " + window.lastIndex());
            }
            if (entry.payload().length > StableLog.MAX_PAYLOAD_BYTES) {
                throw new IllegalArgumentException("payload of " + entry.payload().length + " bytes exceeds " + StableLog.MAX_PAYLOAD_BYTES);
            }
            enqueueFromView(new Op.Append(++nextSeq, entry));
            window.add(entry);
        }

        @Override
        public void truncateSuffix(long fromIndex) {
            checkWritable();
            if (fromIndex < window.firstIndex()) {
                throw new IllegalArgumentException("cannot truncate from " + fromIndex + ": entries before " + window.firstIndex() + " are compacted");
            }
            if (fromIndex > window.lastIndex()) return;
            long seq = ++nextSeq;
            enqueueFromView(new Op.Truncate(seq, fromIndex));
            window.truncateFrom(fromIndex);
            clips.addLast(new Clip(seq, fromIndex - 1));
        }

        @Override
        public void compactPrefix(long upToIndex) {
            checkWritable();
            if (upToIndex < window.firstIndex()) return;
            if (upToIndex > window.lastIndex()) {
                throw new IllegalArgumentException("cannot compact up to " + upToIndex + " beyond the last index " + window.lastIndex() + "; use resetAfter");
            }
            enqueueFromView(new Op.Compact(++nextSeq, upToIndex));
            window.dropThrough(upToIndex);
        }

        @Override
        public void resetAfter(long lastIncludedIndex) {
            checkWritable();
            if (lastIncludedIndex < 0) throw new IllegalArgumentException("lastIncludedIndex must be >= 0, was " + lastIncludedIndex);
            long seq = ++nextSeq;
            enqueueFromView(new Op.Reset(seq, lastIncludedIndex));
            window.reset(lastIncludedIndex + 1);
            clips.addLast(new Clip(seq, lastIncludedIndex));
        }
    }

    private final class MetaView implements MetaStore {
        private final HashMap<String, byte[]> values;

        MetaView(HashMap<String, byte[]> values) {
            this.values = values;
        }

        @Override
        public Optional<byte[]> get(String key) {
            byte[] value = values.get(key);
            return value == null ? Optional.empty() : Optional.of(value.clone());
        }

        @Override
        public void put(String key, byte[] value, long token) {
            checkWritable();
            StableMetaStore.checkRecord(key, value);
            byte[] copy = value.clone();
            enqueueFromView(new Op.PutMeta(key, copy, token));
            values.put(key, copy);
        }
    }

    private final class SnapshotView implements SnapshotStore {
        @Override
        public Optional<SnapshotMeta> latest() {
            return Optional.ofNullable(latestSnapshot);
        }

        @Override
        public void readChunk(SnapshotMeta snapshot, long offset, int maxBytes, long token) {
            checkWritable();
            Objects.requireNonNull(snapshot, "snapshot");
            if (offset < 0 || offset > snapshot.sizeBytes() || maxBytes <= 0) {
                throw new IllegalArgumentException("bad chunk request: offset " + offset + ", maxBytes " + maxBytes + " for " + snapshot);
            }
            snapshotOpsQueued.incrementAndGet();
            enqueue(new Op.ReadChunk(snapshot, offset, maxBytes, token));
        }

        @Override
        public void writeChunk(SnapshotMeta snapshot, long offset, byte[] data, boolean last, long token) {
            checkWritable();
            Objects.requireNonNull(snapshot, "snapshot");
            Objects.requireNonNull(data, "data");
            if (offset < 0) throw new IllegalArgumentException("negative chunk offset " + offset);
            snapshotOpsQueued.incrementAndGet();
            enqueue(new Op.WriteChunk(snapshot, offset, data.clone(), last, token));
        }
    }

    private void enqueue(Op op) {
        if (!queue.add(op)) throw new IllegalStateException("storage of node " + node + " is closed");
    }

    /** A log or meta call of the loop: queued quietly when the loop hands work off per turn ({@link #endTurn()}). */
    private void enqueueFromView(Op op) {
        if (!perTurn) {
            enqueue(op);
            return;
        }
        if (!queue.addQuietly(op)) throw new IllegalStateException("storage of node " + node + " is closed");
        quietWork = true;
    }

    /** For completions arriving from other threads: during close they are dropped, as the node is going away. */
    private void enqueueQuietly(Op op) {
        if (!queue.add(op)) logger.debug("storage of {} closed; dropping {}", node, op);
    }

    /** Records the first failure (from any thread); the disk thread posts it and stops working. */
    private void raiseFailure(String operation, StorageException error) {
        if (failure.compareAndSet(null, new Failure(operation, error))) {
            metrics.failed();
            logger.error("storage of {} failed while {}; it stops acknowledging writes: {}", node, operation, error.getMessage(), error);
        }
        if (!round.isHeldByCurrentThread()) enqueueQuietly(new Op.Wake()); // outside a round: have the disk thread report it
    }

    private synchronized void refreshLatestSnapshot() {
        latestSnapshot = stable.snapshots().latest().orElse(null);
    }

    // ---- disk thread ---------------------------------------------------------------------------

    private sealed interface Op {
        record Append(long seq, LogEntry entry) implements Op {}

        record Truncate(long seq, long fromIndex) implements Op {}

        record Compact(long seq, long upToIndex) implements Op {}

        record Reset(long seq, long lastIncludedIndex) implements Op {}

        record PutMeta(String key, byte[] value, long token) implements Op {}

        record ReadChunk(SnapshotMeta snapshot, long offset, int maxBytes, long token) implements Op {}

        record WriteChunk(SnapshotMeta snapshot, long offset, byte[] data, boolean last, long token) implements Op {}

        /** An event produced on another thread, posted in queue order. */
        record Post(StorageEvent event) implements Op {}

        /** Nudges the disk thread to report a failure raised on another thread. */
        record Wake() implements Op {}
    }

    /**
     * The disk thread: {@link #diskTurn} until the storage is closed. The loop never returns while the node runs, so
     * its body lives in a method of its own: the JIT compiles a method that is called once per turn by its invocation
     * count, while a loop inline here would run interpreted until an on-stack-replacement compile, which a thread that
     * parks between rounds may not get within a run (session 24 found the runtime loop so; jit25).
     */
    private void runDiskThread() {
        while (diskTurn()) {}
        logger.info("storage of {} closed", node);
    }

    /**
     * One turn of the disk thread: a round over everything queued, or a park when nothing is; false once closed and
     * every accepted op is done. The former loop body, unchanged: a round is followed by another look at the queue
     * without parking ({@code continue} before), an empty look by a park outside the round lock.
     */
    private boolean diskTurn() {
        round.lock();
        try {
            ArrayList<Op> batch = queue.drainNow();
            if (batch.isEmpty()) batch = queue.drainAtClose();
            if (batch == null) { // closed, and every accepted op is done
                if (install != null) install.abort();
                stable.close();
                stableClosed = true;
                return false;
            }
            if (!batch.isEmpty()) {
                runRound(batch);
                return true;
            }
        } finally {
            round.unlock();
        }
        queue.awaitWork();
        return true;
    }

    /** One round: the batch's ops in order, one sync, the completions (under {@link #round}). */
    private void runRound(ArrayList<Op> batch) {
        metrics.batch(batch.size());
        for (Op op : batch) {
            try {
                if (failure.get() == null) process(op);
            } catch (StorageException e) {
                raiseFailure(describe(op), e);
            } catch (RuntimeException e) {
                raiseFailure(describe(op), new StorageIOException("unexpected error while " + describe(op) + ": " + e, e));
            } finally {
                // Counted down only once done, so a zero seen by the loop means no chunk is queued or in progress.
                if (op instanceof Op.ReadChunk || op instanceof Op.WriteChunk) snapshotOpsQueued.decrementAndGet();
            }
        }
        if (failure.get() == null) {
            try {
                syncLog();
                flushMeta();
            } catch (StorageException e) {
                raiseFailure("making the batch durable", e);
            } catch (RuntimeException e) {
                raiseFailure("making the batch durable", new StorageIOException("unexpected error while making the batch durable: " + e, e));
            }
        }
        reportFailureOnce();
        queue.recycle(batch);
        prepareAhead();
    }

    /**
     * After the round's completions are posted, so nothing waiting on this round waits for it: room for the next
     * rounds ({@link StableLog#prepareAhead}: with fsync, durable zeros past the log's data so a sync need not go
     * through the file system's journal). It changes no entry and no durable index, so it cannot make anything look
     * durable that is not; a log it cannot trust any more fails the storage like any write.
     */
    private void prepareAhead() {
        if (failure.get() != null || closed.get()) return; // closing: the log is about to cut whatever it prepared
        try {
            stable.log().prepareAhead();
        } catch (StorageException e) {
            raiseFailure("preparing log space", e);
        } catch (RuntimeException e) {
            raiseFailure("preparing log space", new StorageIOException("unexpected error while preparing log space: " + e, e));
        }
        reportFailureOnce();
    }

    private void process(Op op) {
        StableLog log = stable.log();
        switch (op) {
            case Op.Append a -> {
                flushMeta();
                log.append(a.entry());
                metrics.appended(a.entry());
                logDirty = true;
                processedLogSeq = a.seq();
            }
            case Op.Truncate t -> {
                syncLog();
                flushMeta();
                log.truncateSuffix(t.fromIndex());
                processedLogSeq = t.seq();
                publishProgress();
            }
            case Op.Compact c -> {
                syncLog();
                flushMeta();
                log.compactPrefix(c.upToIndex());
                processedLogSeq = c.seq();
                publishProgress();
            }
            case Op.Reset r -> {
                syncLog();
                flushMeta();
                log.resetAfter(r.lastIncludedIndex());
                processedLogSeq = r.seq();
                publishProgress();
            }
            case Op.PutMeta p -> {
                // Log appends queued before this put become durable before it does.
                syncLog();
                pendingMeta.put(p.key(), p.value());
                pendingMetaAcks.add(new MetaSaved(p.key(), p.token()));
            }
            case Op.ReadChunk r -> readChunk(r);
            case Op.WriteChunk w -> writeChunk(w);
            case Op.Post p -> post(p.event());
            case Op.Wake ignored -> { }
        }
    }

    private void syncLog() {
        if (logDirty) {
            long start = System.nanoTime();
            stable.log().sync();
            metrics.synced(System.nanoTime() - start);
            logDirty = false;
        }
        publishProgress();
    }

    private void publishProgress() {
        long durable = stable.log().syncedIndex();
        if (processedLogSeq == progress.seq() && durable == progress.durableIndex()) return;
        progress = new Progress(processedLogSeq, durable);
        if (durable != lastPostedDurable) {
            lastPostedDurable = durable;
            post(new LogSynced(durable));
        }
    }

    private void flushMeta() {
        if (pendingMeta.isEmpty()) return;
        stable.meta().putAll(pendingMeta);
        pendingMeta.clear();
        for (MetaSaved saved : pendingMetaAcks) post(saved);
        pendingMetaAcks.clear();
    }

    private void readChunk(Op.ReadChunk r) {
        Optional<byte[]> chunk = stable.snapshots().readChunk(r.snapshot(), r.offset(), r.maxBytes());
        if (chunk.isEmpty()) {
            post(new SnapshotFailed(r.snapshot(), "snapshot is no longer retained (a newer one replaced it); restart from the latest", r.token()));
            return;
        }
        byte[] data = chunk.get();
        post(new SnapshotChunkRead(r.snapshot(), r.offset(), data, r.offset() + data.length >= r.snapshot().sizeBytes(), r.token()));
    }

    private void writeChunk(Op.WriteChunk w) {
        SnapshotMeta snapshot = w.snapshot();
        if (w.offset() == 0) {
            if (install != null) install.abort();
            install = stable.snapshots().beginInstall(snapshot);
        } else if (install == null || !install.snapshot().equals(snapshot)) {
            post(new SnapshotFailed(snapshot, "chunk at offset " + w.offset() + " does not continue a transfer of this snapshot"
                    + " (a transfer starts at offset 0)", w.token()));
            return;
        }
        long received = install.bytesReceived();
        if (!w.last() && w.offset() < received && w.offset() + w.data().length <= received) {
            post(new SnapshotChunkWritten(snapshot, w.offset(), false, w.token())); // a resent chunk we already have
            return;
        }
        try {
            if (w.offset() != received) {
                install.abort();
                install = null;
                post(new SnapshotFailed(snapshot, "chunk at offset " + w.offset() + " but " + received + " bytes were received", w.token()));
                return;
            }
            install.write(w.data());
            post(new SnapshotChunkWritten(snapshot, w.offset(), w.last(), w.token()));
            if (!w.last()) return;
            syncLog(); // durability in call order: earlier log and meta work first
            flushMeta();
            SnapshotMeta installed = install.commit();
            install = null;
            refreshLatestSnapshot();
            restore(installed, w.token());
        } catch (SnapshotRejectedException e) {
            install = null;
            post(new SnapshotFailed(snapshot, e.getMessage(), w.token()));
        }
    }

    private void restore(SnapshotMeta installed, long token) {
        InputStream data = stable.snapshots().open(installed);
        CompletionStage<?> done;
        try {
            done = restorer.restore(installed, data);
        } catch (RuntimeException e) {
            closeQuietly(data);
            raiseFailure("restoring snapshot " + installed.lastIncludedIndex(), asStorageException(e));
            return;
        }
        done.whenComplete((ignored, error) -> {
            if (error == null) enqueueQuietly(new Op.Post(new SnapshotInstalled(installed, token)));
            else raiseFailure("restoring snapshot " + installed.lastIncludedIndex(), asStorageException(error));
        });
    }

    private static StorageException asStorageException(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof StorageException se) return se;
        return new StorageIOException("the state machine failed to restore a snapshot: " + cause, cause);
    }

    private void reportFailureOnce() {
        Failure f = failure.get();
        if (f == null || failureReported) return;
        failureReported = true;
        post(new StorageFailed(f.operation(), f.error().getMessage()));
    }

    private void post(StorageEvent event) {
        try {
            events.accept(event);
        } catch (RuntimeException e) {
            logger.error("storage event consumer of {} threw on {}", node, event, e);
        }
    }

    private static String describe(Op op) {
        return switch (op) {
            case Op.Append a -> "appending log entry " + a.entry().index();
            case Op.Truncate t -> "truncating the log from " + t.fromIndex();
            case Op.Compact c -> "compacting the log up to " + c.upToIndex();
            case Op.Reset r -> "resetting the log after " + r.lastIncludedIndex();
            case Op.PutMeta p -> "writing meta record '" + p.key() + "'";
            case Op.ReadChunk r -> "reading a chunk of snapshot " + r.snapshot().lastIncludedIndex();
            case Op.WriteChunk w -> "writing a chunk of snapshot " + w.snapshot().lastIncludedIndex();
            case Op.Post p -> "posting " + p.event().getClass().getSimpleName();
            case Op.Wake ignored -> "reporting a failure";
        };
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException | RuntimeException e) {
            logger.debug("closing snapshot stream: {}", e.toString());
        }
    }

    /**
     * The queue between the views and the disk thread. The disk thread takes everything queued at
     * once (one batch, one fsync). Lock-free (issue 25): the engine loop appends an entry with one
     * offer and wakes the disk thread only if it parked, where a lock shared with the disk thread made
     * the loop wait for the lock and signal a condition (AQS {@code signalNext} was the top item of the
     * leader loop's CPU samples at 64 clients).
     */
    private static final class OpQueue {
        /** The most ops taken as one batch: a producer faster than the disk still gets its ops synced in bounded steps. */
        private static final int MAX_BATCH = 1 << 14;
        private final MpscUnboundedXaddArrayQueue<Op> ops = new MpscUnboundedXaddArrayQueue<>(1024);
        /** Producers between their check of {@link #closed} and their offer: the disk thread's last drain waits for them. */
        private final AtomicInteger adding = new AtomicInteger();
        private volatile boolean closed;
        /** Set by the disk thread just before it parks (Dekker-style with {@link #add}: see there). */
        private volatile boolean parked;
        private volatile Thread consumer;
        private ArrayList<Op> batch = new ArrayList<>();

        /**
         * Queues {@code op}; false if the queue is closed. No wake-up is lost: the disk thread sets
         * {@code parked} before it looks at the queue a last time, and a producer offers before it reads
         * {@code parked}; both are volatile accesses, so at least one sees the other's write. No op
         * accepted here is dropped at close: see {@link #drainAtClose}.
         */
        boolean add(Op op) {
            if (!addQuietly(op)) return false;
            wakeConsumer();
            return true;
        }

        /** {@link #add} without the wake-up: the producer calls {@link #wakeConsumer} (or drains) later. */
        boolean addQuietly(Op op) {
            adding.incrementAndGet();
            try {
                if (closed) return false;
                ops.offer(op);
            } finally {
                adding.decrementAndGet();
            }
            return true;
        }

        /** Wakes the disk thread if it parked; after {@link #addQuietly}, the same Dekker argument as {@link #add}. */
        void wakeConsumer() {
            if (parked) LockSupport.unpark(consumer);
        }

        /** Everything queued now (at most {@link #MAX_BATCH}), maybe nothing; by the holder of the round lock. */
        ArrayList<Op> drainNow() {
            batch.clear();
            drainInto(batch);
            return batch;
        }

        /**
         * Once closed: the last ops (after every producer between its check and its offer is done), or
         * null when there are none; an empty list while open. By the holder of the round lock.
         */
        ArrayList<Op> drainAtClose() {
            if (!closed) return batch;
            while (adding.get() != 0) Thread.onSpinWait();
            drainInto(batch);
            return batch.isEmpty() ? null : batch;
        }

        /**
         * Parks the disk thread until an op is offered or the queue closes (it may return early). The
         * disk thread sets {@code parked} before it looks at the queue a last time, and a producer
         * offers before it reads {@code parked}: one of them sees the other's write, so no wake-up is lost.
         */
        void awaitWork() {
            consumer = Thread.currentThread();
            parked = true;
            try {
                if (ops.isEmpty() && !closed) LockSupport.park(this);
            } finally {
                parked = false;
            }
        }

        private void drainInto(ArrayList<Op> into) {
            for (Op op; into.size() < MAX_BATCH && (op = ops.poll()) != null; ) into.add(op);
        }

        /** Hands back the list {@link #drainNow} or {@link #drainAtClose} returned once its ops are done. */
        void recycle(ArrayList<Op> done) {
            if (done.size() > 1024) batch = new ArrayList<>(); // let an unusually large list go
            else done.clear();
        }

        void close() {
            closed = true;
            Thread c = consumer;
            if (c != null) LockSupport.unpark(c);
        }
    }
}
