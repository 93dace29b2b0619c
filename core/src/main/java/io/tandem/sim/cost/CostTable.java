package io.tandem.sim.cost;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The calibrated service times the cost model charges (DESIGN §8.5): one table per machine, written
 * by the calibration ({@code jmh/run-simcalibrate.sh}) from measurements of the real code on that
 * machine, with the date, the machine and its load recorded beside the numbers. Keys (all times in
 * nanoseconds, "perByte" ones may be fractional):
 *
 * <ul>
 *   <li>{@code loop.message.<Type>.ns} and {@code loop.message.<Type>.perByte}: an engine handler
 *       of that message type on the protocol loop, fixed part and per encoded byte;
 *       {@code loop.message.default.ns} for a type not measured; {@code loop.client-request.ns},
 *       {@code loop.timer.ns}, {@code loop.storage.ns}, {@code loop.applied.ns},
 *       {@code loop.default.ns} for the other events; {@code loop.timer.<name>.ns} (optional) for the timer whose
 *       key's {@link io.tandem.engine.TimerKey#costName()} is {@code name} (e.g. a 0-delay end-of-drain timer,
 *       measured by {@code CostCalibration --timers}), {@code loop.timer.ns} for the others;</li>
 *   <li>{@code codec.encode.ns}, {@code codec.encode.perByte}, {@code codec.decode.ns},
 *       {@code codec.decode.perByte} (or per type: {@code codec.encode.<Type>.ns} ...): the Kryo codec;</li>
 *   <li>{@code transport.send.ns}, {@code transport.receive.ns}, {@code transport.perByte}: the real
 *       TCP transport's CPU per message on its I/O thread, codec excluded;</li>
 *   <li>{@code transport.flush.ns}, {@code transport.read.ns} (optional, session 14): the transport's CPU per flush (a
 *       drain of one peer's queue: the write syscall and the loopback delivery the kernel runs in the writer's context)
 *       and per read turn of one connection, paid once for all the frames coalesced into it (see {@link FrameCoalescing});
 *       with them, {@code transport.send.ns} and {@code transport.receive.ns} are the per-message rest, and a client request
 *       and its reply pay a read and a flush each on both sides (one request per connection at a time);</li>
 *   <li>{@code client.request.ns} and {@code client.reply.ns}: the server's I/O work for a client
 *       request and its reply; {@code client.op.ns}: the load generator's CPU per operation;</li>
 *   <li>{@code wakeup.<STAGE>.ns} ({@code IO}, {@code LOOP}, {@code EXEC}, {@code DISK}) and {@code wakeup.client.ns}
 *       (the load generator's I/O): a thread's turn after it went idle (the spin before parking, the park, the
 *       wake-up, the turn's syscalls), charged to a job that finds its stage idle, so that work queued behind a busy
 *       thread is handled in its turn without it (the batching of the real loops); {@code wakeup.ns} for a stage
 *       without its own key;</li>
 *   <li>{@code apply.ns}, {@code apply.perByte}: the state machine's apply of one command;
 *       {@code workload.commandBytes}: the size of the benchmark's command (a KV put) in the log;</li>
 *   <li>{@code disk.flush.cpu.ns}: the storage thread's CPU per log sync (write and sync calls, waking the waiters);
 *       {@code disk.entry.cpu.ns}: its CPU per entry written;</li>
 *   <li>{@code disk.fsync}: the measured distribution of one write + fsync on the real storage
 *       (quantiles, see {@link Distribution}); {@code disk.bytesPerSecond}: its write bandwidth;</li>
 *   <li>{@code net.oneway}: one-way latency of a loopback message beyond the CPU charged for it
 *       (distribution); {@code net.bytesPerSecond}: link bandwidth;</li>
 *   <li>{@code handoff.latency}: the wall time of a hand-off to a parked thread on an idle core (distribution, see
 *       {@link #handoffLatency()});</li>
 *   <li>{@code meta.*}: where and when it was measured, the load, how each number was obtained.</li>
 * </ul>
 */
public final class CostTable {
    /** The classpath resource holding the table calibrated on the development machine (see {@code protocols/README.md}). */
    public static final String DEFAULT_RESOURCE = "/io/tandem/sim/cost/calibrated-costs.properties";

    private final TreeMap<String, String> values;

    private CostTable(Map<String, String> values) {
        this.values = new TreeMap<>(values);
        // Validate once, so that a bad table fails when read, not in the middle of a run.
        disk();
        network();
        handoffLatency();
        for (Map.Entry<String, String> e : this.values.entrySet()) {
            if (e.getKey().endsWith(".ns") || e.getKey().endsWith(".perByte") || e.getKey().endsWith("bytesPerSecond") || e.getKey().endsWith("Bytes")) {
                double v;
                try {
                    v = Double.parseDouble(e.getValue().trim());
                } catch (NumberFormatException x) {
                    throw new IllegalArgumentException("cost table: " + e.getKey() + " = '" + e.getValue() + "' is not a number");
                }
                if (!(v >= 0)) throw new IllegalArgumentException("cost table: " + e.getKey() + " must be >= 0, was " + e.getValue());
            }
        }
    }

    public static CostTable of(Map<String, String> values) {
        return new CostTable(values);
    }

    public static CostTable read(Path file) {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            Properties p = new Properties();
            p.load(r);
            return fromProperties(p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read cost table " + file, e);
        }
    }

    /** The table shipped on the classpath ({@link #DEFAULT_RESOURCE}). */
    public static CostTable calibrated() {
        try (InputStream in = CostTable.class.getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) throw new IllegalStateException("no calibrated cost table on the classpath (" + DEFAULT_RESOURCE + "); run jmh/run-simcalibrate.sh");
            Properties p = new Properties();
            p.load(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
            return fromProperties(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static CostTable fromProperties(Properties p) {
        TreeMap<String, String> m = new TreeMap<>();
        for (String k : p.stringPropertyNames()) m.put(k, p.getProperty(k));
        return new CostTable(m);
    }

    /**
     * A table with no CPU cost at all, a fixed 50 µs one-way network and a 1 ms disk: what the
     * calibration drives the real engines with while it times their handlers. Not a model of any machine.
     */
    public static CostTable uncalibrated() {
        return of(Map.of("disk.fsync", "1000000", "net.oneway", "50000", "meta.note", "uncalibrated: zero CPU costs"));
    }

    /** The same table with {@code key} set (or replaced). */
    public CostTable with(String key, String value) {
        TreeMap<String, String> m = new TreeMap<>(values);
        m.put(key, value);
        return new CostTable(m);
    }

    public Map<String, String> values() {
        return java.util.Collections.unmodifiableMap(values);
    }

    public void write(Writer out, String comment) throws IOException {
        out.write("# " + comment.replace("\n", "\n# ") + "\n");
        for (Map.Entry<String, String> e : values.entrySet()) out.write(e.getKey() + "=" + e.getValue().replace("\\", "\\\\") + "\n");
    }

    public String meta(String key) {
        return values.getOrDefault("meta." + key, "");
    }

    double number(String key, double fallback) {
        String v = values.get(key);
        return v == null ? fallback : Double.parseDouble(v.trim());
    }

    long nanos(String key, long fallback) {
        return Math.round(number(key, fallback));
    }

    /** The loop's cost for an event of {@code kind} (message type {@code type}, or null) of {@code bytes}. */
    public long loopCost(String kind, String type, long bytes) {
        if ("message".equals(kind) && type != null) {
            String base = "loop.message." + type;
            if (values.containsKey(base + ".ns")) return nanos(base + ".ns", 0) + Math.round(number(base + ".perByte", 0) * bytes);
            return nanos("loop.message.default.ns", 0) + Math.round(number("loop.message.default.perByte", 0) * bytes);
        }
        if ("timer".equals(kind) && type != null && values.containsKey("loop.timer." + type + ".ns")) return nanos("loop.timer." + type + ".ns", 0);
        return nanos("loop." + kind + ".ns", nanos("loop.default.ns", 0));
    }

    public long encodeCost(String type, long bytes) {
        return codec("encode", type, bytes);
    }

    public long decodeCost(String type, long bytes) {
        return codec("decode", type, bytes);
    }

    private long codec(String op, String type, long bytes) {
        String base = "codec." + op + (type != null && values.containsKey("codec." + op + "." + type + ".ns") ? "." + type : "");
        return nanos(base + ".ns", 0) + Math.round(number(base + ".perByte", 0) * bytes);
    }

    public long sendCost(long bytes) {
        return nanos("transport.send.ns", 0) + Math.round(number("transport.perByte", 0) * bytes);
    }

    public long receiveCost(long bytes) {
        return nanos("transport.receive.ns", 0) + Math.round(number("transport.perByte", 0) * bytes);
    }

    /** The transport's CPU per flush of one link's queued frames ({@code transport.flush.ns}; 0: paid per message instead). */
    public long flushCost() {
        return nanos("transport.flush.ns", 0);
    }

    /** The transport's CPU per read turn of one connection ({@code transport.read.ns}; 0: paid per message instead). */
    public long readCost() {
        return nanos("transport.read.ns", 0);
    }

    /** Whether the table splits the transport's per-syscall costs from its per-message ones ({@link FrameCoalescing}). */
    public boolean coalescesFrames() {
        return flushCost() > 0 || readCost() > 0;
    }

    /**
     * The server's I/O work for a client request: {@code client.request.ns}, plus a read (a client connection carries one
     * request at a time, so no read is shared).
     */
    public long clientRequestCost() {
        return nanos("client.request.ns", 0) + readCost();
    }

    /** The server's I/O work for a reply: {@code client.reply.ns}, plus a flush (one reply per connection at a time). */
    public long clientReplyCost() {
        return nanos("client.reply.ns", 0) + flushCost();
    }

    /** The load generator's CPU per operation: {@code client.op.ns}, plus the flush of the request and the read of the reply. */
    public long clientOpCost() {
        return nanos("client.op.ns", 0) + flushCost() + readCost();
    }

    /** Handing work to a parked thread: charged to a job that finds its stage idle ({@link NodeCpu#setWakeupCost}). */
    public long wakeupCost() {
        return nanos("wakeup.ns", 0);
    }

    /** A turn of {@code stage}'s thread after it went idle: {@code wakeup.<STAGE>.ns}, else {@link #wakeupCost()}. */
    public long wakeupCost(Stage stage) {
        return nanos("wakeup." + stage.name() + ".ns", wakeupCost());
    }

    /**
     * The wall time from handing work to a parked thread to that thread running on a core that was idle
     * ({@code handoff.latency}, a distribution; null when the table has none: then a hand-off costs only its CPU).
     * Charged on the node's in-process hand-offs that no measured latency already holds: a message or request from the
     * I/O thread to the protocol loop, and committed work from the loop to the execution thread
     * ({@link NodeCpu#setHandoffLatency}). The loopback latency ({@code net.*}) already holds the wake-ups of the I/O
     * threads at both ends, and the fsync ({@code disk.fsync}, the storage pipeline's append-to-durable) those of the
     * storage thread and of the thread its completion wakes.
     */
    public Distribution handoffLatency() {
        String v = values.get("handoff.latency");
        return v == null ? null : Distribution.parse(v);
    }

    /** A turn of the load generator's I/O thread after it went idle: {@code wakeup.client.ns}, else {@link #wakeupCost()}. */
    public long clientWakeupCost() {
        return nanos("wakeup.client.ns", wakeupCost());
    }

    public long applyCost(long bytes) {
        return nanos("apply.ns", 0) + Math.round(number("apply.perByte", 0) * bytes);
    }

    /** Bytes one benchmark command takes in the log and on the wire (0: the simulator's own size). */
    public long commandBytes() {
        return nanos("workload.commandBytes", 0);
    }

    /**
     * {@code net.sharedWakeup=true}: messages that reach a receiver while one to it is on the way share that one's wake-up
     * ({@link NetworkModel#setSharedWakeups}; a structure of the model, not a cost; off by default, session 15).
     */
    public boolean sharedWakeups() {
        return Boolean.parseBoolean(values.getOrDefault("net.sharedWakeup", "false"));
    }

    /** The storage thread's CPU per log sync (0 in tables calibrated before it was measured). */
    public long diskFlushCpuCost() {
        return nanos("disk.flush.cpu.ns", 0);
    }

    /** The storage thread's CPU per entry written (0 in tables calibrated before it was measured). */
    public long diskEntryCpuCost() {
        return nanos("disk.entry.cpu.ns", 0);
    }

    /**
     * {@code disk.record.ns}: the wall time a log sync takes for each record of its batch beyond the first, on top of the
     * bandwidth term (0 in tables calibrated before it was measured). {@code disk.fsync} is a lone sync of one record; a
     * round of N records takes the real storage thread longer than that by more than the bytes explain (it encodes,
     * checksums and writes each record, and completes each append after the sync). Measured by
     * {@code CostCalibration --sync-cpu}: the least-squares slope of the sync's wall time (p50) over batches of 1, 8 and 40
     * records of the workload's size, less what {@code disk.bytesPerSecond} already charges for a record's bytes. It is the
     * node's own storage thread's time (its writes, before it asks the device to sync), not the shared device's.
     */
    public long diskRecordNanos() {
        return nanos("disk.record.ns", 0);
    }

    public Distribution disk() {
        return Distribution.parse(values.getOrDefault("disk.fsync", "0"));
    }

    /**
     * The device's own part of a sync: {@code disk.fsync} less the storage thread's CPU for the calibration's one record
     * ({@code disk.flush.cpu.ns} + {@code disk.entry.cpu.ns}). {@code disk.fsync} is measured append to durable through the
     * real storage thread, so it holds that thread's CPU for the sync (its write and fsync calls: 40-50 % of a lone sync on
     * the quiet VM, session 15); the model charges that CPU on the node's cores before the device works, so the device takes
     * only the rest, and a lone sync on idle cores takes {@code disk.fsync} as measured. Each quantile is lowered by the
     * same amount, down to 0. The same as {@link #disk()} when the table has no storage CPU.
     */
    public Distribution deviceSync() {
        Distribution d = disk();
        long cpu = diskFlushCpuCost() + diskEntryCpuCost();
        return cpu == 0 ? d : d.minus(cpu);
    }

    public double diskBytesPerSecond() {
        return number("disk.bytesPerSecond", 0); // 0: unlimited
    }

    /**
     * {@code disk.syncsInFlight}: how many of a node's syncs its device serves at once (default 1: the measured storage,
     * one write + fsync round at a time, as ext4's journal commits one transaction at a time). More is a what-if of a device
     * whose syncs overlap, each taking its own sampled latency (docs/perfsim.md §9); not a measured value.
     */
    public int diskSyncsInFlight() {
        int k = (int) number("disk.syncsInFlight", 1);
        if (k < 1) throw new IllegalArgumentException("disk.syncsInFlight must be >= 1, was " + k);
        return k;
    }

    public Distribution network() {
        return Distribution.parse(values.getOrDefault("net.oneway", "0"));
    }

    /**
     * The one-way latency of a message when the stalls are modelled apart ({@link #stallsPerSecond()} > 0): the
     * measured distribution below its tail ({@code net.base}); without stalls, {@link #network()}.
     */
    public Distribution networkBase() {
        return stallsPerSecond() > 0 ? Distribution.parse(values.getOrDefault("net.base", values.getOrDefault("net.oneway", "0"))) : network();
    }

    /** Stalls of a receiving endpoint per second ({@code net.stall.perSecond}; 0: none, the tail stays in {@code net.oneway}). */
    public double stallsPerSecond() {
        return number("net.stall.perSecond", 0);
    }

    /** How long one stall lasts ({@code net.stall}). */
    public Distribution stallDuration() {
        return Distribution.parse(values.getOrDefault("net.stall", "0"));
    }

    /** Bytes a connection holds between the sender's write and the receiver's read ({@code net.windowBytes}; 0: unlimited, no outbox). */
    public long windowBytes() {
        return nanos("net.windowBytes", 0);
    }

    /**
     * The transport's per-peer outbox bounds ({@code net.outbox.highMessages}, {@code .lowMessages}, {@code .highBytes},
     * {@code .lowBytes}); without them, those of {@code TcpTransportConfig.defaults()} (65,536 / 32,768 messages,
     * 64 / 32 MiB): configuration, not measurements.
     */
    public PeerOutbox.Limits outboxLimits() {
        return new PeerOutbox.Limits((int) number("net.outbox.highMessages", 65_536), (int) number("net.outbox.lowMessages", 32_768),
                nanos("net.outbox.highBytes", 64L << 20), nanos("net.outbox.lowBytes", 32L << 20));
    }

    public double networkBytesPerSecond() {
        return number("net.bytesPerSecond", 0); // 0: unlimited
    }
}
