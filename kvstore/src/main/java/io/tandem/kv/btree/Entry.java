package io.tandem.kv.btree;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A key and its value. The arrays are the tree's own (no copies are made on the read path), so
 * they must not be modified. Equality compares contents.
 */
public record Entry(byte[] key, byte[] value) {
    public Entry {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Entry(byte[] k, byte[] v) && Arrays.equals(key, k) && Arrays.equals(value, v);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(key) + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "Entry[" + preview(key) + "=" + preview(value) + "]";
    }

    /** Hex of at most the first 32 bytes, for messages and logs. */
    static String preview(byte[] bytes) {
        if (bytes == null) return "null";
        HexFormat hex = HexFormat.of();
        return bytes.length <= 32
                ? "0x" + hex.formatHex(bytes)
                : "0x" + hex.formatHex(bytes, 0, 32) + "...(" + bytes.length + " bytes)";
    }
}
