package io.tandem.jmh.kv;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.kv.KvCodec;
import io.tandem.kv.KvCommand;
import io.tandem.kv.KvLimits;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
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

/**
 * Two per-put costs of a Tandem server that issue 25 (hotpath8) took off the hot path, each beside what replaced it
 * in the same run (A and B in one invocation):
 * <ul>
 *   <li>{@code admitDecode} / {@code admitCheck}: the server's check of a client's put before it takes a log slot.
 *       It decoded the command (a record plus copies of the key and the value, dropped at once); now
 *       {@link KvCodec#checkCommand} runs the same checks without building anything.</li>
 *   <li>{@code metersPerPut} / {@code metersPerBatch}: the execution thread's meters of an answered write (applied
 *       count, completed count, latency sum), three counter updates per put before, one tally per batch of
 *       {@value #BATCH} now.</li>
 * </ul>
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AdmissionBenchmark {
    static final int BATCH = 16;

    @Param({"64", "1024"})
    int valueSize;

    private final KvCodec codec = new KvCodec(KvLimits.DEFAULTS);
    private byte[][] commands;
    private int next;
    private Counter applied, completed, latency;
    private long startNanos;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(42);
        commands = new byte[1024][];
        for (int i = 0; i < commands.length; i++) {
            byte[] value = new byte[valueSize];
            random.nextBytes(value);
            commands[i] = codec.encode(new KvCommand.Put(String.format("key-%012d", i).getBytes(StandardCharsets.US_ASCII), value));
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        applied = Counter.builder("tandem.exec.applied").register(registry);
        completed = Counter.builder("tandem.client.completed").tag("kind", "write").register(registry);
        latency = Counter.builder("tandem.client.latency.sum").tag("kind", "write").register(registry);
        startNanos = System.nanoTime();
    }

    private byte[] nextCommand() {
        return commands[next++ & (commands.length - 1)];
    }

    @Benchmark
    public Object admitDecode() {
        return codec.decodeCommand(nextCommand());
    }

    @Benchmark
    public byte[] admitCheck() {
        byte[] c = nextCommand();
        codec.checkCommand(c);
        return c;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void metersPerPut() {
        for (int i = 0; i < BATCH; i++) {
            applied.increment();
            completed.increment();
            latency.increment((System.nanoTime() - startNanos) * 1e-9);
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void metersPerBatch() {
        long n = 0, nanos = 0;
        for (int i = 0; i < BATCH; i++) {
            n++;
            nanos += System.nanoTime() - startNanos;
        }
        applied.increment(n);
        completed.increment(n);
        latency.increment(nanos * 1e-9);
    }
}
