package io.tandem.sim;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * A running 64-bit hash of everything that happens in a run: every delivered message (its full
 * content, walked field by field for records), timer, disk completion, fault and client operation.
 * Two runs with the same seed must end with the same value; the determinism test compares it.
 * Content is hashed structurally, never through {@code toString} or identity hashes, which differ
 * between runs.
 */
final class TraceDigest {
    private static final long PRIME = 0x100000001b3L;
    private static final ClassValue<Method[]> ACCESSORS = new ClassValue<>() {
        @Override
        protected Method[] computeValue(Class<?> type) {
            RecordComponent[] components = type.getRecordComponents();
            Method[] accessors = new Method[components.length];
            for (int i = 0; i < components.length; i++) {
                accessors[i] = components[i].getAccessor();
                accessors[i].setAccessible(true);
            }
            return accessors;
        }
    };

    private long hash = 0xcbf29ce484222325L;
    private long events;

    long value() {
        return mix(hash ^ events);
    }

    long events() {
        return events;
    }

    void event() {
        events++;
    }

    void add(long value) {
        hash = (hash ^ mix(value)) * PRIME;
    }

    void add(String text) {
        if (text == null) {
            add(0x6e756c6cL);
            return;
        }
        // String.hashCode is specified (so equal across runs) and cached, which matters: class and
        // event names are hashed for every event.
        add(((long) text.length() << 32) ^ text.hashCode());
    }

    void add(byte[] bytes) {
        add(bytes.length);
        for (byte b : bytes) hash = (hash ^ (b & 0xff)) * PRIME;
    }

    /** Hashes any value built of records, primitives, strings, enums, arrays, collections and maps. */
    void addObject(Object value) {
        switch (value) {
            case null -> add(0x6e756c6cL);
            case Long l -> add(l);
            case Integer i -> add(i);
            case Short s -> add(s);
            case Byte b -> add(b);
            case Character c -> add(c);
            case Boolean b -> add(b ? 1 : 2);
            case Double d -> add(Double.doubleToLongBits(d));
            case Float f -> add(Float.floatToIntBits(f));
            case String s -> add(s);
            case Enum<?> e -> {
                add(e.getDeclaringClass().getName());
                add(e.ordinal());
            }
            case byte[] bytes -> add(bytes);
            case long[] longs -> {
                add(longs.length);
                for (long l : longs) add(l);
            }
            case int[] ints -> {
                add(ints.length);
                for (int i : ints) add(i);
            }
            case Object[] array -> {
                add(array.length);
                for (Object o : array) addObject(o);
            }
            case Collection<?> collection -> {
                add(collection.size());
                for (Object o : collection) addObject(o);
            }
            case Map<?, ?> map -> {
                add(map.size());
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    addObject(e.getKey());
                    addObject(e.getValue());
                }
            }
            case Optional<?> optional -> addObject(optional.orElse(null));
            case Record record -> {
                add(record.getClass().getName());
                for (Method accessor : ACCESSORS.get(record.getClass())) {
                    try {
                        addObject(accessor.invoke(record));
                    } catch (IllegalAccessException | InvocationTargetException e) {
                        throw new IllegalStateException("cannot read " + accessor + " for the trace", e);
                    }
                }
            }
            default -> {
                // A class with state the digest cannot see: hash its name and toString, and hope the
                // author gave it a deterministic one (the determinism test catches it if not).
                add(value.getClass().getName());
                add(value.toString());
            }
        }
    }

    /**
     * A readable rendering for the text trace, structural like the hash (records as
     * {@code Name[field=value, ...]}, byte arrays by content), so that the traces of two runs diff
     * cleanly.
     */
    static String render(Object value) {
        StringBuilder out = new StringBuilder();
        render(value, out);
        return out.toString();
    }

    private static void render(Object value, StringBuilder out) {
        switch (value) {
            case null -> out.append("null");
            case io.tandem.engine.NodeId id -> out.append(id.value());
            case byte[] bytes -> {
                out.append("0x");
                for (int i = 0; i < Math.min(bytes.length, 32); i++) out.append(Character.forDigit((bytes[i] >> 4) & 0xf, 16)).append(Character.forDigit(bytes[i] & 0xf, 16));
                if (bytes.length > 32) out.append("...(").append(bytes.length).append(" bytes)");
            }
            case Object[] array -> {
                out.append('[');
                for (int i = 0; i < array.length; i++) {
                    if (i > 0) out.append(", ");
                    render(array[i], out);
                }
                out.append(']');
            }
            case Collection<?> collection -> {
                out.append('[');
                boolean first = true;
                for (Object o : collection) {
                    if (!first) out.append(", ");
                    first = false;
                    render(o, out);
                }
                out.append(']');
            }
            case Record record -> {
                out.append(record.getClass().getSimpleName()).append('[');
                Method[] accessors = ACCESSORS.get(record.getClass());
                for (int i = 0; i < accessors.length; i++) {
                    if (i > 0) out.append(", ");
                    out.append(accessors[i].getName()).append('=');
                    try {
                        render(accessors[i].invoke(record), out);
                    } catch (IllegalAccessException | InvocationTargetException e) {
                        out.append('?');
                    }
                }
                out.append(']');
            }
            default -> out.append(value);
        }
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }
}
