package io.tandem.jmh.storage;

import io.tandem.engine.NodeId;
import io.tandem.storage.FlushPolicy;
import io.tandem.storage.LogEntry;
import io.tandem.storage.NodeStorage;
import io.tandem.storage.StorageEvent;
import io.tandem.storage.StorageOptions;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The whole storage pipeline as an engine sees it: append {@code batchSize} records through the
 * engine-facing log of {@link NodeStorage}, then wait until the disk thread reports them durable
 * ({@code LogSynced}). Adds the queue hand-off and the event hop to {@link LogAppendBenchmark}.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 4, time = 1)
public class NodeStorageAppendBenchmark {
    private static final long COMPACT_EVERY_RECORDS = 100_000;
    private static final long MAX_NOT_DURABLE = 4096;

    @Param({"64", "1024"})
    int recordBytes;

    @Param({"1", "64"})
    int batchSize;

    @Param({"FSYNC", "NO_FSYNC"})
    FlushPolicy flush;

    private Path dir;
    private NodeStorage storage;
    private byte[] payload;
    private volatile long durable;
    private volatile Thread waiter;
    private long sinceCompaction;

    @Setup(Level.Trial)
    public void open() {
        dir = BenchDirs.create("tandem-node-bench");
        storage = NodeStorage.open(dir, "bench", NodeId.of("n1"), StorageOptions.of(flush), this::onEvent,
                (snapshot, data) -> CompletableFuture.failedFuture(new IllegalStateException("no installs")));
        payload = new byte[recordBytes];
        new SplittableRandom(1).nextBytes(payload);
    }

    private void onEvent(StorageEvent event) {
        if (event instanceof StorageEvent.LogSynced synced) {
            durable = synced.durableIndex();
            Thread t = waiter;
            if (t != null) LockSupport.unpark(t);
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        storage.close();
        BenchDirs.delete(dir);
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public long appendBatchAndAwaitDurable() {
        return appendAndAwait();
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long appendBatchAndAwaitDurableLatency() {
        return appendAndAwait();
    }

    /**
     * The engine loop's side of the hand-off (issue 25): append {@code batchSize} records and go on
     * without waiting, as the leader's loop does, while the disk thread writes them concurrently; wait
     * only when more than {@link #MAX_NOT_DURABLE} records are not yet durable (so a slower disk
     * bounds the queue). One op is one batch.
     */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public long appendBatchStreaming() {
        var log = storage.log();
        long last = log.lastIndex();
        for (int i = 0; i < batchSize; i++) log.append(new LogEntry(++last, 1, payload));
        if (last - durable > MAX_NOT_DURABLE) {
            long target = last - MAX_NOT_DURABLE / 2;
            waiter = Thread.currentThread();
            while (durable < target) LockSupport.park(this);
            waiter = null;
        }
        compactNowAndThen(log, last);
        return last;
    }

    private void compactNowAndThen(io.tandem.storage.DurableLog log, long last) {
        sinceCompaction += batchSize;
        if (sinceCompaction >= COMPACT_EVERY_RECORDS) {
            log.compactPrefix(Math.min(last, durable));
            sinceCompaction = 0;
        }
    }

    private long appendAndAwait() {
        var log = storage.log();
        long last = log.lastIndex();
        for (int i = 0; i < batchSize; i++) log.append(new LogEntry(++last, 1, payload));
        waiter = Thread.currentThread();
        while (durable < last) LockSupport.park(this);
        waiter = null;
        sinceCompaction += batchSize;
        if (sinceCompaction >= COMPACT_EVERY_RECORDS) { // the engine view keeps the log in memory: trim it as snapshots would
            log.compactPrefix(last);
            sinceCompaction = 0;
        }
        return last;
    }
}
