package io.tandem.bench.sim;

import io.tandem.sim.cost.CostTable;
import io.tandem.sim.cost.Distribution;
import java.io.IOException;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Arrays;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Samples the disk's sync latency <em>while</em> a real benchmark runs, on the filesystem it writes to, and writes a cost
 * table whose {@code disk.fsync} is that distribution (issue 18, validation). On this shared VM the fsync distribution
 * moves by an order of magnitude within minutes with the other processes' writes (p50 from 76 µs to 2 ms between two
 * runs a few minutes apart), so a disk measured before or after a run models another disk than the one the run had;
 * the disk is an input of the model (the machine's state), the code's costs are what the validation checks.
 *
 * <p>Each sample appends one 128-byte record to a growing file and forces it without metadata ({@code force(false)},
 * fdatasync), as the log's {@code SegmentedLog} does per group commit (with {@code --no-sync}, the write alone: the
 * storage's flush when fsync is off, which the model's disk then stands for); between samples it sleeps {@code --interval-us}
 * (default 5 ms: 200 syncs/s, a small load beside the thousands the servers issue). It stops after {@code --seconds} or
 * when the file named by {@code --stop-file} appears, then writes {@code --out}: the {@code --base} table with
 * {@code disk.fsync} replaced.
 *
 * <pre>java -cp benchmarks.jar io.tandem.bench.sim.FsyncProbe --dir D --base BASE --out OUT [--seconds S | --stop-file F] [--interval-us N] [--no-sync]</pre>
 */
public final class FsyncProbe {
    private FsyncProbe() {}

    public static void main(String[] args) throws Exception {
        Path dir = null;
        Path base = null;
        Path out = null;
        Path stopFile = null;
        double seconds = 3600;
        long intervalUs = 5_000;
        boolean sync = true;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dir" -> dir = Path.of(args[++i]);
                case "--base" -> base = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--stop-file" -> stopFile = Path.of(args[++i]);
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--interval-us" -> intervalUs = Long.parseLong(args[++i]);
                case "--no-sync" -> sync = false;
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (--dir D --base BASE --out OUT [--seconds S] [--stop-file F] [--interval-us N])");
            }
        }
        if (dir == null || base == null || out == null) throw new IllegalArgumentException("--dir, --base and --out are required");
        if (intervalUs < 0 || seconds <= 0) throw new IllegalArgumentException("--interval-us must be >= 0 and --seconds > 0");
        Files.createDirectories(dir);
        CostTable baseTable = CostTable.read(base);
        String start = Instant.now().toString();
        String loadBefore = loadavg();
        long[] samples = new long[1 << 16];
        int n = 0;
        Path file = Files.createTempFile(dir, "fsync-probe-", ".log");
        ByteBuffer record = ByteBuffer.allocateDirect(128);
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            while (System.nanoTime() < deadline && (stopFile == null || !Files.exists(stopFile))) {
                record.clear();
                long t0 = System.nanoTime();
                ch.write(record);
                if (sync) ch.force(false);
                long t = System.nanoTime() - t0;
                if (n == samples.length) samples = Arrays.copyOf(samples, n * 2);
                samples[n++] = t;
                if (intervalUs > 0) LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(intervalUs));
            }
        } finally {
            Files.deleteIfExists(file);
        }
        if (n == 0) throw new IllegalStateException("no sync sampled (stopped before the first one)");
        Distribution d = Distribution.ofSamples(Arrays.copyOf(samples, n));
        TreeMap<String, String> t = new TreeMap<>(baseTable.values());
        t.put("disk.fsync", d.format());
        t.put("meta.disk.date", start);
        t.put("meta.disk.load", "before " + loadBefore + ", after " + loadavg());
        t.put("meta.source.disk", "io.tandem.bench.sim.FsyncProbe in " + dir + ": " + n + (sync ? " syncs of a 128-byte append (write + force(false))" : " 128-byte appends to the page cache (write, no force: the storage's flush with fsync off)") + ", one every " + intervalUs
                + " us, sampled during the real run; other keys from " + base.getFileName());
        Files.createDirectories(out.toAbsolutePath().getParent());
        try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            CostTable.of(t).write(w, "Tandem simulator cost table: " + base.getFileName() + " with disk.fsync sampled during a real run in " + dir + " from " + start
                    + ".\nWritten by io.tandem.bench.sim.FsyncProbe; do not edit by hand.");
        }
        System.out.printf("wrote %s: %d syncs, p50 %.0f us, p99 %.0f us%n", out, n, d.quantile(0.5) / 1e3, d.quantile(0.99) / 1e3);
    }

    private static String loadavg() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
