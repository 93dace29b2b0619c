package io.tandem.runtime;

import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import io.tandem.statemachine.StateMachine;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.PriorityQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies ordered commands to the {@link StateMachine} on its own thread, never on the protocol
 * loop (DESIGN §2). Commands apply strictly in index order with exactly-once sessions; reads wait
 * until the index they need is applied. Completes the futures of requests that originated on this
 * node; every other replica applies the same command silently.
 */
final class ExecutionStage implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ExecutionStage.class);
    private static final int SNAPSHOT_FORMAT = 1;

    sealed interface Task {}

    record Apply(Committed entry) implements Task {}

    record Read(long requestId, long afterIndex, byte[] query) implements Task {}

    /** Runs {@code action} on the execution thread between commands (snapshots, restores). */
    record Exclusive(Runnable action) implements Task {}

    private record Stop() implements Task {}

    private record WaitingRead(long requestId, long afterIndex, byte[] query) {}

    private final NodeId self;
    private final StateMachine stateMachine;
    private final PendingRequests pending;
    private final LongConsumer appliedListener;
    private final SessionTable sessions;
    private final BlockingQueue<Task> tasks = new LinkedBlockingQueue<>();
    private final PriorityQueue<WaitingRead> waitingReads = new PriorityQueue<>((a, b) -> Long.compare(a.afterIndex, b.afterIndex));
    private final Thread thread;
    private final RuntimeMetrics metrics;
    private volatile long appliedIndex;
    private volatile Throwable failure;

    ExecutionStage(NodeId self, StateMachine stateMachine, PendingRequests pending, int maxSessions, RuntimeMetrics metrics, LongConsumer appliedListener) {
        this.self = self;
        this.stateMachine = stateMachine;
        this.pending = pending;
        this.sessions = new SessionTable(maxSessions);
        this.metrics = metrics;
        this.appliedListener = appliedListener;
        this.thread = Thread.ofPlatform().name("tandem-exec-" + self).daemon(true).unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    void submit(Task task) {
        tasks.add(task);
    }

    long appliedIndex() {
        return appliedIndex;
    }

    Throwable failure() {
        return failure;
    }

    private void run() {
        try {
            while (true) {
                Task t = tasks.take();
                if (t instanceof Stop) return;
                handle(t);
                // Drain without blocking, then report progress once per batch.
                for (Task next; (next = tasks.poll()) != null; ) {
                    if (next instanceof Stop) return;
                    handle(next);
                }
                serveWaitingReads();
                appliedListener.accept(appliedIndex);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            failure = e;
            log.error("execution on {} stopped: the state machine threw at index {}; this node can no longer apply commands", self, appliedIndex + 1, e);
            pending.failAll(new io.tandem.api.TandemException("execution failed on " + self + ": " + e, e));
        }
    }

    private void handle(Task t) {
        switch (t) {
            case Apply a -> apply(a.entry());
            case Read r -> {
                if (r.afterIndex() <= appliedIndex) answerRead(r.requestId(), r.query());
                else waitingReads.add(new WaitingRead(r.requestId(), r.afterIndex(), r.query()));
            }
            case Exclusive x -> x.action().run();
            case Stop s -> throw new IllegalStateException("unreachable");
        }
    }

    private void apply(Committed entry) {
        long index = entry.index();
        if (index <= appliedIndex) return; // re-delivered after an engine restart: already applied
        if (index != appliedIndex + 1) {
            throw new IllegalStateException("engine delivered index " + index + " after " + appliedIndex + ": a gap in the order");
        }
        byte[] result = null;
        Throwable error = null;
        if (!entry.isNoop()) {
            var session = entry.session();
            SessionTable.Decision decision = session.isNone() ? SessionTable.APPLY : sessions.decide(session.clientId(), session.sequence());
            switch (decision) {
                case SessionTable.Decision.Apply ignored -> {
                    result = stateMachine.apply(index, entry.command());
                    if (!session.isNone()) sessions.record(session.clientId(), session.sequence(), result);
                    metrics.applied.increment();
                }
                case SessionTable.Decision.Duplicate d -> {
                    result = d.cachedResult();
                    metrics.duplicates.increment();
                }
                case SessionTable.Decision.Stale s -> error = new io.tandem.api.TandemException(
                        "command of client " + session.clientId() + " with sequence " + session.sequence() + " is older than the last applied sequence " + s.lastApplied());
            }
        }
        appliedIndex = index;
        if (self.equals(entry.origin())) {
            PendingRequests.Pending p = pending.take(entry.requestId());
            if (p != null) {
                metrics.recordLatency(p);
                if (error != null) p.future().completeExceptionally(error);
                else p.future().complete(result == null ? new byte[0] : result);
            }
        }
    }

    private void serveWaitingReads() {
        while (!waitingReads.isEmpty() && waitingReads.peek().afterIndex <= appliedIndex) {
            WaitingRead r = waitingReads.poll();
            answerRead(r.requestId, r.query);
        }
    }

    private void answerRead(long requestId, byte[] query) {
        PendingRequests.Pending p = pending.take(requestId);
        if (p == null) return; // timed out meanwhile
        byte[] result;
        try {
            result = stateMachine.query(query);
        } catch (RuntimeException e) {
            p.future().completeExceptionally(e);
            return;
        }
        metrics.recordLatency(p);
        p.future().complete(result == null ? new byte[0] : result);
    }

    /** Writes the session table and the state machine; call on the execution thread (an {@link Exclusive} task). */
    void writeSnapshot(OutputStream out) throws IOException {
        DataOutputStream data = new DataOutputStream(out);
        data.writeInt(SNAPSHOT_FORMAT);
        data.writeLong(appliedIndex);
        sessions.writeTo(data);
        data.flush();
        stateMachine.snapshot(out);
    }

    /** Replaces the state with a snapshot; call on the execution thread (an {@link Exclusive} task). */
    void restoreSnapshot(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int format = data.readInt();
        if (format != SNAPSHOT_FORMAT) throw new IOException("unknown snapshot format " + format + " (this build reads " + SNAPSHOT_FORMAT + ")");
        long index = data.readLong();
        sessions.readFrom(data);
        stateMachine.restore(in);
        appliedIndex = index;
    }

    @Override
    public void close() {
        tasks.add(new Stop());
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
