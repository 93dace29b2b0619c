package io.tandem.sst;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The typed layout of one SST row, declared once (derecho.md §2.2, §8.2): scalar counters, arrays
 * of counters and byte areas, in declaration order. Every field starts on an 8-byte boundary and
 * its length is padded to a multiple of 8, so no 8-byte word crosses a 64-byte cache line (the
 * padding bug of Derecho issue #148 cannot happen); the row length is rounded up to 64 bytes so two
 * rows never share a line. Protocol code names fields, never raw offsets.
 *
 * <pre>{@code
 * SstLayout.Builder b = SstLayout.builder();
 * SstLayout.Column vid = b.column("vid");
 * SstLayout.Array received = b.array("received", 8);
 * SstLayout.Bytes slots = b.bytes("slots", 16 * 256);
 * SstLayout layout = b.build();
 * }</pre>
 */
public final class SstLayout {
    /** Bytes in a cache line; rows are a multiple of it. */
    public static final int LINE = 64;

    /** A field of the row: a byte range {@code [offset, offset + length)}. */
    public sealed interface Field permits Column, Array, Bytes {
        String name();

        int offset();

        int length();
    }

    /** One 8-byte word, read with acquire and written with release. */
    public record Column(String name, int offset) implements Field {
        @Override
        public int length() {
            return 8;
        }
    }

    /** {@code size} consecutive 8-byte words. */
    public record Array(String name, int offset, int size) implements Field {
        @Override
        public int length() {
            return 8 * size;
        }

        /** Offset of element {@code i}. */
        public int offsetOf(int i) {
            Objects.checkIndex(i, size);
            return offset + 8 * i;
        }
    }

    /** An area of raw bytes (SMC slots, say), padded to a multiple of 8. */
    public record Bytes(String name, int offset, int length) implements Field {}

    private final List<Field> fields;
    private final int rowBytes;

    private SstLayout(List<Field> fields, int rowBytes) {
        this.fields = Collections.unmodifiableList(new ArrayList<>(fields));
        this.rowBytes = rowBytes;
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<Field> fields() {
        return fields;
    }

    /** Row length: the fields' padded lengths, rounded up to a whole cache line. */
    public int rowBytes() {
        return rowBytes;
    }

    /**
     * A hash of the field names, kinds and offsets: members that compare it know they agree on the
     * layout (derecho.md §8.14; the C++ code requires identical layouts everywhere).
     */
    public long layoutHash() {
        long h = 0xcbf29ce484222325L;
        for (Field f : fields) {
            String s = f.getClass().getSimpleName() + ":" + f.name() + "@" + f.offset() + "+" + f.length();
            for (int i = 0; i < s.length(); i++) h = (h ^ s.charAt(i)) * 0x100000001b3L;
        }
        return h;
    }

    @Override
    public String toString() {
        return "SstLayout" + fields + " (" + rowBytes + " bytes)";
    }

    /** Declares fields in order; names must be unique. */
    public static final class Builder {
        private final Map<String, Field> fields = new LinkedHashMap<>();
        private int next;

        public Column column(String name) {
            return add(new Column(name, next));
        }

        public Array array(String name, int size) {
            if (size < 1) throw new IllegalArgumentException("array '" + name + "' needs at least one element, was " + size);
            return add(new Array(name, next, size));
        }

        public Bytes bytes(String name, int length) {
            if (length < 1) throw new IllegalArgumentException("byte field '" + name + "' needs at least one byte, was " + length);
            return add(new Bytes(name, next, pad(length)));
        }

        private <F extends Field> F add(F field) {
            Objects.requireNonNull(field.name(), "name");
            if (fields.containsKey(field.name())) throw new IllegalArgumentException("field '" + field.name() + "' is declared twice");
            long end = (long) field.offset() + field.length();
            if (end > Integer.MAX_VALUE / 2) throw new IllegalArgumentException("row too large at field '" + field.name() + "'");
            fields.put(field.name(), field);
            next = (int) end;
            return field;
        }

        public SstLayout build() {
            if (fields.isEmpty()) throw new IllegalStateException("a row needs at least one field");
            int rowBytes = (next + LINE - 1) / LINE * LINE;
            for (Field f : fields.values()) {
                // Every word is 8-aligned, so none crosses a 64-byte line; kept as an assertion against future edits.
                if (f.offset() % 8 != 0 || f.length() % 8 != 0) throw new IllegalStateException("field " + f + " is not 8-aligned");
            }
            return new SstLayout(List.copyOf(fields.values()), rowBytes);
        }

        private static int pad(int length) {
            return (length + 7) / 8 * 8;
        }
    }
}
