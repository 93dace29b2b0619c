package io.tandem.jmh.storage;

import io.tandem.storage.FlushPolicy;
import io.tandem.storage.LogEntry;
import io.tandem.storage.StorageOptions;
import io.tandem.storage.file.SegmentedLog;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * The segmented file log on its own, as the disk thread drives it: one operation appends
 * {@code batchSize} records of {@code recordBytes} and calls {@code sync()} once (group commit).
 * {@code flush} says whether that sync fsyncs; every result must be read with it. After the sync it calls
 * {@code prepareAhead()} as the disk thread does between rounds (with fsync: the zeros ahead of the data, fsync21).
 *
 * <p>{@code appendBatch} reports throughput (batches/s, plus records/s and bytes/s as secondary
 * counters); {@code appendBatchLatency} the latency distribution of one batch.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 4, time = 1)
public class LogAppendBenchmark {
    private static final long COMPACT_EVERY_BYTES = 256L << 20;

    @Param({"64", "1024"})
    int recordBytes;

    @Param({"1", "64"})
    int batchSize;

    @Param({"FSYNC", "NO_FSYNC"})
    FlushPolicy flush;

    private Path dir;
    private SegmentedLog log;
    private byte[] payload;
    private long next;
    private long bytesSinceCompaction;

    /** Secondary results: records and bytes made durable per second. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Written {
        public long records;
        public long bytes;

        @Setup(Level.Iteration)
        public void reset() {
            records = 0;
            bytes = 0;
        }
    }

    @Setup(Level.Trial)
    public void open() {
        dir = BenchDirs.create("tandem-log-bench");
        log = SegmentedLog.open(dir, flush, StorageOptions.DEFAULT_SEGMENT_BYTES);
        payload = new byte[recordBytes];
        new SplittableRandom(1).nextBytes(payload);
        next = 1;
    }

    @TearDown(Level.Trial)
    public void close() {
        log.close();
        BenchDirs.delete(dir);
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public long appendBatch(Written written) {
        long synced = appendAndSync();
        written.records += batchSize;
        written.bytes += (long) batchSize * recordBytes;
        return synced;
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long appendBatchLatency() {
        return appendAndSync();
    }

    private long appendAndSync() {
        for (int i = 0; i < batchSize; i++) log.append(new LogEntry(next++, 1, payload));
        long synced = log.sync();
        // As the disk thread does after posting a round's completions: with fsync, keep zeros ahead of the data.
        log.prepareAhead();
        // Keep the disk footprint bounded: drop whole old segments now and then, as snapshots would.
        bytesSinceCompaction += (long) batchSize * (recordBytes + 24);
        if (bytesSinceCompaction > COMPACT_EVERY_BYTES) {
            log.compactPrefix(log.lastIndex());
            bytesSinceCompaction = 0;
        }
        return synced;
    }
}
