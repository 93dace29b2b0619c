package io.tandem.history;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One entry of a Jepsen history (verification.md §2.1): an invocation or a completion.
 *
 * @param index the op's {@code :index}, or {@link #NONE} if it has none (Knossos-era files often don't)
 * @param time the op's {@code :time} in nanoseconds since the test started, or {@link #NONE}
 * @param type {@code :invoke}, {@code :ok}, {@code :fail} or {@code :info}
 * @param process a {@link Long} for client processes ({@link BigInteger} beyond 64 bits; smaller integer
 *     types are converted); anything else, usually {@code :nemesis}, for fault injection
 * @param f the operation's function, usually a keyword such as {@code :read}; {@code null} if absent
 * @param value the operation's argument or result, any EDN value ({@code null} for nil)
 * @param extras every other key of the op map ({@code :error}, {@code :exception}, {@code :node}, ...)
 *     in the order read, so nothing is lost on a round trip
 */
public record Op(long index, long time, Type type, Object process, Object f, Object value, Map<Object, Object> extras) {
    /** Marks an absent {@code :index} or {@code :time}. */
    public static final long NONE = -1;

    public static final Keyword INDEX = Keyword.of("index");
    public static final Keyword TIME = Keyword.of("time");
    public static final Keyword TYPE = Keyword.of("type");
    public static final Keyword PROCESS = Keyword.of("process");
    public static final Keyword F = Keyword.of("f");
    public static final Keyword VALUE = Keyword.of("value");
    public static final Keyword ERROR = Keyword.of("error");
    public static final Keyword NEMESIS = Keyword.of("nemesis");

    /** The four op types of a Jepsen history. */
    public enum Type {
        INVOKE,
        OK,
        FAIL,
        INFO;

        private final Keyword keyword = Keyword.of(name().toLowerCase(java.util.Locale.ROOT));

        public Keyword keyword() {
            return keyword;
        }

        /** The type named by a keyword (or, leniently, a string or symbol) such as {@code :ok}. */
        public static Type of(Object name) {
            String text = switch (name) {
                case Keyword k -> k.name();
                case String s -> s;
                case Symbol s -> s.name();
                case null, default -> null;
            };
            if (text != null) {
                for (Type t : values()) {
                    if (t.keyword.name().equals(text)) {
                        return t;
                    }
                }
            }
            throw new IllegalArgumentException("unknown op :type " + EdnWriter.toEdn(name)
                    + " (expected :invoke, :ok, :fail or :info)");
        }
    }

    public Op {
        Objects.requireNonNull(type, "type");
        process = normalizeProcess(process);
        if (index < NONE || time < NONE) {
            throw new IllegalArgumentException("index and time must be >= 0, or Op.NONE");
        }
        extras = EdnValues.immutableMap(extras == null ? Map.of() : extras);
        for (Object key : extras.keySet()) {
            if (key instanceof Keyword k && isCoreKey(k)) {
                boolean malformedIndex = k.equals(INDEX) && index == NONE && !isValidPosition(extras.get(k));
                boolean malformedTime = k.equals(TIME) && time == NONE && !isValidPosition(extras.get(k));
                if (!malformedIndex && !malformedTime) {
                    throw new IllegalArgumentException("extras must not repeat the core key " + k);
                }
            }
        }
    }

    /** An op with no extra keys. */
    public Op(long index, long time, Type type, Object process, Object f, Object value) {
        this(index, time, type, process, f, value, Map.of());
    }

    /** True if this op belongs to a client process (an integer {@code :process}), false for the nemesis. */
    public boolean isClient() {
        return process instanceof Long || process instanceof BigInteger;
    }

    /** The {@code :error} key, or {@code null}. */
    public Object error() {
        return extras.get(ERROR);
    }

    public Op withIndex(long newIndex) {
        return new Op(newIndex, time, type, process, f, value, extras);
    }

    public Op withValue(Object newValue) {
        return new Op(index, time, type, process, f, newValue, extras);
    }

    public Op withProcess(Object newProcess) {
        return new Op(index, time, type, newProcess, f, value, extras);
    }

    /**
     * Builds an op from a history map. Liberal like Knossos: keys in any order, {@code :f}, {@code :value},
     * {@code :index} and {@code :time} optional, {@code :type} also accepted as a string. An
     * {@code :index} or {@code :time} that is not a non-negative long is kept verbatim among the extras.
     *
     * @throws HistoryException if {@code :type} or {@code :process} is missing or {@code :type} is unknown
     */
    public static Op fromMap(Map<?, ?> map) {
        if (!map.containsKey(TYPE)) {
            throw new HistoryException("op has no :type: " + EdnWriter.toEdn(map));
        }
        if (!map.containsKey(PROCESS)) {
            throw new HistoryException("op has no :process: " + EdnWriter.toEdn(map));
        }
        Type type;
        try {
            type = Type.of(map.get(TYPE));
        } catch (IllegalArgumentException e) {
            throw new HistoryException(e.getMessage() + ": " + EdnWriter.toEdn(map));
        }
        long index = NONE;
        long time = NONE;
        Map<Object, Object> extras = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            Object key = e.getKey();
            Object v = e.getValue();
            if (INDEX.equals(key) && isValidPosition(v)) {
                index = (Long) v;
            } else if (TIME.equals(key) && isValidPosition(v)) {
                time = (Long) v;
            } else if (INDEX.equals(key) || TIME.equals(key) || !(key instanceof Keyword k && isCoreKey(k))) {
                extras.put(key, v);
            }
        }
        return new Op(index, time, type, map.get(PROCESS), map.get(F), map.get(VALUE), extras);
    }

    /** This op as a history map: {@code :index :time :type :process :f :value}, then the extras. */
    public Map<Object, Object> toMap() {
        Map<Object, Object> map = new LinkedHashMap<>();
        if (index != NONE) {
            map.put(INDEX, index);
        }
        if (time != NONE) {
            map.put(TIME, time);
        }
        map.put(TYPE, type.keyword());
        map.put(PROCESS, process);
        map.put(F, f);
        map.put(VALUE, value);
        map.putAll(extras);
        return map;
    }

    /** This op as one line of EDN, exactly as {@link History#write} prints it. */
    public String toEdn() {
        return EdnWriter.toEdn(toMap());
    }

    @Override
    public String toString() {
        return toEdn();
    }

    /** Client process numbers are {@code Long}s (or {@code BigInteger}s beyond 64 bits), however given. */
    private static Object normalizeProcess(Object process) {
        return switch (process) {
            case Integer i -> (long) i;
            case Short s -> (long) s;
            case Byte b -> (long) b;
            case BigInteger b when b.bitLength() < 64 -> b.longValue();
            case null, default -> process;
        };
    }

    private static boolean isCoreKey(Keyword k) {
        return k.equals(INDEX) || k.equals(TIME) || k.equals(TYPE) || k.equals(PROCESS) || k.equals(F) || k.equals(VALUE);
    }

    /** Only a non-negative long is an {@code :index}/{@code :time}; anything else is kept as an extra. */
    private static boolean isValidPosition(Object v) {
        return v instanceof Long l && l >= 0;
    }
}
