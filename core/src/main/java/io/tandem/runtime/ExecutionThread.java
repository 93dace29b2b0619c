package io.tandem.runtime;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.execution.Executor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.LongConsumer;
import java.util.function.Predicate;
import org.jctools.queues.MpscUnboundedXaddArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an {@link Executor} on its own thread, never on the protocol loop (DESIGN §2): the loop hands
 * it entries and reads, and learns of progress through {@code appliedListener} once per batch. The
 * executor is the same one the simulator drives directly; only the thread is the runtime's.
 */
final class ExecutionThread implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ExecutionThread.class);

    sealed interface Task {}

    record Apply(Committed entry) implements Task {}

    /**
     * The entries the engine delivered during one loop turn, in order: one hand-off (one queue lock,
     * at most one wake-up) per turn instead of one per entry.
     */
    record ApplyAll(List<Committed> entries) implements Task {}

    record Read(long requestId, long afterIndex, byte[] query) implements Task {}

    /**
     * Requests that arrived on the loop: each one still {@code waiting} whose command already executed here is
     * handed to {@code found} with its cached result, once the batch this task came in is applied. One that is no
     * longer waiting is not looked up (see {@link #answerLookups}).
     */
    record Lookup(List<ClientRequest> requests, Predicate<ClientRequest> waiting, BiConsumer<ClientRequest, byte[]> found) implements Task {}

    /** Runs {@code action} on the execution thread between commands (snapshots, restores). */
    record Exclusive(Runnable action) implements Task {}

    private record Stop() implements Task {}

    private final String node;
    private final Executor executor;
    private final LongConsumer appliedListener;
    private final Runnable onFailure;
    /**
     * Tasks from the loop (the entries delivered in one loop turn as one {@link ApplyAll}), the disk
     * thread and callers. A lock-free queue with a wake-up only when the thread is parked (issue 25):
     * the loop hands entries over without taking a lock or signalling a condition, and a busy
     * execution thread is never woken.
     */
    private final MpscUnboundedXaddArrayQueue<Task> tasks = new MpscUnboundedXaddArrayQueue<>(1024);
    /** Set by the execution thread just before it parks (Dekker-style with {@link #submit}: see there). */
    private volatile boolean parked;
    private final Thread thread;
    /** Lookups of the batch being run (execution thread only): answered after its flush. */
    private final List<Lookup> lookups = new ArrayList<>();
    private volatile Throwable failure;

    ExecutionThread(String node, Executor executor, LongConsumer appliedListener, Runnable onFailure) {
        this.node = node;
        this.executor = executor;
        this.appliedListener = appliedListener;
        this.onFailure = onFailure;
        this.thread = Thread.ofPlatform().name("tandem-exec-" + node).daemon(true).unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    /**
     * Queues {@code task}; wakes the thread only if it parked. No wake-up is lost: the thread sets
     * {@code parked} before it checks the queue a last time, and a submitter offers before it reads
     * {@code parked}; both are volatile accesses, so at least one of them sees the other's write.
     */
    void submit(Task task) {
        tasks.offer(task);
        if (parked) LockSupport.unpark(thread);
    }

    /**
     * Queues {@code task} without waking the thread: it runs when the thread next wakes for another
     * task (it drains the whole queue), or after {@link #wake}. The caller must make sure one of the two
     * happens; {@link NodeRuntime} wakes it at most {@code LOOKUP_WAKE_NANOS} later.
     */
    void submitQuietly(Task task) {
        tasks.offer(task);
    }

    /** Wakes the thread if it parked (for tasks queued by {@link #submitQuietly}; see {@link #submit} for why none is missed). */
    void wake() {
        if (parked) LockSupport.unpark(thread);
    }

    Executor executor() {
        return executor;
    }

    long appliedIndex() {
        return executor.appliedIndex();
    }

    Throwable failure() {
        return failure;
    }

    private void run() {
        try {
            // One batch per call (follow24): a loop that never returns is compiled only by on-stack replacement, which
            // the JIT reached late or never in a benchmark's 30-40 s; a method called once per batch is compiled early.
            while (batch()) {
                // the next batch
            }
        } catch (Throwable e) {
            failure = e;
            log.error("execution on {} stopped: the state machine threw at index {}; this node can no longer apply commands", node, executor.appliedIndex() + 1, e);
            onFailure.run();
        }
    }

    /**
     * Runs the tasks queued now, parking first if there is none, then ends the batch and reports progress once.
     * False once stopped.
     */
    private boolean batch() {
        Task t = take();
        if (t instanceof Stop) return false;
        handle(t);
        // Drain without blocking, then end the batch and report progress once.
        for (Task next; (next = tasks.poll()) != null; ) {
            if (next instanceof Stop) return false;
            handle(next);
        }
        executor.flush();
        answerLookups();
        appliedListener.accept(executor.appliedIndex());
        return true;
    }

    /** The next task, parking while there is none (spurious wake-ups just look again); Stop once interrupted. */
    private Task take() {
        while (true) {
            Task t = tasks.poll();
            if (t != null) return t;
            if (Thread.currentThread().isInterrupted()) return new Stop();
            parked = true;
            try {
                if (tasks.isEmpty()) LockSupport.park(this);
            } finally {
                parked = false;
            }
        }
    }

    /**
     * After a flush, so the session table holds every entry handed over before the lookup: a command
     * that ran before its request arrived is found here; one that runs later completes the request
     * itself (the runtime registered the request before it asked for the lookup). Neither races the other.
     *
     * <p>A request no longer waiting is skipped before the table is read (hot24): on a busy leader the quiet
     * lookup runs after the batch that executed the request's own command, which has answered it already, so
     * nearly every lookup found a result, encoded it (a new array per put) and handed it to {@code found}, which
     * dropped it. Skipping gives the same answers: {@code found} of a request that is not waiting does nothing
     * (its first step takes the request, and gets nothing), and a request answered between this test and
     * {@code found} is dropped there as before. The simulator's lookup tests the same first ({@code SimNode}).
     */
    private void answerLookups() {
        for (Lookup l : lookups) {
            for (ClientRequest r : l.requests()) {
                if (!l.waiting().test(r)) continue;
                byte[] result = executor.executedResult(r.session());
                if (result != null) l.found().accept(r, result);
            }
        }
        lookups.clear();
    }

    private void handle(Task t) {
        switch (t) {
            case Apply a -> executor.apply(a.entry());
            case ApplyAll all -> {
                for (Committed e : all.entries()) executor.apply(e);
            }
            case Lookup l -> lookups.add(l);
            case Read r -> executor.read(r.requestId(), r.afterIndex(), r.query());
            case Exclusive x -> {
                executor.flush();
                answerLookups();
                // The batch so far ends here: its answers (which a server may hold until the batch ends) do not wait
                // for the action (a snapshot may take long).
                appliedListener.accept(executor.appliedIndex());
                x.action().run();
            }
            case Stop s -> throw new IllegalStateException("unreachable");
        }
    }

    @Override
    public void close() {
        submit(new Stop());
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // A parallel executor owns worker threads of its own.
        if (executor instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                log.warn("closing the executor of {} failed", node, e);
            }
        }
    }
}
