package io.tandem.peers.driver;

import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Closed-loop write load on any {@link PeerClient}: {@code clients} independent clients, each putting a
 * random key of a fixed key space with a {@code valueSize}-byte value and issuing its next put only when
 * the previous one completed (YCSB's model, and what the peers' own benchmarks do). Latencies of
 * successful puts are recorded in microseconds; a failed put is counted and its client waits
 * {@link #ERROR_PAUSE_MILLIS} before the next one, so an unavailable cluster is not hammered.
 *
 * <p>Completions may run on the system's own threads; the next put is issued from there, which is how an
 * asynchronous client is meant to be driven. Adapters whose API is blocking run their own threads.
 */
public final class ClosedLoopDriver implements AutoCloseable {
    static final long ERROR_PAUSE_MILLIS = 20;

    private final PeerClient client;
    private final int clients;
    private final int keys;
    private final int valueSize;
    private final long seed;
    private final Recorder latencies = new Recorder(3);
    private final AtomicLong errors = new AtomicLong();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final ScheduledExecutorService retryTimer =
            Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon(true).name("load-retry").unstarted(r));
    private volatile Throwable lastError;
    private volatile boolean running;

    public ClosedLoopDriver(PeerClient client, int clients, int keys, int valueSize, long seed) {
        if (clients < 1 || keys < 1 || valueSize < 0) throw new IllegalArgumentException("clients and keys must be >= 1, value size >= 0");
        this.client = client;
        this.clients = clients;
        this.keys = keys;
        this.valueSize = valueSize;
        this.seed = seed;
    }

    /** One closed-loop client: its own random keys and value bytes. */
    private final class Worker {
        private final SplittableRandom random;
        private final byte[] value = new byte[valueSize];

        Worker(SplittableRandom random) {
            this.random = random;
            random.nextBytes(value);
        }

        void next() {
            if (!running) return;
            byte[] key = key(random.nextInt(keys));
            if (value.length > 0) value[random.nextInt(value.length)] ^= 1; // a different value each time, same size
            long start = System.nanoTime();
            outstanding.incrementAndGet();
            java.util.concurrent.CompletableFuture<?> put;
            try {
                put = client.put(key, value);
            } catch (RuntimeException e) {
                put = java.util.concurrent.CompletableFuture.failedFuture(e);
            }
            // A put that completed inside put() (a fast failure) must not issue the next one on this stack.
            java.util.function.BiConsumer<Object, Throwable> done = (ignored, failure) -> {
                outstanding.decrementAndGet();
                if (failure == null) {
                    latencies.recordValue(Math.max(1, (System.nanoTime() - start) / 1000));
                    next();
                } else {
                    errors.incrementAndGet();
                    lastError = failure;
                    if (running) retryTimer.schedule(this::next, ERROR_PAUSE_MILLIS, TimeUnit.MILLISECONDS);
                }
            };
            if (put.isDone()) put.whenCompleteAsync(done, Thread::startVirtualThread);
            else put.whenComplete(done);
        }
    }

    /** {@code key} followed by the index in 8 decimal digits: 11 bytes, ordered as the index. */
    public static byte[] key(int index) {
        byte[] k = {'k', 'e', 'y', '0', '0', '0', '0', '0', '0', '0', '0'};
        for (int i = k.length - 1, v = index; i >= 3 && v > 0; i--, v /= 10) k[i] = (byte) ('0' + v % 10);
        return k;
    }

    public void start() {
        running = true;
        SplittableRandom root = new SplittableRandom(seed);
        for (int i = 0; i < clients; i++) {
            Worker worker = new Worker(root.split());
            Thread.ofVirtual().name("load-start-" + i).start(worker::next);
        }
    }

    /** Latencies (µs) of the puts completed since the previous call. */
    public Histogram intervalHistogram() {
        return latencies.getIntervalHistogram();
    }

    public long errors() {
        return errors.get();
    }

    public int outstanding() {
        return outstanding.get();
    }

    /** The most recent failure, for a diagnostic line; {@code null} if none. */
    public Throwable lastError() {
        return lastError;
    }

    /** Stops issuing puts; outstanding ones complete or fail on their own. */
    @Override
    public void close() {
        running = false;
        retryTimer.shutdownNow();
    }
}
