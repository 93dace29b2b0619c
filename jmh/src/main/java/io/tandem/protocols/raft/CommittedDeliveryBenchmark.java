package io.tandem.protocols.raft;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import io.tandem.execution.ExecutionListener;
import io.tandem.execution.ExecutorFactory;
import io.tandem.execution.SequentialExecutor;
import io.tandem.statemachine.CommandResult;
import io.tandem.statemachine.StateMachine;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What every Raft replica allocates per committed command between its log and the state machine (alloc21, issue 25):
 * the log entry's bytes turned into a {@link Committed} ({@link EntryPayload#committed}, as
 * {@code RaftEngine.deliverCommitted} does) and applied through a {@link SequentialExecutor} with its exactly-once
 * session table (64 clients, each command the next of its session, as the peer benchmark's load sends them). The state
 * machine returns one shared result and the listener drops the outcome, so what is left is the delivery and the
 * execution layer's own bookkeeping; run with {@code -prof gc} for bytes per command. Uses only calls that main has
 * too, so the same class runs against main's jars (first on the class path) for a before/after.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CommittedDeliveryBenchmark {
    private static final int CLIENTS = 64;
    private static final int BATCH = 1024;

    @Param({"64"})
    public int valueBytes;

    private final byte[][] entries = new byte[BATCH][];
    private final long[] sequences = new long[CLIENTS];
    private long index;
    private SequentialExecutor executor;
    private Blackhole sink;

    @Setup
    public void setup(Blackhole bh) {
        sink = bh;
        CommandResult result = CommandResult.of(new byte[] {1});
        StateMachine machine = new StateMachine() {
            @Override
            public byte[] apply(long i, byte[] command) {
                return result.encode();
            }

            @Override
            public CommandResult applyForResult(long i, byte[] buffer, int offset, int length) {
                return result;
            }

            @Override
            public byte[] query(byte[] query) {
                return query;
            }

            @Override
            public void snapshot(OutputStream out) {}

            @Override
            public void restore(InputStream in) {}
        };
        ExecutionListener listener = new ExecutionListener() {
            @Override
            public void executed(Committed entry, Outcome outcome) {
                sink.consume(outcome);
            }

            @Override
            public void readAnswered(long requestId, byte[] r, RuntimeException error) {}
        };
        executor = new SequentialExecutor(machine, listener, ExecutorFactory.Limits.DEFAULTS);
        fill();
    }

    /** BATCH commands of 64 clients round robin, encoded as the leader's log holds them. */
    private void fill() {
        NodeId origin = NodeId.of("r2");
        for (int i = 0; i < BATCH; i++) {
            int client = i % CLIENTS;
            long seq = ++sequences[client];
            entries[i] = EntryPayload.encode(new EntryPayload.Command(origin, 1000 + i, new ClientRequest.Session(client + 1, seq, seq), new byte[valueBytes]));
        }
    }

    /**
     * One committed command: decoded from its entry bytes and applied. Between rounds each entry's session sequence
     * (and watermark) moves on by BATCH / CLIENTS in place, in the entry's bytes (format 4: kind, u16 origin length,
     * origin, request id, client id, sequence, watermark as big-endian longs), so the session table sees new commands,
     * never duplicates, and nothing outside the measured path allocates.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void deliverAndApply() {
        for (int i = 0; i < BATCH; i++) executor.apply(EntryPayload.committed(++index, entries[i]));
        for (byte[] e : entries) {
            int at = 3 + (((e[1] & 0xff) << 8) | (e[2] & 0xff)) + 16;
            long seq = getLong(e, at) + BATCH / CLIENTS;
            putLong(e, at, seq);
            putLong(e, at + 8, seq);
        }
    }

    private static long getLong(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) v = (v << 8) | (b[at + i] & 0xff);
        return v;
    }

    private static void putLong(byte[] b, int at, long v) {
        for (int i = 7; i >= 0; i--) b[at++] = (byte) (v >>> (8 * i));
    }
}
