package io.tandem.cli;

import io.tandem.kv.client.KvTimeoutException;
import io.tandem.kv.client.TandemKvClient;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The demo's workload: client threads doing puts and gets over their own keys, recording what each
 * write's outcome was, so that afterwards every key can be read back and checked.
 *
 * <p>Each key belongs to one thread, so its writes are sequential and the expected final value is
 * exact: the value of the last acknowledged write, unless a write that failed (timed out, in doubt)
 * took effect, which may happen even after later writes (an in-doubt write may still sit in a
 * leader's queue). So the final value must be the last acknowledged one or one of the in-doubt ones;
 * anything else, including no value where a write was acknowledged, is a lost write. Reads during
 * the run are checked the same way. Every value carries its write's sequence number.
 */
final class DemoWorkload {
    record Settings(int clients, int keys, double writeRatio, int valueSize, long durationNanos, String runId, long seed) {}

    /** The result of reading back every key. */
    record Verification(int keysChecked, int keysWritten, int lost, int inDoubtApplied, int inDoubtNotApplied, List<String> problems) {}

    private final TandemKvClient client;
    private final Settings settings;
    private final Worker[] workers;
    final Recorder writeLatency = new Recorder(3);
    final Recorder readLatency = new Recorder(3);
    final Histogram writeTotal = new Histogram(3);
    final Histogram readTotal = new Histogram(3);
    final LongAdder writes = new LongAdder();
    final LongAdder reads = new LongAdder();
    final LongAdder failedWrites = new LongAdder();
    final LongAdder failedReads = new LongAdder();
    final LongAdder readAnomalies = new LongAdder();
    private final AtomicLong lastWriteAck = new AtomicLong();
    private final List<String> anomalies = new ArrayList<>();
    private long longestWriteGap;
    private long longestWriteGapEnd;
    private volatile long stopAt;

    DemoWorkload(TandemKvClient client, Settings settings) {
        this.client = client;
        this.settings = settings;
        this.workers = new Worker[settings.clients()];
        int per = Math.max(1, settings.keys() / settings.clients());
        for (int i = 0; i < workers.length; i++) workers[i] = new Worker(i, i * per, per, settings.seed() + i);
    }

    int keysInUse() {
        return workers.length * workers[0].keys;
    }

    /** Runs the workload on its threads until {@code durationNanos} passed; returns when all threads stopped. */
    void run() throws InterruptedException {
        long start = System.nanoTime();
        stopAt = start + settings.durationNanos();
        lastWriteAck.set(start);
        List<Thread> threads = new ArrayList<>();
        for (Worker w : workers) threads.add(Thread.ofPlatform().name("demo-client-" + w.index).start(w));
        for (Thread t : threads) t.join();
        synchronized (this) {
            writeTotal.add(writeLatency.getIntervalHistogram());
            readTotal.add(readLatency.getIntervalHistogram());
        }
    }

    /** Ends the run early (Ctrl-C). */
    void stop() {
        stopAt = System.nanoTime();
    }

    long operations() {
        return writes.sum() + reads.sum();
    }

    /** The longest time between two acknowledged writes, and when it ended (System.nanoTime). */
    synchronized long[] longestWriteGap() {
        return new long[] {longestWriteGap, longestWriteGapEnd};
    }

    synchronized List<String> anomalies() {
        return List.copyOf(anomalies);
    }

    /** Latencies recorded since the last call (for the progress line), merged into the totals. */
    synchronized Histogram[] drainIntervals() {
        Histogram w = writeLatency.getIntervalHistogram(), r = readLatency.getIntervalHistogram();
        writeTotal.add(w);
        readTotal.add(r);
        return new Histogram[] {w, r};
    }

    private void writeAcknowledged(long now) {
        long before = lastWriteAck.getAndAccumulate(now, Math::max);
        if (now - before > longestWriteGap) {
            synchronized (this) {
                if (now - before > longestWriteGap) {
                    longestWriteGap = now - before;
                    longestWriteGapEnd = now;
                }
            }
        }
    }

    private synchronized void anomaly(String what) {
        readAnomalies.increment();
        if (anomalies.size() < 10) anomalies.add(what);
    }

    /** Reads back every key (linearizable gets, as many in flight as the client allows) and compares it with what the writers know. */
    Verification verify() {
        int checked = 0, written = 0, lost = 0, applied = 0, notApplied = 0;
        List<String> problems = new ArrayList<>();
        long verifyDeadline = System.nanoTime() + VERIFY_TIMEOUT_NANOS;
        for (Worker w : workers) {
            List<CompletableFuture<Optional<byte[]>>> answers = new ArrayList<>();
            for (int k = 0; k < w.keys; k++) answers.add(client.getAsync(key(w.firstKey + k)));
            for (int k = 0; k < w.keys; k++) {
                Optional<byte[]> value = readBack(answers.get(k), key(w.firstKey + k), verifyDeadline);
                long found = value.map(DemoWorkload::sequenceOf).orElse(0L);
                long acked = w.acked[k];
                Set<Long> doubts = w.doubts.getOrDefault(k, Set.of());
                checked++;
                if (acked != 0) written++;
                if (found == acked) {
                    notApplied += doubts.size();
                    continue;
                }
                if (doubts.contains(found)) {
                    applied++;
                    notApplied += doubts.size() - 1;
                    continue;
                }
                lost++;
                if (problems.size() < 10) {
                    problems.add(new String(key(w.firstKey + k), StandardCharsets.UTF_8) + ": expected write #" + acked + (doubts.isEmpty() ? "" : " or one of " + doubts)
                            + ", found " + (found == 0 ? "no value" : "write #" + found));
                }
            }
        }
        return new Verification(checked, written, lost, applied, notApplied, problems);
    }

    /** How long the read-back may take in all: right after a failover on a busy machine single reads can time out. */
    private static final long VERIFY_TIMEOUT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(60);

    /**
     * The answer of a read-back, asking again when a read timed out: a timeout says nothing about the value, and
     * reads are idempotent. Only when the whole verification's deadline passed does the timeout propagate.
     */
    private Optional<byte[]> readBack(CompletableFuture<Optional<byte[]>> first, byte[] key, long deadline) {
        CompletableFuture<Optional<byte[]>> answer = first;
        while (true) {
            try {
                return answer.join();
            } catch (java.util.concurrent.CompletionException e) {
                if (!(e.getCause() instanceof KvTimeoutException) || System.nanoTime() > deadline) throw e;
                answer = client.getAsync(key);
            }
        }
    }

    private byte[] key(int k) {
        return String.format("demo/%s/%05d", settings.runId(), k).getBytes(StandardCharsets.UTF_8);
    }

    private byte[] value(long sequence) {
        byte[] v = new byte[Math.max(8, settings.valueSize())];
        Arrays.fill(v, (byte) '.');
        ByteBuffer.wrap(v).putLong(sequence);
        return v;
    }

    private static long sequenceOf(byte[] value) {
        return value.length < 8 ? -1 : ByteBuffer.wrap(value).getLong();
    }

    /** One client thread and the keys it owns. */
    private final class Worker implements Runnable {
        final int index;
        final int firstKey;
        final int keys;
        final long[] acked;
        final Map<Integer, Set<Long>> doubts = new HashMap<>();
        final SplittableRandom random;
        long sequence;

        Worker(int index, int firstKey, int keys, long seed) {
            this.index = index;
            this.firstKey = firstKey;
            this.keys = keys;
            this.acked = new long[keys];
            this.random = new SplittableRandom(seed);
        }

        @Override
        public void run() {
            while (System.nanoTime() - stopAt < 0) {
                int k = random.nextInt(keys);
                if (random.nextDouble() < settings.writeRatio()) write(k);
                else read(k);
            }
        }

        private void write(int k) {
            long seq = ((long) (index + 1) << 40) | ++sequence; // unique over all threads
            long start = System.nanoTime();
            try {
                client.put(key(firstKey + k), value(seq));
                long end = System.nanoTime();
                acked[k] = seq;
                writeLatency.recordValue(Math.max(1, (end - start) / 1_000));
                writes.increment();
                writeAcknowledged(end);
            } catch (RuntimeException e) {
                // A write that failed may still take effect, even later (timeouts are in doubt;
                // other errors are counted as in doubt too, which only makes the check more lenient).
                doubts.computeIfAbsent(k, x -> new HashSet<>()).add(seq);
                failedWrites.increment();
            }
        }

        private void read(int k) {
            long start = System.nanoTime();
            Optional<byte[]> value;
            try {
                value = client.get(key(firstKey + k));
            } catch (KvTimeoutException e) {
                failedReads.increment();
                return;
            } catch (RuntimeException e) {
                failedReads.increment();
                return;
            }
            readLatency.recordValue(Math.max(1, (System.nanoTime() - start) / 1_000));
            reads.increment();
            long found = value.map(DemoWorkload::sequenceOf).orElse(0L);
            if (found != acked[k] && !doubts.getOrDefault(k, Set.of()).contains(found)) {
                anomaly("read of " + new String(key(firstKey + k), StandardCharsets.UTF_8) + " returned " + (found == 0 ? "no value" : "write #" + found)
                        + ", expected write #" + acked[k]);
            }
        }
    }
}
