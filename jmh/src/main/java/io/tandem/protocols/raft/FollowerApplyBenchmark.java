package io.tandem.protocols.raft;

import io.tandem.engine.ClientRequest;
import io.tandem.engine.Committed;
import io.tandem.engine.NodeId;
import io.tandem.execution.ExecutionListener;
import io.tandem.execution.ExecutorFactory;
import io.tandem.execution.SequentialExecutor;
import io.tandem.kv.KvCodec;
import io.tandem.kv.KvCommand;
import io.tandem.kv.KvStateMachine;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What every replica does per put on the apply path (issue 25, part 12), on the benchmark thread: a batch of
 * {@value #BATCH} committed Raft entries, each a KV put in one of {@value #SESSIONS} client sessions, from the
 * entry's log bytes to the B+-tree: the entry's bytes are made per put (as the AppendEntries decode makes a fresh
 * array per entry), delivered ({@code EntryPayload.committed}: the command as a range of the entry, or with
 * {@code slice=false} decoded into a command array as before part 12), applied by the {@link SequentialExecutor}
 * (exactly-once session table, {@link KvStateMachine#applyForResult}), and the batch ended with the executor's
 * {@code flush} ({@code endBatch}). {@code publishEveryBatch=true} also publishes the tree after every batch
 * (a read on the execution thread, as before part 12 every {@code endBatch} did). No client waits: a follower.
 * Keys uniform over {@code keys} 16-byte keys, preloaded: every put overwrites. Results are per put.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FollowerApplyBenchmark {
    static final int BATCH = 32;
    private static final int SESSIONS = 64;
    private static final NodeId LEADER = NodeId.of("n2");

    @Param({"64"})
    int valueSize;

    @Param({"10000"})
    int keys;

    /** The command as a range of the entry (part 12), or decoded into its own array first (before). */
    @Param({"true"})
    boolean slice;

    /** Publish the tree after every batch, as every {@code endBatch} did before part 12. */
    @Param({"false"})
    boolean publishEveryBatch;

    private byte[][] commands;
    private KvStateMachine machine;
    private SequentialExecutor executor;
    private SplittableRandom random;
    private long index;
    private long requestId;
    private final long[] sequences = new long[SESSIONS];
    /** Random like real clients' ids (small ones would hit the JDK's cache of boxed longs). */
    private final long[] clientIds = new long[SESSIONS];

    @Setup(Level.Trial)
    public void setUp() {
        random = new SplittableRandom(42);
        for (int s = 0; s < SESSIONS; s++) clientIds[s] = random.nextLong() | (1L << 40);
        KvCodec codec = new KvStateMachine().codec();
        commands = new byte[keys][];
        for (int k = 0; k < keys; k++) {
            byte[] key = String.format("key-%012d", k).getBytes(StandardCharsets.US_ASCII);
            byte[] value = new byte[valueSize];
            random.nextBytes(value);
            commands[k] = codec.encode(new KvCommand.Put(key, value));
        }
        machine = new KvStateMachine();
        executor = new SequentialExecutor(machine, new ExecutionListener() {
            @Override
            public void executed(Committed entry, Outcome outcome) {}

            @Override
            public void readAnswered(long requestId, byte[] result, RuntimeException error) {}
        }, ExecutorFactory.Limits.DEFAULTS);
        for (int k = 0; k < keys; k++) executor.apply(new Committed(++index, LEADER, ++requestId, ClientRequest.Session.NONE, commands[k]));
        executor.flush();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long followerApply() {
        for (int i = 0; i < BATCH; i++) {
            int s = random.nextInt(SESSIONS);
            long seq = ++sequences[s];
            byte[] entry = EntryPayload.encode(new EntryPayload.Command(LEADER, ++requestId,
                    new ClientRequest.Session(clientIds[s], seq, seq), commands[random.nextInt(keys)]));
            long at = ++index;
            executor.apply(slice ? EntryPayload.committed(at, entry) : EntryPayload.toCommitted(at, EntryPayload.decode(entry)));
        }
        executor.flush();
        if (publishEveryBatch) machine.state();
        return index;
    }
}
