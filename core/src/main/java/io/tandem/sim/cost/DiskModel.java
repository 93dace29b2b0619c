package io.tandem.sim.cost;

import java.util.random.RandomGenerator;

/**
 * One node's disk: a flush of {@code bytes} takes a sampled fsync latency (measured on the real
 * storage) plus the bytes at the disk's write bandwidth, plus any extra latency. The simulated
 * storage keeps one flush in flight and the next covers everything queued meanwhile, so group
 * commit (and its growth under a slow disk) comes out of the queue, not from a constant. Slowness
 * changes the bandwidth (the {@code blkio.throttle.write_bps_device} kind) or adds latency.
 */
public final class DiskModel {
    private final Distribution fsync;
    private final double baseBytesPerSecond;
    private final RandomGenerator random;
    private double bytesPerSecond;
    private long recordNanos;
    private long extraNanos;
    private long flushes;
    private long bytesWritten;
    private long maxBatchBytes;
    private long busyNanos;
    private DiskDevice device;
    private Scheduler scheduler;

    public DiskModel(Distribution fsync, double bytesPerSecond, RandomGenerator random) {
        this.fsync = fsync;
        this.baseBytesPerSecond = bytesPerSecond;
        this.bytesPerSecond = bytesPerSecond;
        this.random = random;
    }

    /** Throttles writes to {@code bytesPerSecond} (0: back to the measured bandwidth). */
    public void setBandwidth(double bytesPerSecond) {
        if (bytesPerSecond < 0) throw new IllegalArgumentException("negative bandwidth");
        this.bytesPerSecond = bytesPerSecond == 0 ? baseBytesPerSecond : bytesPerSecond;
    }

    public void setExtraLatency(long nanos) {
        if (nanos < 0) throw new IllegalArgumentException("negative latency");
        this.extraNanos = nanos;
    }

    /**
     * Places this node's log on {@code device}, shared with the other nodes of its machine: its flushes then wait for the
     * device's commits ({@link #flush(long, Runnable)}) instead of drawing a latency of their own.
     */
    public void attachDevice(DiskDevice device, Scheduler scheduler) {
        this.device = device;
        this.scheduler = scheduler;
    }

    /** The device this node's log is on, or null (a disk of its own). */
    public DiskDevice device() {
        return device;
    }

    /**
     * One flush (write and fsync) of {@code bytes} on the shared device: the node's own write throttle first (the cgroup's
     * {@code blkio} limit acts before the device), then the device's next commit, then any extra latency; {@code done}
     * runs when it is durable. Needs {@link #attachDevice}.
     */
    public void flush(long bytes, Runnable done) {
        if (device == null) throw new IllegalStateException("no shared device: use flush(bytes) for a disk of its own");
        flushes++;
        bytesWritten += bytes;
        maxBatchBytes = Math.max(maxBatchBytes, bytes);
        long start = scheduler.now();
        long throttle = bytesPerSecond != baseBytesPerSecond && bytesPerSecond > 0 ? (long) Math.ceil(bytes * 1e9 / bytesPerSecond) : 0;
        Runnable durable = () -> {
            long end = scheduler.now() + extraNanos;
            busyNanos += end - start;
            if (extraNanos == 0) done.run();
            else scheduler.at(end, done);
        };
        if (throttle == 0) device.sync(bytes, durable);
        else scheduler.at(start + throttle, () -> device.sync(bytes, durable));
    }

    /**
     * The storage thread's time for each record of a batch beyond the first ({@code disk.record.ns}, {@link
     * CostTable#diskRecordNanos()}): a lone sync of one record is the measured {@code disk.fsync}; a batch of N takes the
     * node's storage thread (N - 1) x this longer, before it asks the device to sync (its own writes: the device is not
     * held meanwhile). 0: not modelled (tables before session 17).
     */
    public void setRecordNanos(long nanos) {
        if (nanos < 0) throw new IllegalArgumentException("negative time per record");
        this.recordNanos = nanos;
    }

    /** The storage thread's time for the records of a batch of {@code entries} beyond the first. */
    public long recordsTime(int entries) {
        return Math.max(0, entries - 1) * recordNanos;
    }

    /** A flush of a batch of {@code entries} records: {@link #recordsTime} on the node, then {@link #flush(long, Runnable)}. */
    public void flush(int entries, long bytes, Runnable done) {
        long records = recordsTime(entries);
        if (records == 0) flush(bytes, done);
        else scheduler.at(scheduler.now() + records, () -> flush(bytes, done));
    }

    /** The service time of one flush of a batch of {@code entries} records on a disk of its own: {@link #recordsTime} + {@link #flush(long)}. */
    public long flush(int entries, long bytes) {
        long records = recordsTime(entries);
        busyNanos += records;
        return records + flush(bytes);
    }

    /** The service time of one flush (write and fsync) of {@code bytes}. */
    public long flush(long bytes) {
        flushes++;
        bytesWritten += bytes;
        maxBatchBytes = Math.max(maxBatchBytes, bytes);
        long transfer = bytesPerSecond > 0 ? (long) Math.ceil(bytes * 1e9 / bytesPerSecond) : 0;
        long service = fsync.sample(random) + transfer + extraNanos;
        busyNanos += service;
        return service;
    }

    /** A read (or a write without fsync) of {@code bytes}: the transfer only, plus extra latency. */
    public long transfer(long bytes) {
        long service = (bytesPerSecond > 0 ? (long) Math.ceil(bytes * 1e9 / bytesPerSecond) : 0) + extraNanos;
        busyNanos += service;
        return service;
    }

    /**
     * Service time handed out so far (flushes and transfers). The storage keeps one flush in flight,
     * so over a window its growth divided by the window is the share of time the disk was busy: near
     * 1.0 the disk, not a CPU, limits the node (the bandwidth term grows with the bytes of a group
     * commit, so batching cannot hide it).
     */
    public long busyNanos() {
        return busyNanos;
    }

    public long flushes() {
        return flushes;
    }

    public long bytesWritten() {
        return bytesWritten;
    }

    public long maxBatchBytes() {
        return maxBatchBytes;
    }
}
