package io.tandem.protocols.raft;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.EngineContext;
import io.tandem.engine.GroupView;
import io.tandem.engine.Meters;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import io.tandem.engine.Regions;
import io.tandem.engine.Rejection;
import io.tandem.engine.TimerKey;
import io.tandem.runtime.BenchmarkTimers;
import io.tandem.storage.DurableLog;
import io.tandem.storage.LogEntry;
import io.tandem.storage.MetaStore;
import io.tandem.storage.SnapshotMeta;
import io.tandem.storage.SnapshotStore;
import io.tandem.storage.StorageEvent;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * A Raft follower's engine work per AppendEntries (raft20), on the benchmark thread: one AppendEntries of
 * {@code entries} 64-byte commands from the leader, handled by the {@link RaftEngine} as the runtime's loop does it
 * (the message, then the turn's due timers through the runtime's own {@code Timers}, then the log's durability
 * report, which acknowledges). The log is in memory and durable at once (the disk's cost is not measured here);
 * delivered entries and sent messages are dropped. The engine's clock is virtual and advances
 * {@code intervalNanos} per AppendEntries (30 µs: about the message rate a follower sees at 64 clients), so the
 * timer heap holds what a real follower's would: with the default election timeout (1-2 s), an engine that re-arms
 * its election timer per message keeps about 50,000 dead entries there. With {@code intervalNanos} 0 the clock stands
 * still and no deadline ever passes.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FollowerAppendBenchmark {
    private static final NodeId SELF = NodeId.of("n1");
    private static final NodeId LEADER = NodeId.of("n2");
    private static final List<NodeId> MEMBERS = List.of(SELF, LEADER, NodeId.of("n3"));

    @Param({"1", "8"})
    int entries;

    @Param({"30000"})
    long intervalNanos;

    private Context ctx;
    private RaftEngine engine;
    private byte[][] payloads;
    private long last;
    private long requestId;

    @Setup(Level.Trial)
    public void setUp() {
        ctx = new Context();
        engine = new RaftEngine(SELF, MEMBERS, RaftConfig.DEFAULTS);
        engine.start(ctx);
        ctx.drainEvents(engine);
        SplittableRandom random = new SplittableRandom(7);
        payloads = new byte[1024][];
        for (int i = 0; i < payloads.length; i++) {
            byte[] value = new byte[64];
            random.nextBytes(value);
            payloads[i] = EntryPayload.encode(new EntryPayload.Command(LEADER, i + 1, new ClientRequest.Session(1000 + i, 1, 1), value));
        }
    }

    @Benchmark
    public long appendEntries() {
        long prev = last;
        List<LogEntry> batch = new ArrayList<>(entries);
        for (int i = 0; i < entries; i++) batch.add(new LogEntry(prev + 1 + i, 1, payloads[(int) ((prev + i) & 1023)]));
        last = prev + entries;
        engine.onMessage(LEADER, new RaftMessage.AppendEntries(1, prev, prev == 0 ? 0 : 1, batch, prev, ++requestId));
        ctx.now += intervalNanos;
        List<TimerKey> due = ctx.timers.due(ctx.now);
        for (int i = 0; i < due.size(); i++) engine.onTimer(due.get(i));
        ctx.log.synced = ctx.log.lastIndex();
        ctx.events.add(new StorageEvent.LogSynced(ctx.log.synced));
        ctx.drainEvents(engine);
        return ctx.sent;
    }

    /** The runtime's context, cut down: in-memory log and meta, durable at once, the runtime's timers, a virtual clock. */
    static final class Context implements EngineContext {
        final BenchmarkTimers timers = new BenchmarkTimers();
        final ArrayDeque<StorageEvent> events = new ArrayDeque<>();
        final Log log = new Log();
        final RandomGenerator random = new SplittableRandom(11);
        final Map<String, byte[]> meta = new HashMap<>();
        long sent;
        long now = 1_000_000_000L;

        void drainEvents(RaftEngine engine) {
            StorageEvent e;
            while ((e = events.poll()) != null) engine.onStorageEvent(e);
        }

        @Override public NodeId self() { return SELF; }
        @Override public List<NodeId> members() { return MEMBERS; }
        @Override public void installView(GroupView view) {}
        @Override public GroupView view() { return new GroupView(1, MEMBERS); }
        @Override public Regions regions() { throw new UnsupportedOperationException(); }
        @Override public void requestPolling(boolean poll) {}
        @Override public long nowNanos() { return now; }
        @Override public RandomGenerator random() { return random; }
        @Override public void send(NodeId to, ProtocolMessage message) { sent++; }

        @Override
        public TimerKey schedule(long delayNanos, TimerKey key) {
            if (delayNanos <= 0) timers.scheduleNow(key);
            else timers.schedule(key, now + delayNanos);
            return key;
        }

        @Override public void cancel(TimerKey key) { timers.cancel(key); }
        @Override public DurableLog log() { return log; }

        @Override
        public MetaStore meta() {
            return new MetaStore() {
                @Override public Optional<byte[]> get(String key) { return Optional.ofNullable(meta.get(key)); }

                @Override
                public void put(String key, byte[] value, long token) {
                    meta.put(key, value);
                    events.add(new StorageEvent.MetaSaved(key, token));
                }
            };
        }

        @Override
        public SnapshotStore snapshots() {
            return new SnapshotStore() {
                @Override public Optional<SnapshotMeta> latest() { return Optional.empty(); }
                @Override public void readChunk(SnapshotMeta snapshot, long offset, int maxBytes, long token) { throw new UnsupportedOperationException(); }
                @Override public void writeChunk(SnapshotMeta snapshot, long offset, byte[] data, boolean last, long token) { throw new UnsupportedOperationException(); }
            };
        }

        @Override public void deliver(Committed entry) {}
        @Override public void deliverReportingResult(Committed entry) {}
        @Override public void serveRead(long requestId, long afterIndex) {}
        @Override public void complete(long requestId, byte[] result) {}
        @Override public void reject(long requestId, Rejection reason) {}
        @Override public void takeSnapshot(long token) {}

        @Override
        public Meters meters() {
            return NO_METERS;
        }
    }

    /** An in-memory log that keeps only the recent entries (the follower never reads far back here). */
    static final class Log implements DurableLog {
        private final LogEntry[] ring = new LogEntry[1 << 16];
        private long first = 1;
        private long lastIndex;
        long synced;

        @Override public long firstIndex() { return first; }
        @Override public long lastIndex() { return lastIndex; }
        @Override public long durableIndex() { return synced; }

        @Override
        public LogEntry entry(long index) {
            if (index < first || index > lastIndex) throw new IndexOutOfBoundsException(index);
            return ring[(int) (index & (ring.length - 1))];
        }

        @Override
        public void append(LogEntry entry) {
            ring[(int) (entry.index() & (ring.length - 1))] = entry;
            lastIndex = entry.index();
            first = Math.max(first, lastIndex - ring.length + 2);
        }

        @Override public void truncateSuffix(long fromIndex) { lastIndex = fromIndex - 1; synced = Math.min(synced, lastIndex); }
        @Override public void compactPrefix(long upToIndex) { first = Math.max(first, upToIndex + 1); }
        @Override public void resetAfter(long lastIncludedIndex) { first = lastIncludedIndex + 1; lastIndex = lastIncludedIndex; synced = lastIncludedIndex; }
    }

    private static final Meters NO_METERS = new Meters() {
        @Override
        public Counter counter(String name, String... tags) {
            return new Counter() {
                @Override public void increment(long amount) {}
                @Override public long count() { return 0; }
            };
        }

        @Override
        public Gauge gauge(String name, String... tags) {
            return new Gauge() {
                @Override public void set(long value) {}
                @Override public long value() { return 0; }
            };
        }

        @Override
        public Distribution distribution(String name, String... tags) {
            return value -> {};
        }

        @Override
        public void slownessWarning(String kind, NodeId peer, String detail) {}
    };
}
