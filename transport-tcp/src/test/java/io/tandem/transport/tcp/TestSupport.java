package io.tandem.transport.tcp;

import io.tandem.codec.CodecIds;
import io.tandem.codec.KryoCodec;
import io.tandem.engine.NodeId;
import io.tandem.engine.ProtocolMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Messages, codec, ports and a deadline-bounded wait shared by the transport tests. */
final class TestSupport {
    static final String CLUSTER = "test-cluster";
    static final NodeId N1 = NodeId.of("n1");
    static final NodeId N2 = NodeId.of("n2");
    static final NodeId N3 = NodeId.of("n3");
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    /** A test message: which stream it belongs to and its position in it. */
    record Seq(long requestId, long seq, byte[] payload) implements ProtocolMessage {
        Seq(long seq) {
            this(seq, seq, new byte[0]);
        }
    }

    /** A message holding anything the codec can encode (a list of lists of ...), for hostile-input tests. */
    record Holder(long requestId, Object value) implements ProtocolMessage {}

    /** A contact message (a stand-in for a join request): may travel between known nodes that are not connected as members. */
    record Knock(long requestId, long seq) implements io.tandem.engine.ContactMessage {}

    /**
     * A large message whose bytes are {@code count} bytes of {@code data} from {@code from}, written last
     * ({@link io.tandem.codec.TrailingBytes}); read back as a slice of the frame when the codec owns it.
     */
    record Slab(long requestId, byte[] data, int from, int count) implements ProtocolMessage, io.tandem.codec.TrailingBytes {
        @Override
        public byte[] trailingArray() {
            return data;
        }

        @Override
        public int trailingOffset() {
            return from;
        }

        @Override
        public int trailingLength() {
            return count;
        }

        byte[] bytes() {
            return java.util.Arrays.copyOfRange(data, from, from + count);
        }
    }

    static final class SlabSerializer extends com.esotericsoftware.kryo.Serializer<Slab> {
        @Override
        public void write(com.esotericsoftware.kryo.Kryo kryo, com.esotericsoftware.kryo.io.Output out, Slab s) {
            out.writeLong(s.requestId());
            out.writeInt(s.count());
            KryoCodec.writeTrailing(kryo, out, s.data(), s.from(), s.count());
        }

        @Override
        public Slab read(com.esotericsoftware.kryo.Kryo kryo, com.esotericsoftware.kryo.io.Input in, Class<? extends Slab> type) {
            long id = in.readLong();
            int count = in.readInt();
            if (count < 0 || count > in.limit() - in.position()) throw new com.esotericsoftware.kryo.KryoException("a slab of " + count + " bytes does not fit its frame");
            if (KryoCodec.ownsInput(kryo)) {
                int at = in.position();
                in.setPosition(at + count);
                return new Slab(id, in.getBuffer(), at, count);
            }
            return new Slab(id, in.readBytes(count), 0, count);
        }
    }

    /** A message whose encoding may be shared between peers ({@link io.tandem.codec.SharedEncoding}); its serializer counts its writes. */
    record Shared(long requestId, long seq, byte[] payload) implements ProtocolMessage, io.tandem.codec.SharedEncoding {}

    static final java.util.concurrent.atomic.AtomicInteger SHARED_ENCODINGS = new java.util.concurrent.atomic.AtomicInteger();

    static final class SharedSerializer extends com.esotericsoftware.kryo.Serializer<Shared> {
        @Override
        public void write(com.esotericsoftware.kryo.Kryo kryo, com.esotericsoftware.kryo.io.Output out, Shared s) {
            SHARED_ENCODINGS.incrementAndGet();
            out.writeLong(s.requestId());
            out.writeLong(s.seq());
            out.writeInt(s.payload().length);
            out.writeBytes(s.payload());
        }

        @Override
        public Shared read(com.esotericsoftware.kryo.Kryo kryo, com.esotericsoftware.kryo.io.Input in, Class<? extends Shared> type) {
            long id = in.readLong();
            long seq = in.readLong();
            int n = in.readInt();
            if (n < 0 || n > in.limit() - in.position()) throw new com.esotericsoftware.kryo.KryoException("a payload of " + n + " bytes does not fit its frame");
            return new Shared(id, seq, in.readBytes(n));
        }
    }

    /** Not registered with the codec: cannot be sent. */
    record Unregistered(long requestId) implements ProtocolMessage {}

    private TestSupport() {}

    static KryoCodec codec() {
        KryoCodec.Builder b = KryoCodec.builder();
        b.register(Seq.class, CodecIds.TEST_FIRST);
        b.register(Holder.class, CodecIds.TEST_FIRST + 1);
        b.register(Knock.class, CodecIds.TEST_FIRST + 2);
        b.register(Slab.class, new SlabSerializer(), CodecIds.TEST_FIRST + 3);
        b.register(Shared.class, new SharedSerializer(), CodecIds.TEST_FIRST + 4);
        return b.build();
    }

    /** Ports the kernel just handed out and released; good enough for loopback tests. */
    static int[] freePorts(int n) {
        int[] ports = new int[n];
        ServerSocket[] sockets = new ServerSocket[n];
        try {
            for (int i = 0; i < n; i++) {
                sockets[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ports[i] = sockets[i].getLocalPort();
            }
            for (ServerSocket s : sockets) s.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ports;
    }

    static void await(String what, BooleanSupplier condition) {
        await(what, TIMEOUT, condition, () -> "");
    }

    static void await(String what, BooleanSupplier condition, Supplier<String> state) {
        await(what, TIMEOUT, condition, state);
    }

    /** Polls {@code condition} until it holds, failing with {@code what} and {@code state} at the deadline. */
    static void await(String what, Duration timeout, BooleanSupplier condition, Supplier<String> state) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) throw new AssertionError("timed out after " + timeout + " waiting for " + what + " " + state.get());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }
}
