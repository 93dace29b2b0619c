package io.tandem.jmh.codec;

import io.tandem.codec.KryoCodec;
import io.tandem.protocols.Protocols;
import io.tandem.protocols.raft.RaftMessage.AppendEntries;
import io.tandem.storage.LogEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The codec on the replication hot path: a Raft {@code AppendEntries} carrying {@code entries} log
 * entries of {@code payloadBytes} each, encoded and decoded through the same {@link KryoCodec}
 * registration the engine uses on the wire (pooled Kryo instances and buffers). One op is one
 * message; divide by {@code entries} for the per-entry cost.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "--sun-misc-unsafe-memory-access=allow"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CodecBenchmark {
    @Param({"1", "32"})
    int entries;

    @Param({"64", "1024"})
    int payloadBytes;

    private KryoCodec codec;
    private AppendEntries message;
    private byte[] encoded;

    @Setup
    public void setUp() {
        KryoCodec.Builder builder = KryoCodec.builder();
        Protocols.raft().registerMessages(builder);
        codec = builder.build();
        SplittableRandom random = new SplittableRandom(1);
        List<LogEntry> batch = new ArrayList<>(entries);
        for (int i = 0; i < entries; i++) {
            byte[] payload = new byte[payloadBytes];
            random.nextBytes(payload);
            batch.add(new LogEntry(1000 + i, 7, payload));
        }
        message = new AppendEntries(7, 999, 7, batch, 990, 12345);
        encoded = codec.encode(message);
    }

    @Benchmark
    public byte[] encode() {
        return codec.encode(message);
    }

    @Benchmark
    public Object decode() {
        return codec.decode(encoded);
    }
}
