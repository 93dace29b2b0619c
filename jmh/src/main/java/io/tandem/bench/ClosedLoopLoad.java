package io.tandem.bench;

import io.tandem.kv.client.TandemKvClient;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Closed-loop write load: {@code clients} independent clients, each putting a random key of a
 * fixed key space with a {@code valueSize}-byte value and sending its next put only when the
 * previous one has completed (as YCSB's threads do in the thesis). Latencies of successful puts go
 * into an HdrHistogram {@link Recorder} in microseconds; failed puts are counted and the client
 * pauses briefly before its next one, so an unavailable cluster is not hammered.
 *
 * <p>All clients share one {@link TandemKvClient} (one connection to the leader, each put in its own
 * session); completions run on its event loop, which issues the next put directly.
 */
final class ClosedLoopLoad implements AutoCloseable {
    private static final long ERROR_PAUSE_MILLIS = 20;

    private final TandemKvClient client;
    private final int clients;
    private final int keys;
    private final int valueSize;
    private final long seed;
    private final Recorder latencies = new Recorder(3);
    private final AtomicLong errors = new AtomicLong();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final ScheduledExecutorService retryTimer =
            Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon(true).name("load-retry").unstarted(r));
    private volatile boolean running;

    ClosedLoopLoad(TandemKvClient client, int clients, int keys, int valueSize, long seed) {
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
            value[random.nextInt(Math.max(1, value.length))] ^= 1; // a different value each time, same size
            long start = System.nanoTime();
            outstanding.incrementAndGet();
            client.putAsync(key, value.length == 0 ? new byte[0] : value.clone()).whenComplete((previous, failure) -> {
                outstanding.decrementAndGet();
                if (failure == null) {
                    latencies.recordValue(Math.max(1, (System.nanoTime() - start) / 1000));
                    next();
                } else {
                    errors.incrementAndGet();
                    if (running) retryTimer.schedule(this::next, ERROR_PAUSE_MILLIS, TimeUnit.MILLISECONDS);
                }
            });
        }
    }

    /** {@code key} followed by the index in 8 decimal digits: 11 bytes, in the same order as the index. */
    static byte[] key(int index) {
        byte[] k = {'k', 'e', 'y', '0', '0', '0', '0', '0', '0', '0', '0'};
        for (int i = k.length - 1, v = index; i >= 3 && v > 0; i--, v /= 10) k[i] = (byte) ('0' + v % 10);
        return k;
    }

    void start() {
        running = true;
        SplittableRandom root = new SplittableRandom(seed);
        for (int i = 0; i < clients; i++) new Worker(root.split()).next();
    }

    /** The latencies (µs) of the puts completed since the previous call. */
    Histogram takeInterval() {
        return latencies.getIntervalHistogram();
    }

    /** Puts that failed (timed out or were rejected) since the start. */
    long errors() {
        return errors.get();
    }

    /** Stops issuing puts and waits up to {@code drainMillis} for the outstanding ones. */
    void stop(long drainMillis) throws InterruptedException {
        running = false;
        long deadline = System.nanoTime() + drainMillis * 1_000_000;
        while (outstanding.get() > 0 && System.nanoTime() < deadline) Thread.sleep(10);
        retryTimer.shutdownNow();
    }

    @Override
    public void close() {
        running = false;
        retryTimer.shutdownNow();
    }
}
