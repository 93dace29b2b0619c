package io.tandem.jepsen.generator;

import io.tandem.history.Keyword;
import io.tandem.history.Op;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Jepsen's process model (verification.md §2.2, {@code jepsen.generator.interpreter}) over real threads.
 *
 * <ul>
 *   <li>Threads {@code 0..c-1}; thread {@code t} talks to node {@code t mod n}; its first process is
 *       {@code t}.</li>
 *   <li>A process is single-threaded: it invokes, then completes, strictly alternating.</li>
 *   <li>An operation that ends {@code :info} (the client said so, threw, or did not answer within the
 *       operation timeout) crashes its process: the client is closed and the thread continues as
 *       process {@code p + c} with a new client, opened lazily.</li>
 *   <li>A client that cannot be opened completes the op with {@code :fail [:no-client msg]}.</li>
 * </ul>
 *
 * The interpreter runs phases (the fault phase, then the final reads) over the same threads, so
 * process numbers carry on from one phase to the next as they do in Jepsen.
 */
public final class Interpreter implements AutoCloseable {
    private static final Keyword NO_CLIENT = Keyword.of("no-client");
    private static final Keyword TIMEOUT = Keyword.of("timeout");

    private final int concurrency;
    private final int nodes;
    private final JepsenClient.Factory clients;
    private final Recorder recorder;
    private final Duration opTimeout;
    private final List<Worker> workers = new ArrayList<>();
    private volatile boolean aborted;

    /**
     * @param seed the run's seed; each thread's random choices come from a generator split from it
     */
    public Interpreter(int concurrency, int nodes, JepsenClient.Factory clients, Recorder recorder, Duration opTimeout, long seed) {
        if (concurrency < 1 || nodes < 1) throw new IllegalArgumentException("concurrency and nodes must be positive");
        this.concurrency = concurrency;
        this.nodes = nodes;
        this.clients = clients;
        this.recorder = recorder;
        this.opTimeout = opTimeout;
        SplittableRandom root = new SplittableRandom(seed);
        for (int t = 0; t < concurrency; t++) workers.add(new Worker(t, root.split()));
    }

    public int concurrency() {
        return concurrency;
    }

    /**
     * Runs a phase: every thread takes operations from {@code source} (at the times {@code stagger}
     * schedules, if given) until the source has nothing more for it or {@code deadlineNanos} (in
     * {@link System#nanoTime()}) passes; operations in flight at the deadline are waited for. Returns
     * when every thread is done.
     */
    public void run(OpSource source, Stagger stagger, long deadlineNanos) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (Worker w : workers) {
            threads.add(Thread.ofPlatform().name("jepsen-worker-" + w.thread).start(() -> w.runPhase(source, stagger, deadlineNanos)));
        }
        for (Thread t : threads) t.join();
        for (Worker w : workers) {
            if (w.failure != null) throw new IllegalStateException("client thread " + w.thread + " failed", w.failure);
        }
    }

    /** Stops every phase early: threads finish their current operation and take no new one. */
    public void abort() {
        aborted = true;
    }

    /** The current process of each thread. */
    public Map<Integer, Long> processes() {
        Map<Integer, Long> out = new LinkedHashMap<>();
        for (Worker w : workers) out.put(w.thread, w.process);
        return out;
    }

    /** Closes every open client. */
    @Override
    public void close() {
        List<Thread> closers = new ArrayList<>();
        for (Worker w : workers) {
            JepsenClient c = w.client;
            w.client = null;
            if (c != null) closers.add(Thread.ofVirtual().start(c::close));
        }
        for (Thread t : closers) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private final class Worker {
        final int thread;
        final SplittableRandom random;
        volatile long process;
        volatile JepsenClient client;
        volatile Throwable failure;

        Worker(int thread, SplittableRandom random) {
            this.thread = thread;
            this.random = random;
            this.process = thread;
        }

        void runPhase(OpSource source, Stagger stagger, long deadline) {
            try {
                while (!aborted && System.nanoTime() < deadline) {
                    Invocation inv = source.next(thread, process, random);
                    if (inv == null) return;
                    if (stagger != null) {
                        long at = stagger.schedule(System.nanoTime(), random);
                        if (at >= deadline) return; // time-limit: an op scheduled past the limit is never emitted
                        sleepUntil(at);
                    }
                    Op.Type outcome = perform(inv);
                    source.completed(thread, inv, outcome);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException | Error e) {
                failure = e;
            }
        }

        private Op.Type perform(Invocation inv) throws InterruptedException {
            long p = process;
            if (client == null) {
                try {
                    client = clients.open(p, thread % nodes + 1);
                } catch (Exception e) {
                    recorder.invoke(p, inv);
                    recorder.complete(p, Completion.fail(inv.value(), List.of(NO_CLIENT, String.valueOf(e.getMessage()))));
                    return Op.Type.FAIL;
                }
            }
            recorder.invoke(p, inv);
            Completion c;
            CompletableFuture<Completion> future;
            try {
                future = client.invoke(inv);
            } catch (RuntimeException e) {
                future = CompletableFuture.failedFuture(e);
            }
            try {
                c = future.get(opTimeout.toNanos(), TimeUnit.NANOSECONDS);
                if (c == null) c = Completion.info(inv.value(), "indeterminate: the client returned no completion");
            } catch (TimeoutException e) {
                c = Completion.info(inv.value(), List.of(TIMEOUT, "no completion within " + opTimeout.toMillis() + " ms"));
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                c = Completion.info(inv.value(), "indeterminate: " + cause);
            }
            recorder.complete(p, c);
            if (c.type() == Op.Type.INFO) crash();
            return c.type();
        }

        /** The process is dead: its client goes, and the thread continues as a new process. */
        private void crash() {
            JepsenClient old = client;
            client = null;
            process += concurrency;
            if (old != null) Thread.ofVirtual().start(old::close); // closing may wait for the connection; don't hold up the thread
        }

        private static void sleepUntil(long at) throws InterruptedException {
            long wait;
            while ((wait = at - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
                if (Thread.interrupted()) throw new InterruptedException();
            }
        }
    }
}
