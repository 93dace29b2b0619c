package io.tandem.runtime;

import io.tandem.engine.Committed;
import io.tandem.execution.Executor;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.LongConsumer;
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

    record Read(long requestId, long afterIndex, byte[] query) implements Task {}

    /** Runs {@code action} on the execution thread between commands (snapshots, restores). */
    record Exclusive(Runnable action) implements Task {}

    private record Stop() implements Task {}

    private final String node;
    private final Executor executor;
    private final LongConsumer appliedListener;
    private final Runnable onFailure;
    private final BlockingQueue<Task> tasks = new LinkedBlockingQueue<>();
    private final Thread thread;
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

    void submit(Task task) {
        tasks.add(task);
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
            while (true) {
                Task t = tasks.take();
                if (t instanceof Stop) return;
                handle(t);
                // Drain without blocking, then end the batch and report progress once.
                for (Task next; (next = tasks.poll()) != null; ) {
                    if (next instanceof Stop) return;
                    handle(next);
                }
                executor.flush();
                appliedListener.accept(executor.appliedIndex());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            failure = e;
            log.error("execution on {} stopped: the state machine threw at index {}; this node can no longer apply commands", node, executor.appliedIndex() + 1, e);
            onFailure.run();
        }
    }

    private void handle(Task t) {
        switch (t) {
            case Apply a -> executor.apply(a.entry());
            case Read r -> executor.read(r.requestId(), r.afterIndex(), r.query());
            case Exclusive x -> {
                executor.flush();
                x.action().run();
            }
            case Stop s -> throw new IllegalStateException("unreachable");
        }
    }

    @Override
    public void close() {
        tasks.add(new Stop());
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
