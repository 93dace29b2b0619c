package io.tandem.jmh.codec;

import com.esotericsoftware.kryo.Serializer;
import io.tandem.codec.BinarySerializer;
import io.tandem.codec.KryoCodec;
import io.tandem.codec.MessageRegistry;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.engine.Protocol;
import io.tandem.protocols.Protocols;
import io.tandem.protocols.multipaxos.Ballot;
import io.tandem.protocols.multipaxos.MultiPaxosMessage;
import io.tandem.protocols.multipaxos.Value;
import io.tandem.protocols.raft.RaftMessage.AppendEntries;
import io.tandem.protocols.raft.RaftMessage.AppendEntriesResponse;
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
 * The codec on the replication hot path, through the same {@link KryoCodec} registration the engines
 * use on the wire (pooled Kryo instances and buffers, class id first): {@code message} is a Raft
 * {@code AppendEntries} or a MultiPaxos phase-2a {@code Accept} carrying {@code entries} commands of
 * {@code payloadBytes} each, or a Raft {@code AppendEntriesResponse} (entries and payload unused); with proxy leaders
 * (issue 21) a MultiPaxos {@code Propose} (one command), {@code ProxyAccept} or {@code Chosen} ({@code entries} commands).
 * {@code impl} {@code handwritten} is the protocols' registration as shipped ({@link BinarySerializer}s
 * for the hot messages), {@code reflective} the same ids with Kryo's reflective record serializer (what
 * every message used before). One op is one message; divide by {@code entries} for the per-entry cost.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "--sun-misc-unsafe-memory-access=allow"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBenchmark {
    @Param({"append", "accept", "append-response", "propose", "proxy-accept", "chosen"})
    String message;

    @Param({"1", "32"})
    int entries;

    @Param({"64", "1024"})
    int payloadBytes;

    @Param({"handwritten", "reflective"})
    String impl;

    private KryoCodec codec;
    private Object value;
    private byte[] encoded;

    /** Registers every type as the protocol does, but without its hand-written serializers. */
    private record Reflective(MessageRegistry target) implements MessageRegistry {
        @Override
        public void register(Class<?> type, int id) {
            target.register(type, id);
        }

        @Override
        public <T> void register(Class<T> type, Serializer<T> serializer, int id) {
            if (serializer instanceof BinarySerializer<?>) target.register(type, id);
            else target.register(type, serializer, id);
        }
    }

    @Setup
    public void setUp() {
        Protocol protocol = message.startsWith("append") ? Protocols.raft() : Protocols.multiPaxos();
        KryoCodec.Builder builder = KryoCodec.builder();
        protocol.registerMessages(switch (impl) {
            case "handwritten" -> builder;
            case "reflective" -> new Reflective(builder);
            default -> throw new IllegalArgumentException("impl " + impl);
        });
        codec = builder.build();
        SplittableRandom random = new SplittableRandom(1);
        NodeId origin = NodeId.of("n1");
        List<LogEntry> batch = new ArrayList<>(entries);
        List<Value> values = new ArrayList<>(entries);
        for (int i = 0; i < entries; i++) {
            byte[] payload = new byte[payloadBytes];
            random.nextBytes(payload);
            batch.add(new LogEntry(1000 + i, 7, payload)); // Raft entries are opaque bytes (the encoded command)
            values.add(new Value.Command(origin, 5000 + i, new ClientRequest.Session(random.nextLong(), 100 + i, 99 + i), payload));
        }
        value = switch (message) {
            case "append" -> new AppendEntries(7, 999, 7, batch, 990, 12345);
            case "accept" -> new MultiPaxosMessage.Accept(new Ballot(7, 1), 1000, values, 12345);
            case "append-response" -> new AppendEntriesResponse(7, true, 1031, 999, 0, 0, 12345);
            // With proxy leaders (spec §2.1) the leader receives a Propose and sends a ProxyAccept per command; a proxy sends
            // each replica a Chosen. Propose carries one command (entries unused).
            case "propose" -> new MultiPaxosMessage.Propose(5000, ((Value.Command) values.getFirst()).session(), ((Value.Command) values.getFirst()).payload());
            case "proxy-accept" -> new MultiPaxosMessage.ProxyAccept(new Ballot(7, 1), 1000, values, 12345);
            case "chosen" -> new MultiPaxosMessage.Chosen(1000, values, 12345);
            default -> throw new IllegalArgumentException("message " + message);
        };
        encoded = codec.encode(value);
    }

    @Benchmark
    public byte[] encode() {
        return codec.encode(value);
    }

    @Benchmark
    public Object decode() {
        return codec.decode(encoded);
    }
}
