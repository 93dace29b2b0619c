package io.tandem.storage;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.tandem.engine.NodeId;
import java.util.concurrent.TimeUnit;

/**
 * What the disk thread does, as Micrometer meters tagged with the node: how long each log sync
 * (fsync) takes, how many operations one group commit carries, what is appended. A slow disk shows
 * up here first (DESIGN §3: disk off the protocol loop, but measured). Updated only by the disk
 * thread; {@link #NONE} when no registry was given.
 */
final class StorageMetrics {
    static final StorageMetrics NONE = new StorageMetrics();

    private final Timer sync;
    private final DistributionSummary batchOps;
    private final Counter appendedEntries;
    private final Counter appendedBytes;
    private final Counter failures;

    private StorageMetrics() {
        sync = null;
        batchOps = null;
        appendedEntries = null;
        appendedBytes = null;
        failures = null;
    }

    private StorageMetrics(MeterRegistry registry, NodeId node, boolean fsync) {
        Tags tags = Tags.of("node", node.value());
        Timer.Builder syncTimer = Timer.builder("tandem.storage.sync").description("Time of one log sync (fsync with FSYNC, a flush to the page cache otherwise)")
                .tags(tags);
        // Percentiles only where a sync's tail means something (an fsync). Without fsync a sync is a copy into the page
        // cache on the engine loop, and the percentile histograms (a ring of three, each recorded into per sync) were
        // 3-5 % of a Raft loop's CPU samples at 16 clients (raft20); count, total and max stay.
        if (fsync) syncTimer.publishPercentiles(0.5, 0.99);
        sync = syncTimer.register(registry);
        batchOps = DistributionSummary.builder("tandem.storage.batch.ops").description("Operations made durable together by one group commit")
                .tags(tags).register(registry);
        appendedEntries = Counter.builder("tandem.storage.appended.entries").tags(tags).register(registry);
        appendedBytes = Counter.builder("tandem.storage.appended.bytes").baseUnit("bytes").tags(tags).register(registry);
        failures = Counter.builder("tandem.storage.failures").description("Storage failures (the node stops on the first)").tags(tags).register(registry);
    }

    static StorageMetrics of(MeterRegistry registry, NodeId node, boolean fsync) {
        return registry == null ? NONE : new StorageMetrics(registry, node, fsync);
    }

    void synced(long nanos) {
        if (sync != null) sync.record(nanos, TimeUnit.NANOSECONDS);
    }

    void batch(int ops) {
        if (batchOps != null) batchOps.record(ops);
    }

    void appended(LogEntry entry) {
        if (appendedEntries == null) return;
        appendedEntries.increment();
        appendedBytes.increment(entry.payload().length);
    }

    void failed() {
        if (failures != null) failures.increment();
    }
}
