package io.tandem.runtime;

import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Command execution: KV puts applied by the KV state machine, alone and through the runtime's execution path.
 * It lives in the jmh module but in the package it measures, because {@link ExecutionThread} is package-private
 * (a split package on the benchmark classpath).
 *
 * <ul>
 *   <li>{@code stateMachineApply}: {@link KvStateMachine#apply} of one encoded put (decode, B+-tree put with
 *       path copying, result encoding) on the benchmark thread.</li>
 *   <li>{@code stateMachineApplyBatched}: the same puts in batches of {@value #MACHINE_BATCH}, each batch ended
 *       with {@link KvStateMachine#endBatch} as the sequential executor's flush does: the tree copies each node
 *       on the batch's paths once per batch instead of once per put (issue 25). Results are per put.</li>
 *   <li>{@code stateMachineApplyBatchedDeferred}: the same, through {@link KvStateMachine#applyForResult} (the
 *       result kept unencoded, as the executor keeps it unless somebody asks for the bytes).</li>
 *   <li>{@code executionStage}: a batch of {@value #BATCH} committed puts handed to a running
 *       {@link ExecutionThread} running the {@link SequentialExecutor} (what the engine's {@code deliver} does), each in a client session (exactly-once
 *       check and result recorded), waiting until the stage applied the last one. Includes the hand-off to the
 *       execution thread, as in a server; the entries come from another node, so no client future is completed.
 *       Results are per put.</li>
 * </ul>
 * Keys are uniform over {@code keys} 16-byte keys, preloaded, so every put overwrites (a steady-state server).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ExecutionStageBenchmark {
    static final int BATCH = 256;
    /** Puts per ended batch in {@code stateMachineApplyBatched}: about what a 64-client server's loop hands over at once. */
    static final int MACHINE_BATCH = 32;
    private static final int SESSIONS = 16;
    private static final NodeId SELF = NodeId.of("n1");
    private static final NodeId LEADER = NodeId.of("n2");

    @Param({"64", "1024"})
    int valueSize;

    @Param({"10000", "100000"})
    int keys;

    private byte[][] commands;
    private KvStateMachine machine;
    private KvStateMachine batchedMachine;
    private ExecutionThread stage;
    private SplittableRandom random;
    private long index;
    private final long[] sequences = new long[SESSIONS];

    @Setup(Level.Trial)
    public void setUp() {
        random = new SplittableRandom(42);
        KvCodec codec = new KvStateMachine().codec();
        commands = new byte[keys][];
        for (int k = 0; k < keys; k++) {
            byte[] key = String.format("key-%012d", k).getBytes(StandardCharsets.US_ASCII);
            byte[] value = new byte[valueSize];
            random.nextBytes(value);
            commands[k] = codec.encode(new KvCommand.Put(key, value));
        }
        machine = new KvStateMachine();
        for (int k = 0; k < keys; k++) machine.apply(k + 1, commands[k]);
        batchedMachine = new KvStateMachine();
        for (int k = 0; k < keys; k++) batchedMachine.apply(k + 1, commands[k]);
        batchedMachine.endBatch();
        // The stage has a state machine of its own, preloaded through the stage itself.
        ExecutionListener ignore = new ExecutionListener() {
            @Override
            public void executed(Committed entry, Outcome outcome) {}

            @Override
            public void readAnswered(long requestId, byte[] result, RuntimeException error) {}
        };
        stage = new ExecutionThread(SELF.value(), new SequentialExecutor(new KvStateMachine(), ignore, ExecutorFactory.Limits.DEFAULTS), applied -> { }, () -> { });
        stage.start();
        for (int k = 0; k < keys; k++) stage.submit(new ExecutionThread.Apply(new Committed(k + 1, LEADER, 1, ClientRequest.Session.NONE, commands[k])));
        index = keys;
        awaitApplied(index);
    }

    private void awaitApplied(long target) {
        while (stage.appliedIndex() < target) {
            if (stage.failure() != null) throw new IllegalStateException("execution failed", stage.failure());
            Thread.onSpinWait();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        stage.close();
    }

    @Benchmark
    public byte[] stateMachineApply() {
        return machine.apply(++index, commands[random.nextInt(keys)]);
    }

    /**
     * Batches of {@value #MACHINE_BATCH} puts ended ({@link KvStateMachine#endBatch}: the tree publishes) only every
     * {@code publishEvery} batches: 1 is the server (each put into a leaf the last batch published copies it);
     * 128 (4,096 puts over the tree's ~200 leaves) copies almost no leaf per put, an upper bound of what avoiding
     * the leaf copy could gain (issue 25, part 11).
     */
    @Param({"1"})
    int publishEvery;

    private int batches;

    @Benchmark
    @OperationsPerInvocation(MACHINE_BATCH)
    public void stateMachineApplyBatched(Blackhole results) {
        for (int i = 0; i < MACHINE_BATCH; i++) results.consume(batchedMachine.apply(++index, commands[random.nextInt(keys)]));
        if (++batches % publishEvery == 0) batchedMachine.endBatch();
    }

    /** {@code stateMachineApplyBatched} as the executor now calls it: the result kept, not encoded (what a follower does). */
    @Benchmark
    @OperationsPerInvocation(MACHINE_BATCH)
    public void stateMachineApplyBatchedDeferred(Blackhole results) {
        for (int i = 0; i < MACHINE_BATCH; i++) results.consume(batchedMachine.applyForResult(++index, commands[random.nextInt(keys)]));
        if (++batches % publishEvery == 0) batchedMachine.endBatch();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long executionStage() {
        long target = 0;
        for (int i = 0; i < BATCH; i++) {
            int s = random.nextInt(SESSIONS);
            target = ++index;
            stage.submit(new ExecutionThread.Apply(new Committed(target, LEADER, 1, new ClientRequest.Session(s + 1, ++sequences[s]),
                    commands[random.nextInt(keys)])));
        }
        awaitApplied(target);
        return target;
    }
}
