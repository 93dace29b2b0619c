package io.tandem.execution;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import io.tandem.execution.ParallelStateMachine.Route;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * P-SMR and optimistic P-SMR (opt-psmr.md §2-§3) behind the {@link Executor} SPI, for any
 * {@link ParallelStateMachine}.
 *
 * <p><b>Delivery (§6.3 Option A).</b> {@link #apply} appends each committed entry, with its
 * destination workers, to one log; worker {@code k} walks the whole log with its own cursor and
 * delivers only the entries addressed to it, so worker {@code k} of every replica delivers the same
 * stream (I1). No scheduler thread decides anything.
 *
 * <p><b>Execution (§2.2, §3.3).</b> An entry for one worker runs at once on it (parallel mode); an
 * optimistically sent one first passes the state machine's safety check, and one that fails is
 * <em>not executed</em> (pitfall 1): it is remembered and handed to the host to be ordered again as
 * a conservative copy ({@link ExecutionListener#resubmit}); the first copy ordered runs it in
 * synchronous mode, later copies are dropped (I5, I6). An entry for several workers runs in
 * lock-step: the lowest destination executes once every other destination has reached it and
 * signalled over its own pairwise channel (§2.3), the others resume after it. A command to every
 * worker runs with all of them paused ({@link ParallelStateMachine#apply}); other commands run
 * concurrently ({@link ParallelStateMachine#applyConcurrent}).
 *
 * <p><b>Exactly-once.</b> Sessions are kept per worker: a command's session lives in the table of
 * its home worker (the lowest of its optimistic destinations), which takes part in every copy of
 * that command, parallel or synchronous, so the decision is made in that worker's stream order, the
 * same on every replica, and no table is shared between running workers.
 *
 * <p><b>Outcomes, reads, snapshots.</b> Outcomes are reported in index order by {@link #flush()},
 * on the calling thread, after every worker has caught up with the last entry: a consistent cut
 * (pitfall 26), at which reads are answered and snapshots written. A snapshot holds the per-worker
 * session tables, the failed commands waiting for their copy, and the state machine.
 */
public final class ParallelExecutor implements Executor, AutoCloseable {
    /** 1 and 2 are the sequential executor's; 3 is this one's (per-worker sessions, pending re-sends). */
    static final int SNAPSHOT_FORMAT = 3;
    private static final ExecutionListener.Outcome NOOP = new ExecutionListener.Outcome.Applied(new byte[0]);
    /** Publish to the workers every this many entries, so long batches overlap delivery and execution. */
    private static final int PUBLISH_EVERY = 256;

    /** One log entry as the workers see it. */
    static final class Slot {
        final Committed entry;
        final byte[] payload;
        final long dest;
        final boolean optimistic;
        final long retryOf;
        final int home;
        // Written by the one worker that executes (or fails) it, read by the driver after the cut.
        ExecutionListener.Outcome outcome;
        Committed executedFor;
        boolean failed;

        Slot(Committed entry, byte[] payload, long dest, boolean optimistic, long retryOf, int home) {
            this.entry = entry;
            this.payload = payload;
            this.dest = dest;
            this.optimistic = optimistic;
            this.retryOf = retryOf;
            this.home = home;
        }
    }

    private record WaitingRead(long requestId, long afterIndex, long arrival, byte[] query) {}

    private enum Phase { READY, ARRIVALS, RELEASE }

    private final ParallelStateMachine machine;
    private final ExecutionListener listener;
    private final ParallelOptions options;
    private final int threads;
    private final long allWorkers;
    private final boolean optimisticMode;
    private final SessionTable[] sessions;
    private final ExecutorFactory.Limits limits;
    private final WorkerChannels channels;
    private final Worker[] workers;
    /** Failed attempts waiting for their first conservative copy, by the attempt's index. */
    private final Map<Long, Slot> pendingRetries = new ConcurrentHashMap<>();
    private final PriorityQueue<WaitingRead> waitingReads = new PriorityQueue<>((a, b) ->
            a.afterIndex != b.afterIndex ? Long.compare(a.afterIndex, b.afterIndex) : Long.compare(a.arrival, b.arrival));
    private long readArrivals;

    // The log of the current batch: the driver appends, workers read below 'published'.
    private volatile Slot[] log = new Slot[1024];
    private int appended;
    private volatile int published;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final Condition idle = lock.newCondition();
    private volatile boolean stopped;
    private volatile Throwable workerFailure;
    private final SplittableRandom stepOrder;

    private volatile long appliedIndex;
    private long lastAppended;
    private final ParallelStats stats;

    public ParallelExecutor(ParallelStateMachine machine, ExecutionListener listener, ExecutorFactory.Limits limits, ParallelOptions options) {
        this.machine = machine;
        this.listener = listener;
        this.options = options;
        this.limits = limits;
        this.threads = options.threads();
        this.allWorkers = ParallelStateMachine.all(threads);
        this.optimisticMode = options.mode() == ExecutionMode.OPT_PSMR;
        this.sessions = new SessionTable[threads];
        for (int i = 0; i < threads; i++) sessions[i] = new SessionTable(limits.maxSessions(), limits.maxPerSession());
        this.channels = options.channels().apply(threads);
        this.stats = new ParallelStats(threads);
        machine.runsInParallel(threads);
        this.workers = new Worker[threads];
        for (int i = 0; i < threads; i++) workers[i] = new Worker(i);
        if (options.schedule() instanceof ParallelOptions.Schedule.Stepped s) {
            stepOrder = new SplittableRandom(s.seed());
        } else {
            stepOrder = null;
            for (Worker w : workers) {
                w.thread = Thread.ofPlatform().name("tandem-psmr-" + w.id).daemon(true).unstarted(w::run);
                w.thread.start();
            }
        }
    }

    public ParallelOptions options() {
        return options;
    }

    /** Counters of this executor: executed commands per worker, synchronous commands, checks, fails, re-sends. */
    public ParallelStats stats() {
        return stats;
    }

    /** The session table of worker {@code i} (tests, diagnostics). */
    public SessionTable sessions(int i) {
        return sessions[i];
    }

    /** Failed attempts whose conservative copy has not executed yet. */
    public int pendingRetries() {
        return pendingRetries.size();
    }

    // ---------------------------------------------------------------- driver side

    @Override
    public void apply(Committed entry) {
        long index = entry.index();
        long last = Math.max(appliedIndex, lastAppended);
        if (index <= last) return; // re-delivered after an engine restart: already applied
        if (index != last + 1) throw new IllegalStateException("engine delivered index " + index + " after " + last + ": a gap in the order");
        lastAppended = index;
        append(slotFor(entry));
        if (appended - published >= PUBLISH_EVERY) publish();
    }

    /** Decides who delivers {@code entry} and how; a pure function of the entry, the same on every replica. */
    private Slot slotFor(Committed entry) {
        if (entry.isNoop()) return new Slot(entry, null, 0, false, 0, 0);
        Multicast.Tagged tagged = Multicast.decode(entry.command());
        byte[] payload = tagged != null ? tagged.payload() : entry.command();
        Route route = routeOf(payload);
        int home = Long.numberOfTrailingZeros(route.optimistic());
        boolean optimistic;
        long retryOf = 0;
        if (tagged == null) {
            optimistic = optimisticMode && !route.certain();
        } else {
            retryOf = tagged.tag().retryOf();
            optimistic = optimisticMode && tagged.tag().optimistic() && !route.certain();
            long expected = optimistic ? route.optimistic() : route.conservative();
            // A tag is never trusted beyond the replica's own routing: a wrong one would break isolation.
            if (tagged.tag().destinations() != expected) stats.mistagged++;
        }
        long dest = optimistic ? route.optimistic() : route.conservative();
        return new Slot(entry, payload, dest, optimistic, retryOf, home);
    }

    private Route routeOf(byte[] payload) {
        Route r;
        try {
            r = machine.route(payload, threads);
        } catch (RuntimeException e) {
            r = null; // undecodable: the state machine answers it with its own error, run alone
        }
        if (r == null || (r.conservative() & ~allWorkers) != 0) return new Route(1L, allWorkers);
        return r;
    }

    private void append(Slot s) {
        Slot[] l = log;
        if (appended == l.length) {
            l = Arrays.copyOf(l, l.length * 2);
            log = l; // workers may still read the old array: it holds the same slots below 'published'
        }
        l[appended++] = s;
    }

    private void publish() {
        if (published == appended) return;
        published = appended;
        if (stepOrder != null) return;
        lock.lock();
        try {
            work.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void read(long requestId, long afterIndex, byte[] query) {
        // Reads run between commands, at the cut of the next flush, never while workers run.
        waitingReads.add(new WaitingRead(requestId, afterIndex, readArrivals++, query));
    }

    @Override
    public void flush() {
        publish();
        if (stepOrder != null) runSteps();
        else awaitWorkers();
        // The cut: every worker has handled every published entry and waits.
        machine.quiesced();
        stats.publish(workers.length, i -> workers[i].executed, i -> workers[i].synchronous, i -> workers[i].checked, i -> workers[i].failedChecks);
        Slot[] l = log;
        int n = appended;
        for (int i = 0; i < n; i++) {
            report(l[i]);
            l[i] = null;
        }
        appended = 0;
        published = 0;
        for (Worker w : workers) w.cursor = 0;
        if (lastAppended > appliedIndex) appliedIndex = lastAppended;
        while (!waitingReads.isEmpty() && waitingReads.peek().afterIndex <= appliedIndex) {
            WaitingRead r = waitingReads.poll();
            answer(r.requestId, r.query);
        }
    }

    /** After {@link #flush()} every worker waits, so their tables can be read here; the command's home table is the one that holds it. */
    @Override
    public byte[] executedResult(ClientRequest.Session session) {
        for (SessionTable t : sessions) {
            byte[] r = t.cachedResult(session);
            if (r != null) return r;
        }
        return null;
    }

    private void report(Slot s) {
        if (s.entry.isNoop()) {
            if (s.entry.origin() != null) listener.executed(s.entry, NOOP);
            return;
        }
        if (s.failed) {
            if (!pendingRetries.containsKey(s.entry.index())) return; // a copy ordered by another replica already ran it
            stats.resends++;
            listener.resubmit(Multicast.encode(new Multicast.Tag(false, routeOf(s.payload).conservative(), s.entry.index()), s.payload));
            return;
        }
        if (s.executedFor != null && s.executedFor != s.entry) {
            // A conservative copy ran the command that failed its check earlier: answer that command.
            listener.executed(s.executedFor, s.outcome);
            listener.executed(s.entry, NOOP);
            return;
        }
        listener.executed(s.entry, s.outcome != null ? s.outcome : NOOP);
    }

    private void answer(long requestId, byte[] query) {
        byte[] result;
        try {
            result = machine.query(query);
        } catch (RuntimeException e) {
            listener.readAnswered(requestId, null, e);
            return;
        }
        listener.readAnswered(requestId, result == null ? new byte[0] : result, null);
    }

    private void awaitWorkers() {
        lock.lock();
        try {
            while (!caughtUp()) {
                if (workerFailure != null) throw new IllegalStateException("a worker stopped: " + workerFailure, workerFailure);
                idle.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
        if (workerFailure != null) throw new IllegalStateException("a worker stopped: " + workerFailure, workerFailure);
    }

    private boolean caughtUp() {
        int p = published;
        for (Worker w : workers) if (w.cursor < p || w.phase != Phase.READY) return false;
        return true;
    }

    /** The deterministic schedule: repeatedly lets a worker drawn from the seed take one step. */
    private void runSteps() {
        int[] order = new int[threads];
        while (!caughtUp()) {
            for (int i = 0; i < threads; i++) order[i] = i;
            for (int i = threads - 1; i > 0; i--) { // Fisher-Yates from the seeded stream
                int j = stepOrder.nextInt(i + 1);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            boolean progress = false;
            for (int i = 0; i < threads && !progress; i++) {
                try {
                    progress = workers[order[i]].step(false);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            if (!progress) {
                StringBuilder b = new StringBuilder("parallel execution deadlocked at the cut:");
                for (Worker w : workers) b.append(" worker ").append(w.id).append(" at slot ").append(w.cursor).append(' ').append(w.phase);
                throw new IllegalStateException(b.toString());
            }
        }
    }

    @Override
    public long appliedIndex() {
        return appliedIndex;
    }

    @Override
    public void close() {
        stopped = true;
        if (stepOrder != null) return;
        for (Worker w : workers) w.thread.interrupt();
        for (Worker w : workers) {
            try {
                w.thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    // ---------------------------------------------------------------- workers

    private final class Worker {
        final int id;
        final long bit;
        Thread thread;
        volatile int cursor;
        volatile Phase phase = Phase.READY;
        long awaiting;
        final SplittableRandom fuzz;
        // Counters, written by this worker only; read by the driver at the cut.
        long executed;
        long synchronous;
        long checked;
        long failedChecks;

        Worker(int id) {
            this.id = id;
            this.bit = 1L << id;
            this.fuzz = options.fuzzSeed() == 0 ? null : new SplittableRandom(options.fuzzSeed() * 31 + id);
        }

        void run() {
            try {
                while (!stopped) {
                    if (phase == Phase.READY && cursor >= published) {
                        awaitWork();
                        continue;
                    }
                    step(true);
                }
            } catch (InterruptedException e) {
                // closed
            } catch (Throwable e) {
                workerFailure = e;
                lock.lock();
                try {
                    idle.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        }

        private void awaitWork() throws InterruptedException {
            lock.lock();
            try {
                idle.signalAll();
                while (cursor >= published && !stopped) work.await();
            } finally {
                lock.unlock();
            }
        }

        /** One step of this worker; false if it cannot move (no entry, or waiting for a signal without blocking). */
        boolean step(boolean block) throws InterruptedException {
            switch (phase) {
                case READY -> {
                    int c = cursor;
                    if (c >= published) return false;
                    Slot s = log[c];
                    long dest = s.dest;
                    if ((dest & bit) == 0) { // not addressed to this worker (or a no-op)
                        cursor = c + 1;
                        return true;
                    }
                    if (fuzz != null) jitter();
                    if (dest == bit) { // parallel mode
                        if (s.optimistic) {
                            checked++;
                            if (!machine.safe(s.payload, id, threads)) {
                                // Fail: not executed, no reply, no state change (I5); its copy comes back conservatively.
                                failedChecks++;
                                s.failed = true;
                                pendingRetries.put(s.entry.index(), s);
                                cursor = c + 1;
                                return true;
                            }
                        }
                        execute(s, dest == allWorkers); // with one worker, its only destination is every worker
                        cursor = c + 1;
                        return true;
                    }
                    int executor = Long.numberOfTrailingZeros(dest); // the lowest destination, never arrival order (pitfall 4)
                    if (executor == id) {
                        awaiting = dest & ~bit;
                        phase = Phase.ARRIVALS;
                    } else {
                        channels.release(id, executor);
                        phase = Phase.RELEASE;
                    }
                    return true;
                }
                case ARRIVALS -> {
                    Slot s = log[cursor];
                    while (awaiting != 0) {
                        int j = Long.numberOfTrailingZeros(awaiting);
                        if (!channels.acquire(j, id, block)) return false;
                        awaiting &= ~(1L << j);
                    }
                    synchronous++;
                    execute(s, s.dest == allWorkers);
                    for (long rest = s.dest & ~bit; rest != 0; rest &= rest - 1) channels.release(id, Long.numberOfTrailingZeros(rest));
                    cursor = cursor + 1;
                    phase = Phase.READY;
                    return true;
                }
                case RELEASE -> {
                    Slot s = log[cursor];
                    if (!channels.acquire(Long.numberOfTrailingZeros(s.dest), id, block)) return false;
                    cursor = cursor + 1;
                    phase = Phase.READY;
                    return true;
                }
            }
            throw new IllegalStateException("unreachable");
        }

        private void jitter() {
            int r = fuzz.nextInt(8);
            if (r == 0) Thread.yield();
            else if (r == 1) LockSupport.parkNanos(fuzz.nextLong(1_000, 50_000));
        }

        /** Runs {@code s} on this worker; {@code exclusive} when every worker is paused at it. */
        private void execute(Slot s, boolean exclusive) {
            Committed target = s.entry;
            if (s.retryOf != 0) {
                Slot original = pendingRetries.remove(s.retryOf);
                if (original == null) { // a later copy, or the attempt passed: nothing to run again
                    s.outcome = NOOP;
                    return;
                }
                target = original.entry;
            }
            executed++;
            ClientRequest.Session session = target.session();
            SessionTable table = sessions[s.home];
            ExecutionListener.Outcome outcome = switch (session.isNone() ? SessionTable.APPLY : table.decide(session)) {
                case SessionTable.Decision.Apply ignored -> {
                    byte[] result;
                    if (exclusive) {
                        machine.quiesced();
                        result = machine.apply(s.entry.index(), s.payload);
                    } else {
                        result = machine.applyConcurrent(id, s.entry.index(), s.payload);
                    }
                    if (result == null) result = new byte[0];
                    if (!session.isNone()) table.record(session, result);
                    yield new ExecutionListener.Outcome.Applied(result);
                }
                case SessionTable.Decision.Duplicate d -> new ExecutionListener.Outcome.Duplicate(d.cachedResult());
                case SessionTable.Decision.Stale st -> new ExecutionListener.Outcome.Stale(st.floor());
            };
            s.executedFor = target;
            s.outcome = outcome;
        }
    }

    // ---------------------------------------------------------------- snapshots

    @Override
    public void writeSnapshot(OutputStream out) throws IOException {
        DataOutputStream data = new DataOutputStream(out);
        data.writeInt(SNAPSHOT_FORMAT);
        data.writeLong(appliedIndex);
        data.writeInt(threads);
        for (SessionTable t : sessions) t.writeTo(data);
        TreeMap<Long, Slot> pending = new TreeMap<>(pendingRetries); // index order: the same bytes everywhere
        data.writeInt(pending.size());
        for (Slot s : pending.values()) writeEntry(data, s.entry);
        data.flush();
        machine.snapshot(out);
    }

    @Override
    public void restoreSnapshot(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int format = data.readInt();
        long index = data.readLong();
        pendingRetries.clear();
        if (format == 1 || format == 2) {
            // A sequential executor's snapshot: one table. Every worker gets a copy, so a retry is
            // recognised whichever worker is its home; the copies only cost memory until evicted.
            SessionTable one = new SessionTable(limits.maxSessions(), limits.maxPerSession());
            if (format == 1) one.readFormat1From(data);
            else one.readFrom(data);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            one.writeTo(new DataOutputStream(bytes));
            for (SessionTable t : sessions) t.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        } else if (format == SNAPSHOT_FORMAT) {
            int k = data.readInt();
            if (k != threads) {
                throw new IOException("snapshot written by " + k + " workers, this executor has " + threads
                        + ": every replica of a service must run the same number of workers");
            }
            for (SessionTable t : sessions) t.readFrom(data);
            int n = data.readInt();
            if (n < 0) throw new IOException("corrupt snapshot: negative pending count " + n);
            for (int i = 0; i < n; i++) {
                Committed e = readEntry(data);
                Multicast.Tagged tagged = Multicast.decode(e.command());
                byte[] payload = tagged != null ? tagged.payload() : e.command();
                Route r = routeOf(payload);
                pendingRetries.put(e.index(), new Slot(e, payload, r.optimistic(), true, 0, Long.numberOfTrailingZeros(r.optimistic())));
            }
        } else {
            throw new IOException("unknown snapshot format " + format + " (this build reads 1, 2 and " + SNAPSHOT_FORMAT + ")");
        }
        machine.restore(in);
        appliedIndex = index;
        lastAppended = index;
        // The copies of these attempts may have been lost with the process that sent them: send
        // them again (every replica may; the executor runs the first copy ordered and drops the rest).
        resendPending();
    }

    private static void writeEntry(DataOutputStream out, Committed e) throws IOException {
        out.writeLong(e.index());
        out.writeUTF(e.origin() == null ? "" : e.origin().value());
        out.writeLong(e.requestId());
        out.writeLong(e.clientId());
        out.writeLong(e.sequence());
        out.writeLong(e.lowWatermark());
        out.writeInt(e.command().length);
        out.write(e.command());
    }

    private static Committed readEntry(DataInputStream in) throws IOException {
        long index = in.readLong();
        String origin = in.readUTF();
        long requestId = in.readLong();
        ClientRequest.Session session;
        try {
            session = new ClientRequest.Session(in.readLong(), in.readLong(), in.readLong());
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt snapshot: " + e.getMessage());
        }
        int len = in.readInt();
        if (len < 0) throw new IOException("corrupt snapshot: negative command length");
        byte[] command = in.readNBytes(len);
        if (command.length != len) throw new IOException("corrupt snapshot: truncated command");
        return new Committed(index, origin.isEmpty() ? null : NodeId.of(origin), requestId, session, command);
    }

    /** Failed attempts waiting for a copy, to re-send after a restart (every replica may; copies are deduplicated). */
    public void resendPending() {
        for (Slot s : new TreeMap<>(pendingRetries).values()) {
            stats.resends++;
            listener.resubmit(Multicast.encode(new Multicast.Tag(false, routeOf(s.payload).conservative(), s.entry.index()), s.payload));
        }
    }
}
