package io.tandem.codec;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.Pool;
import io.tandem.engine.ClientRequest;
import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Kryo with registration required (DESIGN §7): thread-safe through a pool of configured Kryo
 * instances. Untrusted lengths inside a body (arrays, lists) are checked against the bytes that
 * remain before anything is allocated, so a small hostile frame cannot make a node allocate
 * gigabytes.
 */
public final class KryoCodec {
    private static final int MAX_POOLED_BUFFER = 1 << 20;
    /** From this size on a message that knows its size ({@link KnownEncodedSize}) gets its own exact array. */
    static final int SIZED_FROM_BYTES = 64 << 10;

    private record Registration(Class<?> type, Serializer<?> serializer, int id) {}

    private final List<Registration> registrations;
    private final int maxEncodedBytes;
    private final Pool<Kryo> pool;
    /** Output buffers keep the size they grew to, so steady-state encoding copies once (into the result). */
    private final Pool<Output> outputs;

    private KryoCodec(List<Registration> registrations, int maxEncodedBytes) {
        this.registrations = List.copyOf(registrations);
        this.maxEncodedBytes = maxEncodedBytes;
        this.pool = new Pool<>(true, false, 16) {
            @Override
            protected Kryo create() {
                return newKryo();
            }
        };
        this.outputs = new Pool<>(true, false, 16) {
            @Override
            protected Output create() {
                return new Output(4096, maxEncodedBytes);
            }
        };
        pool.free(pool.obtain()); // fail fast on a bad registration, at construction
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Serializes a registered object (its class first, then its fields). */
    public byte[] encode(Object value) {
        if (value instanceof KnownEncodedSize sized && sized.encodedBodyBytes() >= SIZED_FROM_BYTES) return encodeSized(value, sized.encodedBodyBytes());
        Output out = outputs.obtain();
        try {
            out.reset();
            encodeTo(value, out);
            return out.toBytes();
        } finally {
            if (out.getBuffer().length > MAX_POOLED_BUFFER) out.setBuffer(new byte[4096], maxEncodedBytes); // don't pin a huge buffer
            outputs.free(out);
        }
    }

    /**
     * Serializes a registered object (its class first, then its fields) into {@code out} from its position, the
     * same bytes as {@link #encode}: for a caller that keeps its own buffer and sends from it without the copy
     * {@code encode} makes into a fresh array (the transport's shared bodies, wire22). {@code out} must have been
     * made with a maximum size ({@code new Output(initial, max)}) so that an oversized message fails here.
     *
     * @throws CodecException if the object cannot be encoded or exceeds {@code out}'s maximum
     */
    public void encodeTo(Object value, Output out) {
        Kryo kryo = pool.obtain();
        try {
            kryo.writeClassAndObject(out, value);
        } catch (RuntimeException e) { // KryoException (also: past the buffer's maximum), or IllegalArgumentException for an unregistered class
            throw new CodecException("cannot encode " + (value == null ? "null" : value.getClass().getName()) + ": " + e.getMessage(), e);
        } finally {
            pool.free(kryo);
        }
    }

    /** The largest encoding this codec produces ({@link Builder#maxEncodedBytes}). */
    public int maxEncodedBytes() {
        return maxEncodedBytes;
    }

    /**
     * A large message that knows its size: written into an array of exactly the class id's bytes plus
     * {@code body}, returned as it is. The pooled buffers stay small (a 1 MiB block would otherwise grow a
     * pooled 4 KiB buffer to 2 MiB, copying as it goes, then be copied out, and the grown buffer dropped).
     */
    private byte[] encodeSized(Object value, int body) {
        Kryo kryo = pool.obtain();
        try {
            // writeClassAndObject writes the registration id + 2 as a positive varint (references are off), then the body.
            long size = Output.varIntLength(kryo.getRegistration(value.getClass()).getId() + 2, true) + (long) body;
            if (size > maxEncodedBytes) throw new KryoException("a " + size + "-byte encoding exceeds the limit of " + maxEncodedBytes);
            Output out = new Output(new byte[(int) size], maxEncodedBytes);
            kryo.writeClassAndObject(out, value);
            return out.position() == size && out.getBuffer().length == size ? out.getBuffer() : out.toBytes();
        } catch (RuntimeException e) {
            throw new CodecException("cannot encode " + value.getClass().getName() + ": " + e.getMessage(), e);
        } finally {
            pool.free(kryo);
        }
    }

    public Object decode(byte[] bytes) {
        return decode(bytes, 0, bytes.length);
    }

    /** The Kryo context key that marks an encoding of the head only ({@link #encodeHead}). */
    private static final Object HEAD_ONLY = new Object();
    /** The Kryo context key that marks an input array the decoded value may keep ({@link #decodeOwned}). */
    private static final Object OWNED_INPUT = new Object();

    /** A message's encoding in two parts: {@code head}, then {@code length} bytes of {@code tail} from {@code offset}. */
    public record Head(byte[] head, byte[] tail, int offset, int length) {
        public long totalBytes() {
            return (long) head.length + length;
        }
    }

    /**
     * Encodes a {@link TrailingBytes} message without its trailing run: the head, to be followed on the wire
     * by the run itself (read from the message's array, not copied here). The two together are exactly
     * {@link #encode}'s bytes.
     */
    public Head encodeHead(TrailingBytes value) {
        Kryo kryo = pool.obtain();
        Output out = outputs.obtain();
        try {
            out.reset();
            kryo.getContext().put(HEAD_ONLY, Boolean.TRUE);
            kryo.writeClassAndObject(out, value);
            byte[] tail = value.trailingArray();
            return new Head(out.toBytes(), tail, tail == null ? 0 : value.trailingOffset(), tail == null ? 0 : value.trailingLength());
        } catch (RuntimeException e) {
            throw new CodecException("cannot encode " + value.getClass().getName() + ": " + e.getMessage(), e);
        } finally {
            kryo.getContext().remove(HEAD_ONLY);
            if (out.getBuffer().length > MAX_POOLED_BUFFER) out.setBuffer(new byte[4096], maxEncodedBytes);
            outputs.free(out);
            pool.free(kryo);
        }
    }

    /** For a {@link TrailingBytes} serializer: writes the trailing run last, or nothing when only the head is encoded. */
    public static void writeTrailing(Kryo kryo, Output out, byte[] data, int offset, int length) {
        if (kryo.getContext().containsKey(HEAD_ONLY)) return;
        out.writeBytes(data, offset, length);
    }

    /**
     * For a serializer: whether the input array is the decoded message's own ({@link #decodeOwned}), so that a
     * large run of bytes may be kept as a slice of {@link Input#getBuffer()} instead of copied out of it.
     */
    public static boolean ownsInput(Kryo kryo) {
        return kryo.getContext().containsKey(OWNED_INPUT);
    }

    /**
     * Like {@link #decode(byte[], int, int)}, for an array the caller hands over and never reuses (a large frame
     * read into an array of its own): the decoded value may keep references into it instead of copying
     * (a serializer asks {@link #ownsInput}).
     */
    public Object decodeOwned(byte[] bytes, int offset, int length) {
        return decode(bytes, offset, length, true);
    }

    /**
     * Deserializes one object that must fill {@code bytes[offset, offset+length)} exactly.
     *
     * @throws CodecException for unknown types, truncated or trailing bytes, or hostile lengths
     */
    public Object decode(byte[] bytes, int offset, int length) {
        return decode(bytes, offset, length, false);
    }

    private Object decode(byte[] bytes, int offset, int length, boolean owned) {
        Kryo kryo = pool.obtain();
        if (owned) kryo.getContext().put(OWNED_INPUT, Boolean.TRUE);
        try (Input in = new Input(bytes, offset, length)) {
            Object value = kryo.readClassAndObject(in);
            if (in.position() != offset + length) {
                throw new CodecException("trailing bytes: decoded " + (in.position() - offset) + " of " + length);
            }
            return value;
        } catch (CodecException e) {
            throw e;
        } catch (RuntimeException e) { // KryoException, IndexOutOfBounds from hostile input, ...
            throw new CodecException("cannot decode a " + length + "-byte body: " + e.getMessage(), e);
        } finally {
            if (owned) kryo.getContext().remove(OWNED_INPUT);
            pool.free(kryo);
        }
    }

    /** Decodes and checks the type, for callers that expect one kind of message. */
    public <T> T decode(byte[] bytes, Class<T> expected) {
        Object value = decode(bytes);
        if (!expected.isInstance(value)) {
            throw new CodecException("expected " + expected.getSimpleName() + " but decoded " + (value == null ? "null" : value.getClass().getSimpleName()));
        }
        return expected.cast(value);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private Kryo newKryo() {
        Kryo kryo = new Kryo();
        kryo.setRegistrationRequired(true);
        kryo.setReferences(false);
        kryo.setWarnUnregisteredClasses(false);
        for (Registration r : registrations) {
            if (r.serializer() == null) kryo.register(r.type(), r.id());
            else kryo.register((Class) r.type(), (Serializer) r.serializer(), r.id());
        }
        return kryo;
    }

    public static final class Builder implements MessageRegistry {
        private final List<Registration> registrations = new ArrayList<>();
        private int maxEncodedBytes = FrameFormat.DEFAULT_MAX_FRAME_BYTES;

        private Builder() {
            registerCoreTypes();
        }

        private void registerCoreTypes() {
            int id = CodecIds.CORE_FIRST;
            register(byte[].class, new SafeSerializers.ByteArraySerializer(), id++);
            register(long[].class, new SafeSerializers.LongArraySerializer(), id++);
            SafeSerializers.ListSerializer lists = new SafeSerializers.ListSerializer();
            register(listClass("java.util.ArrayList"), lists, id++);
            register(listClass("java.util.ImmutableCollections$List12"), lists, id++);
            register(listClass("java.util.ImmutableCollections$ListN"), lists, id++);
            register(NodeId.class, id++);
            register(ClientRequest.Session.class, id++);
            register(ReadPolicy.Linearizable.class, id++);
            register(ReadPolicy.Lease.class, id++);
            register(ReadPolicy.Stale.class, id++);
            // The runtimes' own messages (forwarding and remote answers), the same on every member.
            register(ClientRequest.Kind.class, id++);
            register(io.tandem.runtime.RuntimeMessage.Forward.class, id++);
            register(io.tandem.runtime.RuntimeMessage.Answer.class, id++);
            register(io.tandem.runtime.RuntimeMessage.Refusal.class, id++);
            register(io.tandem.runtime.RuntimeMessage.Reason.class, id++);
        }

        @SuppressWarnings("unchecked")
        private static Class<Object> listClass(String name) {
            try {
                return (Class<Object>) Class.forName(name);
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("this JDK lacks " + name, e);
            }
        }

        @Override
        public void register(Class<?> type, int id) {
            add(new Registration(type, null, id));
        }

        @Override
        public <T> void register(Class<T> type, Serializer<T> serializer, int id) {
            add(new Registration(type, Objects.requireNonNull(serializer), id));
        }

        private void add(Registration r) {
            for (Registration existing : registrations) {
                if (existing.id() == r.id()) {
                    throw new IllegalArgumentException("codec id " + r.id() + " is taken by " + existing.type().getName() + ", cannot give it to " + r.type().getName());
                }
                if (existing.type() == r.type()) throw new IllegalArgumentException(r.type().getName() + " is registered twice");
            }
            registrations.add(r);
        }

        public Builder maxEncodedBytes(int max) {
            if (max < 64) throw new IllegalArgumentException("maxEncodedBytes must be >= 64");
            this.maxEncodedBytes = max;
            return this;
        }

        public KryoCodec build() {
            return new KryoCodec(registrations, maxEncodedBytes);
        }
    }
}
